// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for rdma_tcp_port: RDMA_PS_TCP ports held in the host TCP
 * port space.
 *
 * Real rdma_cm ids against real kernel TCP sockets, in the same kernel.
 * The host TCP stack is the oracle: every scenario is run once with two TCP
 * sockets and once with an rdma_cm id in place of one of them, and both
 * runs must end alike (success, or the same errno).  Wildcard binds need no
 * RDMA device, so the rdma_cm side of a scenario is always a wildcard.
 *
 * One rule differs on purpose: an rdma_cm id without reuse that binds second
 * ends as a TCP socket with SO_REUSEADDR that listens would, so that siw's
 * connections and TIME_WAIT sockets from earlier ids on the port (which
 * allow reuse) do not keep a restarted server out.
 *
 * A case that ends early, on a failed assertion, leaves nothing behind for
 * the next: its endpoints, ids, namespaces and credentials are released by
 * KUnit deferred actions, and the suite's .init defers putting the provider
 * back as the module starts it (registered, default parameters).
 */

#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/percpu_counter.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/user_namespace.h>
#include <linux/vmstat.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/ib.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_kunit.h"

enum ep_kind { TCP, RDMA };
static const char * const kind_name[] = { [TCP] = "TCP", [RDMA] = "RDMA" };

enum ep_addr { ANY4, LO4, ANY6, LO6, MAPPED4 };
static const char * const addr_name[] = {
	[ANY4] = "0.0.0.0",
	[LO4] = "127.0.0.1",
	[ANY6] = "[::]",
	[LO6] = "[::1]",
	[MAPPED4] = "[::ffff:127.0.0.1]",
};

/* One side of a scenario: the address it binds and how. */
struct ep_spec {
	enum ep_addr addr;
	bool reuse;		/* SO_REUSEADDR / rdma_set_reuseaddr() */
	int v6only;		/* -1: namespace default, else IPV6_V6ONLY */
	bool listen;
	bool reuse_after_bind;	/* SO_REUSEADDR / reuse set once bound */
};

/*
 * A TCP socket or an rdma_cm id.  The deferred action that closes an open
 * one points at it, so endpoints live in KUnit's memory (ep_alloc()), not
 * on the stack of the test's thread, which a failed assertion ends.
 */
struct ep {
	struct socket *sock;
	struct rdma_cm_id *id;
};

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	return 0;
}

static bool is_wildcard(enum ep_addr a)
{
	return a == ANY4 || a == ANY6;
}

static int make_addr(enum ep_addr a, u16 port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	switch (a) {
	case ANY4:
	case LO4:
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(a == LO4 ? INADDR_LOOPBACK : INADDR_ANY);
		return sizeof(*sin);
	default:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (a == LO6)
			sin6->sin6_addr = in6addr_loopback;
		else if (a == MAPPED4)
			ipv6_addr_set_v4mapped(htonl(INADDR_LOOPBACK),
					       &sin6->sin6_addr);
		return sizeof(*sin6);
	}
}

/* @n closed endpoints, freed when the test ends. */
static struct ep *ep_alloc(struct kunit *test, size_t n)
{
	struct ep *eps = kunit_kcalloc(test, n, sizeof(*eps), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eps);
	return eps;
}

static void ep_release(struct ep *ep)
{
	if (ep->id)
		rdma_destroy_id(ep->id);
	if (ep->sock)
		sock_release(ep->sock);
	ep->id = NULL;
	ep->sock = NULL;
}

KUNIT_DEFINE_ACTION_WRAPPER(ep_release_action, ep_release, struct ep *);

/*
 * Bind (and listen) as @kind would; returns 0 or the errno it met.  An
 * endpoint that fails is closed already; one that opens is closed by
 * ep_close(), or when the test ends, whichever comes first.
 */
static int ep_open(struct kunit *test, struct net *net, enum ep_kind kind,
		   const struct ep_spec *s, u16 port, struct ep *ep)
{
	struct sockaddr_storage ss;
	int len = make_addr(s->addr, port, &ss);
	int ret;

	memset(ep, 0, sizeof(*ep));
	if (kind == TCP) {
		ret = sock_create_kern(net, ss.ss_family, SOCK_STREAM,
				       IPPROTO_TCP, &ep->sock);
		if (ret)
			return ret;
		if (s->reuse)
			sock_set_reuseaddr(ep->sock->sk);
		if (ss.ss_family == AF_INET6 && s->v6only == 1)
			ip6_sock_set_v6only(ep->sock->sk);
		ret = kernel_bind(ep->sock, (struct sockaddr *)&ss, len);
		if (!ret && s->reuse_after_bind)
			sock_set_reuseaddr(ep->sock->sk);
		if (!ret && s->listen)
			ret = kernel_listen(ep->sock, 8);
	} else {
		ep->id = rdma_create_id(net, cm_handler, NULL, RDMA_PS_TCP,
					IB_QPT_RC);
		if (IS_ERR(ep->id)) {
			ret = PTR_ERR(ep->id);
			ep->id = NULL;
			return ret;
		}
		ret = s->reuse ? rdma_set_reuseaddr(ep->id, 1) : 0;
		if (!ret && s->v6only >= 0)
			ret = rdma_set_afonly(ep->id, s->v6only);
		if (!ret)
			ret = rdma_bind_addr(ep->id, (struct sockaddr *)&ss);
		if (!ret && s->reuse_after_bind)
			ret = rdma_set_reuseaddr(ep->id, 1);
		if (!ret && s->listen)
			ret = rdma_listen(ep->id, 8);
	}
	if (ret) {
		ep_release(ep);
		return ret;
	}
	/* If the action cannot be deferred, @ep is closed and this fails. */
	return kunit_add_action_or_reset(test, ep_release_action, ep);
}

/* Close @ep now; nothing if it is not open. */
static void ep_close(struct kunit *test, struct ep *ep)
{
	kunit_release_action(test, ep_release_action, ep);
}

KUNIT_DEFINE_ACTION_WRAPPER(put_net_action, put_net, struct net *);

/*
 * A new network namespace, put by net_put() or when the test ends.  Kernel
 * sockets hold no reference to their namespace: create it before the
 * endpoints in it, so that the test's end closes them first.
 */
static struct net *net_new(struct kunit *test)
{
	struct net *net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, put_net_action, net), 0);
	return net;
}

static void net_put(struct kunit *test, struct net *net)
{
	kunit_release_action(test, put_net_action, net);
}

KUNIT_DEFINE_ACTION_WRAPPER(destroy_id_action, rdma_destroy_id,
			    struct rdma_cm_id *);

/* An rdma_cm id, destroyed by id_destroy() or when the test ends. */
static struct rdma_cm_id *id_create(struct kunit *test, struct net *net,
				    enum rdma_ucm_port_space ps,
				    enum ib_qp_type qpt)
{
	struct rdma_cm_id *id = rdma_create_id(net, cm_handler, NULL, ps, qpt);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, destroy_id_action, id), 0);
	return id;
}

static void id_destroy(struct kunit *test, struct rdma_cm_id *id)
{
	kunit_release_action(test, destroy_id_action, id);
}

/*
 * Credentials that the test's thread takes on for a while.  Deferred
 * actions run in a kthread of their own once the test's has ended, where
 * revert_creds() would change the wrong task: so creds_revert() runs in
 * the test, and creds_put() only drops references.  A thread that ended
 * with its credentials overridden drops the override's reference when its
 * task is freed (exit_creds()), but not the one to its own credentials
 * that override_creds() handed over in @saved: creds_put() drops that.
 */
struct test_creds {
	struct cred *cred;		/* from prepare_creds() */
	const struct cred *saved;	/* the thread's own, while overridden */
	unsigned long nofile;		/* the thread's RLIMIT_NOFILE before */
};

static void creds_put(struct test_creds *c)
{
	if (c->saved)
		put_cred(c->saved);
	put_cred(c->cred);
}

KUNIT_DEFINE_ACTION_WRAPPER(creds_put_action, creds_put, struct test_creds *);

/* A copy of the test's credentials, to change and then take on. */
static struct test_creds *creds_prepare(struct kunit *test)
{
	struct test_creds *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	c->cred = prepare_creds();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->cred);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, creds_put_action, c), 0);
	return c;
}

static void creds_override(struct test_creds *c)
{
	c->saved = override_creds(c->cred);
}

/* Back to the test's own credentials, dropping @c's. */
static void creds_revert(struct kunit *test, struct test_creds *c)
{
	revert_creds(c->saved);
	c->saved = NULL;
	kunit_release_action(test, creds_put_action, c);
}

/*
 * What a case may change of the provider, put back when it ends, passed or
 * not: registered (-EBUSY: it still is), idr on, reserve "all" and
 * user_share 5, the module's defaults (src/param.rs).  It runs after the
 * case's own deferred actions, once its endpoints are closed.
 */
static void provider_defaults(struct kunit *test)
{
	int ret = rdma_tcp_port_kunit_register();

	KUNIT_EXPECT_TRUE_MSG(test, !ret || ret == -EBUSY,
			      "registering the provider again: %pe",
			      ERR_PTR(ret));
	rdma_tcp_port_kunit_set_idr(true);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(provider_defaults_action, provider_defaults,
			    struct kunit *);

struct scenario {
	const char *name;
	struct ep_spec a, b;	/* a binds first, then b */
	int expect;		/* what TCP+TCP gives for b */
};

#define PORT 20001

static const struct scenario scenarios[] = {
	{ .name = "same wildcard, no reuse",
	  .a = { .addr = ANY4, .v6only = -1 },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "same wildcard, reuse on both",
	  .a = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .expect = 0 },
	{ .name = "same wildcard, reuse on first only",
	  .a = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "same wildcard, reuse on second only",
	  .a = { .addr = ANY4, .v6only = -1 },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "first listening, reuse on both",
	  .a = { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "second listening, reuse on both",
	  .a = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  .expect = 0 },
	{ .name = "both listening, reuse on both",
	  .a = { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  .expect = -EADDRINUSE },
	{ .name = "listening, no reuse",
	  .a = { .addr = ANY4, .v6only = -1, .listen = true },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "wildcard then specific",
	  .a = { .addr = ANY4, .v6only = -1 },
	  .b = { .addr = LO4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "specific then wildcard",
	  .a = { .addr = LO4, .v6only = -1 },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "specific listening then wildcard, reuse",
	  .a = { .addr = LO4, .reuse = true, .v6only = -1, .listen = true },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "IPv6 wildcard",
	  .a = { .addr = ANY6, .v6only = -1 },
	  .b = { .addr = ANY6, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "IPv6 wildcard then ::1",
	  .a = { .addr = ANY6, .v6only = -1 },
	  .b = { .addr = LO6, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "IPv6 dual-stack then IPv4",
	  .a = { .addr = ANY6, .v6only = 0 },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "IPv6 v6only then IPv4",
	  .a = { .addr = ANY6, .v6only = 1 },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = 0 },
	{ .name = "IPv4 then IPv6 dual-stack",
	  .a = { .addr = ANY4, .v6only = -1 },
	  .b = { .addr = ANY6, .v6only = 0 },
	  .expect = -EADDRINUSE },
	{ .name = "IPv4 then IPv6 v6only",
	  .a = { .addr = ANY4, .v6only = -1 },
	  .b = { .addr = ANY6, .v6only = 1 },
	  .expect = 0 },
	{ .name = "v4-mapped then IPv4 wildcard",
	  .a = { .addr = MAPPED4, .v6only = -1 },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "IPv4 wildcard then v4-mapped",
	  .a = { .addr = ANY4, .v6only = -1 },
	  .b = { .addr = MAPPED4, .v6only = -1 },
	  .expect = -EADDRINUSE },
	{ .name = "v6only wildcard then v4-mapped",
	  .a = { .addr = ANY6, .v6only = 1 },
	  .b = { .addr = MAPPED4, .v6only = -1 },
	  .expect = 0 },
	{ .name = "reuse set after bind, then reuse",
	  .a = { .addr = ANY4, .v6only = -1, .reuse_after_bind = true },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1 },
	  .expect = 0 },
	{ .name = "reuse set after bind, then reuse listening",
	  .a = { .addr = ANY4, .v6only = -1, .reuse_after_bind = true },
	  .b = { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  .expect = 0 },
	{ .name = "reuse set after bind, then no reuse",
	  .a = { .addr = ANY4, .v6only = -1, .reuse_after_bind = true },
	  .b = { .addr = ANY4, .v6only = -1 },
	  .expect = -EADDRINUSE },
};

static void scenario_desc(const struct scenario *s, char *desc)
{
	strscpy(desc, s->name, KUNIT_PARAM_DESC_SIZE);
}

/* Defines scenario_gen_params(): one run of oracle_scenario per scenario. */
KUNIT_ARRAY_PARAM(scenario, scenarios, scenario_desc);

static int run_pair(struct kunit *test, struct net *net, enum ep_kind ka,
		    const struct ep_spec *a, enum ep_kind kb,
		    const struct ep_spec *b)
{
	struct ep *first = ep_alloc(test, 1), *second = ep_alloc(test, 1);
	int ret;

	ret = ep_open(test, net, ka, a, PORT, first);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "first %s bind of %s failed",
			    kind_name[ka], addr_name[a->addr]);
	ret = ep_open(test, net, kb, b, PORT, second);
	ep_close(test, second);
	ep_close(test, first);
	return ret;
}

static const char *outcome(int err, char *buf, size_t len)
{
	if (err == INT_MIN)
		return "n/a";
	if (!err)
		return "ok";
	snprintf(buf, len, "%pe", ERR_PTR(err));
	return buf;
}

/* One scenario of the table: TCP+TCP against RDMA+TCP and TCP+RDMA. */
static void oracle_scenario(struct kunit *test)
{
	const struct scenario *s = test->param_value;
	int tcp, rdma_first = INT_MIN, tcp_first = INT_MIN;
	char b1[24], b2[24], b3[24];

	tcp = run_pair(test, &init_net, TCP, &s->a, TCP, &s->b);
	KUNIT_EXPECT_EQ_MSG(test, tcp, s->expect, "%s: TCP+TCP", s->name);
	if (is_wildcard(s->a.addr)) {
		rdma_first = run_pair(test, &init_net, RDMA, &s->a, TCP, &s->b);
		KUNIT_EXPECT_EQ_MSG(test, rdma_first, tcp,
				    "%s: RDMA then TCP", s->name);
	}
	if (is_wildcard(s->b.addr)) {
		const struct ep_spec held = {
			.addr = s->b.addr,
			.reuse = true,
			.v6only = s->b.v6only,
			.listen = true,
		};
		int want = s->b.reuse ? tcp :
			run_pair(test, &init_net, TCP, &s->a, TCP, &held);

		tcp_first = run_pair(test, &init_net, TCP, &s->a, RDMA, &s->b);
		KUNIT_EXPECT_EQ_MSG(test, tcp_first, want,
				    "%s: TCP then RDMA", s->name);
	}
	kunit_info(test, "scenario | %-40s | TCP+TCP %-12s | RDMA+TCP %-12s | TCP+RDMA %-12s\n",
		   s->name, outcome(tcp, b1, sizeof(b1)),
		   outcome(rdma_first, b2, sizeof(b2)),
		   outcome(tcp_first, b3, sizeof(b3)));
}

/* Each side alone, in its own namespace, on the same port. */
static void two_namespaces_same_port(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	struct net *net = net_new(test);
	struct ep *tcp = ep_alloc(test, 1), *rdma = ep_alloc(test, 1);

	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	KUNIT_EXPECT_EQ(test, ep_open(test, net, RDMA, &any4, PORT, rdma), 0);
	ep_close(test, rdma);
	KUNIT_EXPECT_EQ(test, ep_open(test, net, TCP, &any4, PORT, rdma), 0);
	ep_close(test, rdma);
	ep_close(test, tcp);
	net_put(test, net);
}

/* A port below ip_unprivileged_port_start, without CAP_NET_BIND_SERVICE. */
static void privileged_port_without_cap(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *ep = ep_alloc(test, 1);
	struct test_creds *creds;
	int tcp, rdma;

	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, RDMA, &any4, 999, ep), 0);
	ep_close(test, ep);

	creds = creds_prepare(test);
	cap_lower(creds->cred->cap_effective, CAP_NET_BIND_SERVICE);
	creds_override(creds);
	tcp = ep_open(test, &init_net, TCP, &any4, 999, ep);
	ep_close(test, ep);
	rdma = ep_open(test, &init_net, RDMA, &any4, 999, ep);
	ep_close(test, ep);
	creds_revert(test, creds);

	KUNIT_EXPECT_EQ(test, tcp, -EACCES);
	KUNIT_EXPECT_EQ(test, rdma, tcp);
}

/*
 * Below PROT_SOCK the rdma_cm also asks for CAP_NET_BIND_SERVICE in the
 * initial user namespace, as upstream's cma_use_port() does, besides what
 * TCP asks over the id's namespace: where TCP's rule lets a port through
 * (ip_unprivileged_port_start 0), an RDMA id without the capability still
 * gets EACCES there, and binds at PROT_SOCK.
 */
static void privileged_port_upstream_rule(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = net_new(test);
	struct ep *ep = ep_alloc(test, 1);
	struct test_creds *creds;
	int tcp, rdma, above;

	WRITE_ONCE(net->ipv4.sysctl_ip_prot_sock, 0);
	creds = creds_prepare(test);
	cap_lower(creds->cred->cap_effective, CAP_NET_BIND_SERVICE);
	creds_override(creds);
	tcp = ep_open(test, net, TCP, &any4, 999, ep);
	ep_close(test, ep);
	rdma = ep_open(test, net, RDMA, &any4, 999, ep);
	ep_close(test, ep);
	above = ep_open(test, net, RDMA, &any4, PROT_SOCK, ep);
	ep_close(test, ep);
	creds_revert(test, creds);
	net_put(test, net);

	KUNIT_EXPECT_EQ(test, tcp, 0);
	KUNIT_EXPECT_EQ(test, rdma, -EACCES);
	KUNIT_EXPECT_EQ(test, above, 0);
}

static u16 id_port(struct rdma_cm_id *id)
{
	return ntohs(((struct sockaddr_in *)&id->route.addr.src_addr)->sin_port);
}

static struct net *small_range_net(struct kunit *test, u16 low, u16 high)
{
	struct net *net = net_new(test);

	WRITE_ONCE(net->ipv4.ip_local_ports.range, (u32)high << 16 | low);
	return net;
}

/*
 * Port 0: the host stack chooses, inside ip_local_port_range and outside
 * ip_local_reserved_ports, and says EADDRINUSE when the range is full,
 * exactly as for a TCP socket.
 */
static void ephemeral_range_and_reserved(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	const int neps = 6;	/* the 5 free ports of the range, and 1 more */
	struct net *net = small_range_net(test, 40000, 40009);
	struct ep *eps = ep_alloc(test, neps), *tcp = ep_alloc(test, 1);
	int i, ret;

	for (i = 40000; i < 40005; i++)
		set_bit(i, net->ipv4.sysctl_local_reserved_ports);

	for (i = 0; i < neps - 1; i++) {
		KUNIT_ASSERT_EQ(test, ep_open(test, net, RDMA, &any4, 0, &eps[i]), 0);
		KUNIT_EXPECT_GE(test, id_port(eps[i].id), 40005);
		KUNIT_EXPECT_LE(test, id_port(eps[i].id), 40009);
	}
	/* The range is full: the next RDMA id and a TCP socket both fail. */
	ret = ep_open(test, net, RDMA, &any4, 0, &eps[neps - 1]);
	KUNIT_EXPECT_EQ(test, ret, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, ep_open(test, net, TCP, &any4, 0, tcp), ret);
	ep_close(test, tcp);
	/* And the RDMA ids hold real host ports. */
	KUNIT_EXPECT_EQ(test, ep_open(test, net, TCP, &any4, id_port(eps[0].id), tcp),
			-EADDRINUSE);
	ep_close(test, tcp);

	for (i = 0; i < neps; i++)
		ep_close(test, &eps[i]);
	net_put(test, net);
}

/*
 * Port 0 among client sockets: the module tries ports with explicit binds,
 * remembering the ones it found taken, so every port that TCP's bind(0)
 * left free still goes to an id, none that a socket holds does, and a port
 * that a socket lets go of is found again once the others are taken.
 */
static void ephemeral_around_client_sockets(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	const int ntcp = 10, nrdma = 11;
	struct net *net = small_range_net(test, 40000, 40019);
	struct ep *tcp, *rdma, *extra;
	int i, j, ret;

	tcp = ep_alloc(test, ntcp);
	rdma = ep_alloc(test, nrdma);
	extra = ep_alloc(test, 1);
	/* TCP's bind(0) takes the odd offsets first: half the range. */
	for (i = 0; i < ntcp; i++)
		KUNIT_ASSERT_EQ(test, ep_open(test, net, TCP, &any4, 0, &tcp[i]), 0);
	for (i = 0; i < nrdma - 1; i++) {
		KUNIT_ASSERT_EQ(test, ep_open(test, net, RDMA, &any4, 0, &rdma[i]), 0);
		for (j = 0; j < ntcp; j++)
			KUNIT_EXPECT_NE(test, id_port(rdma[i].id),
					inet_sk(tcp[j].sock->sk)->inet_num);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, id_port(rdma[i].id),
					id_port(rdma[j].id));
	}
	/* Full: refused as TCP's own bind(0) is. */
	ret = ep_open(test, net, RDMA, &any4, 0, &rdma[10]);
	KUNIT_EXPECT_EQ(test, ret, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, ep_open(test, net, TCP, &any4, 0, extra), ret);
	ep_close(test, extra);
	/* A client lets its port go: the next id gets that very port. */
	j = inet_sk(tcp[3].sock->sk)->inet_num;
	ep_close(test, &tcp[3]);
	KUNIT_ASSERT_EQ(test, ep_open(test, net, RDMA, &any4, 0, &rdma[10]), 0);
	KUNIT_EXPECT_EQ(test, id_port(rdma[10].id), j);
	/* Which the host holds for it. */
	KUNIT_EXPECT_EQ(test, ep_open(test, net, TCP, &any4, j, extra), -EADDRINUSE);
	ep_close(test, extra);

	for (i = 0; i < nrdma; i++)
		ep_close(test, &rdma[i]);
	for (i = 0; i < ntcp; i++)
		ep_close(test, &tcp[i]);
	net_put(test, net);
}

/* A reserved port can still be bound explicitly, by TCP and RDMA alike. */
static void reserved_port_explicit(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = small_range_net(test, 40000, 40009);
	struct ep *ep = ep_alloc(test, 1);
	int tcp, rdma;

	set_bit(40001, net->ipv4.sysctl_local_reserved_ports);
	tcp = ep_open(test, net, TCP, &any4, 40001, ep);
	ep_close(test, ep);
	rdma = ep_open(test, net, RDMA, &any4, 40001, ep);
	ep_close(test, ep);
	KUNIT_EXPECT_EQ(test, tcp, 0);
	KUNIT_EXPECT_EQ(test, rdma, tcp);
	net_put(test, net);
}

/* rdma_destroy_id() gives the port back to the host at once. */
static void port_free_after_destroy(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	struct ep *rdma = ep_alloc(test, 1), *tcp = ep_alloc(test, 1);

	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, RDMA, &any4, PORT, rdma), 0);
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, tcp),
			-EADDRINUSE);
	ep_close(test, rdma);
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	ep_close(test, tcp);
}

/* A failed bind or listen leaves nothing held. */
static void failed_bind_and_listen_leave_nothing(struct kunit *test)
{
	static const struct ep_spec reuse_listen = {
		.addr = ANY4, .reuse = true, .v6only = -1, .listen = true
	};
	static const struct ep_spec plain = { .addr = ANY4, .v6only = -1 };
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep *tcp = ep_alloc(test, 1), *rdma = ep_alloc(test, 1);

	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &plain, PORT, tcp), 0);
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, RDMA, &plain, PORT, rdma),
			-EADDRINUSE);
	ep_close(test, tcp);

	/* The listen rule refuses; the id stays bound until destroyed. */
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &reuse_listen, PORT, tcp), 0);
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, RDMA, &reuse_listen, PORT, rdma),
			-EADDRINUSE);
	ep_close(test, tcp);
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP, &plain, PORT, tcp), 0);
	ep_close(test, tcp);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

/* N create/bind/destroy cycles: the TCP socket count comes back. */
static void sockstat_balanced(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep *ep = ep_alloc(test, 1);
	int i;

	for (i = 0; i < 500; i++) {
		KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, RDMA, &any4, 0, ep), 0);
		if (i == 0)	/* a reservation is a real TCP socket */
			KUNIT_EXPECT_EQ(test,
					percpu_counter_sum(&tcp_sockets_allocated),
					before + 1);
		ep_close(test, ep);
	}
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

/*
 * Without the provider the rdma_cm is upstream's: an RDMA listener takes a
 * port a TCP listener holds (the collision this project closes).
 */
static void upstream_without_provider(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	struct ep *tcp = ep_alloc(test, 1), *rdma = ep_alloc(test, 1);
	int upstream, ours;

	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	rdma_tcp_port_kunit_unregister();
	upstream = ep_open(test, &init_net, RDMA, &any4, PORT, rdma);
	ep_close(test, rdma);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	ours = ep_open(test, &init_net, RDMA, &any4, PORT, rdma);
	ep_close(test, rdma);
	ep_close(test, tcp);

	KUNIT_EXPECT_EQ(test, upstream, 0);
	KUNIT_EXPECT_EQ(test, ours, -EADDRINUSE);
	/* Only one provider at a time. */
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_register(), -EBUSY);
}

static int declining_get_port(void *priv, struct rdma_cm_port_req *req,
			      struct socket **sock)
{
	int *calls = priv;

	(*calls)++;
	return 0;	/* no socket: the id keeps the rdma_cm's own port */
}

static void unexpected_release_port(void *priv, struct socket *sock)
{
	WARN(1, "released a socket that was never given");
}

static void unregister_action(void *prov)
{
	rdma_cm_unregister_port_provider(prov);
}

/*
 * Registration checks the operations (get_port and release_port are
 * required, listen is not), and every operation gets its provider's
 * context back: a provider that declines each id, counting the calls in
 * its context, leaves the ids to the rdma_cm's own table.
 */
static void registration_checks_ops(struct kunit *test)
{
	static const struct rdma_cm_port_ops none = { };
	static const struct rdma_cm_port_ops no_release = {
		.get_port = declining_get_port,
	};
	static const struct rdma_cm_port_ops no_get = {
		.release_port = unexpected_release_port,
	};
	static const struct rdma_cm_port_ops declining = {
		.get_port = declining_get_port,
		.release_port = unexpected_release_port,
	};
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	struct rdma_cm_port_provider bad = { .owner = THIS_MODULE };
	struct rdma_cm_port_provider *other;
	struct ep *tcp = ep_alloc(test, 1), *rdma = ep_alloc(test, 1);
	int *calls;

	KUNIT_EXPECT_EQ(test, rdma_cm_register_port_provider(&bad), -EINVAL);
	bad.ops = &none;
	KUNIT_EXPECT_EQ(test, rdma_cm_register_port_provider(&bad), -EINVAL);
	bad.ops = &no_release;
	KUNIT_EXPECT_EQ(test, rdma_cm_register_port_provider(&bad), -EINVAL);
	bad.ops = &no_get;
	KUNIT_EXPECT_EQ(test, rdma_cm_register_port_provider(&bad), -EINVAL);
	/* None of them took the place of the registered provider. */
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_register(), -EBUSY);

	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	calls = kunit_kzalloc(test, sizeof(*calls), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, calls);
	*other = (struct rdma_cm_port_provider) {
		.ops = &declining, .owner = THIS_MODULE, .priv = calls,
	};
	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_provider(other), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_action,
							other), 0);
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	/* Declined, the id binds next to the TCP listener, as upstream. */
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, RDMA, &any4, PORT, rdma), 0);
	KUNIT_EXPECT_EQ(test, *calls, 1);
	ep_close(test, rdma);
	ep_close(test, tcp);
	kunit_release_action(test, unregister_action, other);
}

/*
 * The reserve parameter.  There is no iWARP device here, so under "iwarp" a
 * wildcard id is left to the rdma_cm's table, as under "none": it binds next
 * to a TCP listener, and its port is then in that table, whose own errno
 * refuses a second id.  Unknown values are refused and change nothing.
 */
static void reserve_policy(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	static const char * const left_to_cma[] = { "none", "iwarp" };
	struct ep *tcp, *rdma, *again;
	int i;

	tcp = ep_alloc(test, 1);
	rdma = ep_alloc(test, 1);
	again = ep_alloc(test, 1);
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	for (i = 0; i < ARRAY_SIZE(left_to_cma); i++) {
		KUNIT_ASSERT_EQ(test,
				rdma_tcp_port_kunit_set_reserve(left_to_cma[i]),
				0);
		KUNIT_EXPECT_EQ_MSG(test, ep_open(test, &init_net, RDMA, &any4,
						  PORT, rdma), 0, left_to_cma[i]);
		KUNIT_EXPECT_EQ_MSG(test, ep_open(test, &init_net, RDMA, &any4,
						  PORT, again), -EADDRNOTAVAIL,
				    left_to_cma[i]);
		ep_close(test, again);
		ep_close(test, rdma);
	}
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all\n"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("bogus"), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve(""), -EINVAL);
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, RDMA, &any4, PORT, rdma),
			-EADDRINUSE);
	ep_close(test, rdma);
	ep_close(test, tcp);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all"), 0);
}

/*
 * The idr flag: on, the rdma_cm's own table also records the port (an id
 * bound while the provider is away sees it); off, it does not.
 */
static void idr_flag_both_states(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *held = ep_alloc(test, 1), *probe = ep_alloc(test, 1);
	int with_idr, without_idr;
	bool old;

	old = rdma_tcp_port_kunit_set_idr(true);
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, RDMA, &any4, PORT, held), 0);
	rdma_tcp_port_kunit_unregister();
	with_idr = ep_open(test, &init_net, RDMA, &any4, PORT, probe);
	ep_close(test, probe);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	ep_close(test, held);

	rdma_tcp_port_kunit_set_idr(false);
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, RDMA, &any4, PORT, held), 0);
	rdma_tcp_port_kunit_unregister();
	without_idr = ep_open(test, &init_net, RDMA, &any4, PORT, probe);
	ep_close(test, probe);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	/* Off, the host stack still holds the port. */
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, probe),
			-EADDRINUSE);
	ep_close(test, held);
	rdma_tcp_port_kunit_set_idr(old);

	/* The rdma_cm's own errno for an overlapping wildcard bind */
	KUNIT_EXPECT_EQ(test, with_idr, -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, without_idr, 0);
}

/* RDMA_PS_UDP, RDMA_PS_IPOIB and RDMA_PS_IB keep the rdma_cm's own table. */
static void other_port_spaces_untouched(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	static const enum rdma_ucm_port_space spaces[] = {
		RDMA_PS_UDP, RDMA_PS_IPOIB, RDMA_PS_IB
	};
	struct ep *tcp = ep_alloc(test, 1);
	struct sockaddr_storage ss;
	int i;

	make_addr(ANY4, PORT, &ss);
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		s64 before = percpu_counter_sum(&tcp_sockets_allocated);
		struct rdma_cm_id *id, *id2;
		enum ib_qp_type qpt = spaces[i] == RDMA_PS_UDP ||
				      spaces[i] == RDMA_PS_IPOIB ?
				      IB_QPT_UD : IB_QPT_RC;

		id = id_create(test, &init_net, spaces[i], qpt);
		/* Not in the host's TCP space: no socket, no collision ... */
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&ss), 0);
		KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated),
				before);
		/* ... but the rdma_cm's own table still rules the space. */
		id2 = id_create(test, &init_net, spaces[i], qpt);
		KUNIT_EXPECT_NE(test, rdma_bind_addr(id2, (struct sockaddr *)&ss), 0);
		id_destroy(test, id2);
		id_destroy(test, id);
	}
	ep_close(test, tcp);
}

/*
 * Active side: ids that rdma_resolve_addr() binds may share a port when
 * their 4-tuples differ, so the ceiling is range x destinations, as
 * upstream.  Nothing is sent: the namespace has no route anywhere.
 */
static int fill_active(struct kunit *test, struct net *net, int ndst,
		       struct rdma_cm_id **ids, int max)
{
	int n = 0, d;

	for (d = 0; d < ndst; d++) {
		struct sockaddr_in dst = {
			.sin_family = AF_INET,
			.sin_port = htons(7000),
			.sin_addr.s_addr = htonl(0xc0000201 + d), /* 192.0.2.x */
		};

		while (n < max) {
			struct rdma_cm_id *id;
			int ret;

			id = id_create(test, net, RDMA_PS_TCP, IB_QPT_RC);
			ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
						100);
			if (ret == -EADDRINUSE || ret == -EADDRNOTAVAIL ||
			    !id_port(id)) {
				id_destroy(test, id);
				break;
			}
			ids[n++] = id;
		}
	}
	return n;
}

static void active_side_ceiling(struct kunit *test)
{
	struct rdma_cm_id **ids;
	int ours, upstream, i;
	struct net *net;
	s64 before;

	ids = kunit_kcalloc(test, 64, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ids);

	before = percpu_counter_sum(&tcp_sockets_allocated);
	net = small_range_net(test, 40000, 40003);
	ours = fill_active(test, net, 3, ids, 64);
	for (i = 0; i < ours; i++) {
		KUNIT_EXPECT_GE(test, id_port(ids[i]), 40000);
		KUNIT_EXPECT_LE(test, id_port(ids[i]), 40003);
		id_destroy(test, ids[i]);
	}
	net_put(test, net);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);

	rdma_tcp_port_kunit_unregister();
	net = small_range_net(test, 40000, 40003);
	upstream = fill_active(test, net, 3, ids, 64);
	for (i = 0; i < upstream; i++)
		id_destroy(test, ids[i]);
	net_put(test, net);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);

	kunit_info(test, "active ids, 4 ports x 3 destinations: module %d, upstream %d\n",
		   ours, upstream);
	KUNIT_EXPECT_EQ(test, ours, 12);
	KUNIT_EXPECT_GE(test, ours, upstream);
}

/*
 * IPV6_V6ONLY cannot change once a TCP socket is bound (EINVAL); nor can
 * afonly once the id's port is held by one.
 */
static void afonly_after_bind(struct kunit *test)
{
	static const struct ep_spec any6 = { .addr = ANY6, .v6only = -1 };
	struct ep *tcp = ep_alloc(test, 1), *rdma = ep_alloc(test, 1);
	int t, r;

	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &any6, PORT, tcp), 0);
	t = ip6_sock_set_v6only(tcp->sock->sk);
	ep_close(test, tcp);
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, RDMA, &any6, PORT, rdma), 0);
	r = rdma_set_afonly(rdma->id, 1);
	ep_close(test, rdma);
	KUNIT_EXPECT_EQ(test, t, -EINVAL);
	KUNIT_EXPECT_EQ(test, r, t);
}

/* An AF_IB id on RDMA_PS_TCP port @port: it has no host port. */
static int bind_af_ib(struct kunit *test, u16 port, struct rdma_cm_id **id)
{
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_sid = cpu_to_be64(RDMA_IB_IP_PS_TCP | port),
		.sib_sid_mask = cpu_to_be64(RDMA_IB_IP_PS_MASK | 0xffff),
	};
	int ret;

	*id = id_create(test, &init_net, RDMA_PS_TCP, IB_QPT_RC);
	ret = rdma_bind_addr(*id, (struct sockaddr *)&sib);
	if (ret) {
		id_destroy(test, *id);
		*id = NULL;
	}
	return ret;
}

/*
 * The rdma_cm's table still rules between an id that holds a host port and
 * one that cannot (AF_IB), in both orders, with upstream's errno; and the
 * refused id holds nothing.
 */
static void af_ib_keeps_the_table_rules(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep *inet = ep_alloc(test, 1);
	int upstream, ours, ib_second;
	struct rdma_cm_id *ib;

	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	upstream = ep_open(test, &init_net, RDMA, &any4, PORT, inet);
	ep_close(test, inet);
	id_destroy(test, ib);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);

	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	ours = ep_open(test, &init_net, RDMA, &any4, PORT, inet);
	ep_close(test, inet);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	id_destroy(test, ib);

	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, RDMA, &any4, PORT, inet), 0);
	ib_second = bind_af_ib(test, PORT, &ib);
	if (!ib_second)
		id_destroy(test, ib);
	ep_close(test, inet);

	KUNIT_EXPECT_EQ(test, upstream, -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, ours, upstream);
	KUNIT_EXPECT_EQ(test, ib_second, upstream);
}

/*
 * Run as @uid without CAP_NET_ADMIN, the RLIMIT_NOFILE being @nofile, until
 * become_root().  The limit needs no deferred action: each test runs in a
 * kthread with a signal_struct of its own.
 */
static struct test_creds *become_user(struct kunit *test, uid_t uid,
				      unsigned long nofile)
{
	struct test_creds *creds = creds_prepare(test);
	struct cred *cred = creds->cred;

	cred->uid = KUIDT_INIT(uid);
	cred->euid = cred->uid;
	cred->fsuid = cred->uid;
	cap_lower(cred->cap_effective, CAP_NET_ADMIN);
	creds->nofile = current->signal->rlim[RLIMIT_NOFILE].rlim_cur;
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, nofile);
	creds_override(creds);
	return creds;
}

static void become_root(struct kunit *test, struct test_creds *creds)
{
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, creds->nofile);
	creds_revert(test, creds);
}

/* Binds port-0 ids in @net until one fails; returns how many bound. */
static int fill_ids(struct kunit *test, struct net *net, struct ep *eps,
		    int max, int *err)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	int n;

	for (n = 0; n < max; n++) {
		*err = ep_open(test, net, RDMA, &any4, 0, &eps[n]);
		if (*err)
			break;
	}
	return n;
}

/*
 * The per-user cap: 5 % of a 100-port range is 5 ports for a user without
 * CAP_NET_ADMIN, and never more than its RLIMIT_NOFILE in all; then EMFILE.
 * TCP sockets and a CAP_NET_ADMIN caller are not held back, and destroyed
 * ids give their count back.
 */
static void user_cap(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = small_range_net(test, 40000, 40099);
	int n, n2, nfile, err, err2, errf, errn, i;
	struct ep *eps, *tcp, *root;
	struct test_creds *user;

	eps = ep_alloc(test, 16);
	tcp = ep_alloc(test, 1);
	root = ep_alloc(test, 1);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);

	user = become_user(test, 4242, 1024);
	n = fill_ids(test, net, eps, 16, &err);
	/* The user's TCP sockets are not held back by its RDMA ids. */
	KUNIT_EXPECT_EQ(test, ep_open(test, net, TCP, &any4, 0, tcp), 0);
	ep_close(test, tcp);
	/* A lower RLIMIT_NOFILE: nothing more, in any namespace. */
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, 3);
	errf = ep_open(test, &init_net, RDMA, &any4, 0, tcp);
	ep_close(test, tcp);
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, 1024);
	become_root(test, user);

	/* CAP_NET_ADMIN over the namespace: not capped. */
	KUNIT_EXPECT_EQ(test, ep_open(test, net, RDMA, &any4, 0, root), 0);
	ep_close(test, root);

	for (i = 0; i < n; i++)
		ep_close(test, &eps[i]);
	/* Destroyed ids are no longer counted. */
	user = become_user(test, 4242, 1024);
	n2 = fill_ids(test, net, eps, 16, &err2);
	for (i = 0; i < n2; i++)
		ep_close(test, &eps[i]);
	/* user_share=0: no cap. */
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	nfile = fill_ids(test, net, eps, 16, &errn);
	for (i = 0; i < nfile; i++)
		ep_close(test, &eps[i]);
	become_root(test, user);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("101"), -EINVAL);
	net_put(test, net);

	kunit_info(test, "user without CAP_NET_ADMIN: %d ids in a 100-port range, then %pe\n",
		   n, ERR_PTR(err));
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, err, -EMFILE);
	KUNIT_EXPECT_EQ(test, n2, 5);
	KUNIT_EXPECT_EQ(test, err2, -EMFILE);
	KUNIT_EXPECT_EQ(test, errf, -EMFILE);
	KUNIT_EXPECT_EQ(test, nfile, 16);
	KUNIT_EXPECT_EQ(test, errn, 0);
}

/* The ports charged to @uid of @ns, as user.max_rdma_tcp_ports counts them. */
static long ports_charged(struct user_namespace *ns, uid_t uid)
{
	struct ucounts *uc = alloc_ucounts(ns, KUIDT_INIT(uid));
	long n;

	if (!uc)
		return -ENOMEM;
	n = atomic_long_read(&uc->ucount[UCOUNT_RDMA_TCP_PORTS]);
	put_ucounts(uc);
	return n;
}

struct ports_max {
	long saved;
};

static void ports_max_restore(struct ports_max *m)
{
	WRITE_ONCE(init_user_ns.ucount_max[UCOUNT_RDMA_TCP_PORTS], m->saved);
}

KUNIT_DEFINE_ACTION_WRAPPER(ports_max_restore_action, ports_max_restore,
			    struct ports_max *);

/* user.max_rdma_tcp_ports of the initial user namespace until the case ends. */
static void init_ports_max_set(struct kunit *test, long max)
{
	struct ports_max *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->saved = init_user_ns.ucount_max[UCOUNT_RDMA_TCP_PORTS];
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ports_max_restore_action, m), 0);
	WRITE_ONCE(init_user_ns.ucount_max[UCOUNT_RDMA_TCP_PORTS], max);
}

/*
 * Run as @uid of the user namespace @ns, without any capability over the
 * namespaces above it, until become_root().
 */
static struct test_creds *become_in_ns(struct kunit *test,
				       struct user_namespace *ns, uid_t uid)
{
	struct test_creds *creds = creds_prepare(test);
	struct cred *cred = creds->cred;

	put_user_ns(cred->user_ns);
	cred->user_ns = get_user_ns(ns);
	cred->uid = KUIDT_INIT(uid);
	cred->euid = cred->uid;
	cred->fsuid = cred->uid;
	creds->nofile = current->signal->rlim[RLIMIT_NOFILE].rlim_cur;
	creds_override(creds);
	return creds;
}

/*
 * user.max_rdma_tcp_ports of the initial user namespace (1411 by default)
 * caps a user below its user_share (5 of a 100-port range): at 3, three
 * ids, then EMFILE.  Each held port is charged to the user while its id
 * lives.  Root, with CAP_NET_ADMIN over the namespace, is exempt: it binds
 * past the limit, and is charged nothing.
 */
static void person_cap_initial_limit(struct kunit *test)
{
	struct net *net = small_range_net(test, 40000, 40099);
	struct ep *eps = ep_alloc(test, 8), *root = ep_alloc(test, 4);
	long held, after, root_before, root_held, root_after;
	int n, nroot, err, errroot, i;
	struct test_creds *user;

	KUNIT_EXPECT_EQ(test, init_user_ns.ucount_max[UCOUNT_RDMA_TCP_PORTS], 1411);
	init_ports_max_set(test, 3);
	user = become_user(test, 4242, 1024);
	n = fill_ids(test, net, eps, 8, &err);
	become_root(test, user);
	held = ports_charged(&init_user_ns, 4242);
	for (i = 0; i < n; i++)
		ep_close(test, &eps[i]);
	after = ports_charged(&init_user_ns, 4242);

	root_before = ports_charged(&init_user_ns, 0);
	nroot = fill_ids(test, net, root, 4, &errroot);
	root_held = ports_charged(&init_user_ns, 0);
	for (i = 0; i < nroot; i++)
		ep_close(test, &root[i]);
	root_after = ports_charged(&init_user_ns, 0);
	net_put(test, net);

	kunit_info(test, "uid 4242 at a limit of 3: %d ids, then %pe; %ld charged\n",
		   n, ERR_PTR(err), held);
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, err, -EMFILE);
	KUNIT_EXPECT_EQ(test, held, 3);
	KUNIT_EXPECT_EQ(test, after, 0);
	KUNIT_EXPECT_EQ(test, nroot, 4);
	KUNIT_EXPECT_EQ(test, root_held, root_before);
	KUNIT_EXPECT_EQ(test, root_after, root_before);
}

/*
 * One user's uids in a user namespace of its own count against that user:
 * three uids that uid 4242 maps hold 4 ports in all at an initial limit of
 * 4, though each is below its own user_share (5 of a 100-port range).  The
 * user namespace's own limit, lower, applies to each uid in it: 2 each.
 */
static void person_cap_subordinate_uids(struct kunit *test)
{
	struct net *net = small_range_net(test, 40000, 40099);
	const int per_uid = 8, nuids = 3;
	struct ep *eps = ep_alloc(test, per_uid * nuids);
	int n[2] = { 0, 0 }, err[2][3], round, i, j, got;
	struct test_creds *owner, *sub;
	struct user_namespace *ns;
	long held[2], after;

	init_ports_max_set(test, 4);
	owner = creds_prepare(test);
	owner->cred->uid = KUIDT_INIT(4242);
	owner->cred->euid = owner->cred->uid;
	owner->cred->fsuid = owner->cred->uid;
	KUNIT_ASSERT_EQ(test, create_user_ns(owner->cred), 0);
	ns = owner->cred->user_ns;

	for (round = 0; round < 2; round++) {
		if (round == 1) {
			WRITE_ONCE(init_user_ns.ucount_max[UCOUNT_RDMA_TCP_PORTS], 1411);
			WRITE_ONCE(ns->ucount_max[UCOUNT_RDMA_TCP_PORTS], 2);
		}
		for (i = 0; i < nuids; i++) {
			sub = become_in_ns(test, ns, 100000 + i);
			got = fill_ids(test, net, &eps[i * per_uid], per_uid,
				       &err[round][i]);
			become_root(test, sub);
			n[round] += got;
		}
		held[round] = ports_charged(&init_user_ns, 4242);
		for (j = 0; j < per_uid * nuids; j++)
			ep_close(test, &eps[j]);
	}
	after = ports_charged(&init_user_ns, 4242);
	net_put(test, net);

	kunit_info(test, "3 uids of uid 4242: %d ids at its limit of 4, %d at 2 each in its namespace\n",
		   n[0], n[1]);
	KUNIT_EXPECT_EQ(test, n[0], 4);
	KUNIT_EXPECT_EQ(test, held[0], 4);
	KUNIT_EXPECT_EQ(test, n[1], 6);
	KUNIT_EXPECT_EQ(test, held[1], 6);
	for (round = 0; round < 2; round++)
		for (i = 0; i < nuids; i++)
			KUNIT_EXPECT_EQ(test, err[round][i], -EMFILE);
	KUNIT_EXPECT_EQ(test, after, 0);
}

/*
 * The charge follows the held socket on every path KUnit reaches: port 0,
 * an explicit IPv6 port, reuse and listen, a bind and a listen that fail;
 * and user_share=0 (no cap) charges nothing.
 */
static void person_charge_balanced(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	static const struct ep_spec any6 = { .addr = ANY6, .v6only = 1 };
	static const struct ep_spec reuse_listen = {
		.addr = ANY4, .reuse = true, .v6only = -1, .listen = true
	};
	struct ep *eps = ep_alloc(test, 4), *tcp = ep_alloc(test, 1);
	struct test_creds *user;
	int ret[6], i;
	long c[7];

	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &reuse_listen, PORT, tcp), 0);
	user = become_user(test, 4243, 1024);
	ret[0] = ep_open(test, &init_net, RDMA, &any4, 0, &eps[0]);
	c[0] = ports_charged(&init_user_ns, 4243);
	ret[1] = ep_open(test, &init_net, RDMA, &any6, PORT + 1, &eps[1]);
	c[1] = ports_charged(&init_user_ns, 4243);
	ret[2] = ep_open(test, &init_net, RDMA, &reuse_listen, PORT + 2, &eps[2]);
	c[2] = ports_charged(&init_user_ns, 4243);
	ret[3] = ep_open(test, &init_net, RDMA, &any4, PORT, &eps[3]);
	c[3] = ports_charged(&init_user_ns, 4243);
	ret[4] = ep_open(test, &init_net, RDMA, &reuse_listen, PORT, &eps[3]);
	c[4] = ports_charged(&init_user_ns, 4243);
	for (i = 0; i < 3; i++)
		ep_close(test, &eps[i]);
	c[5] = ports_charged(&init_user_ns, 4243);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	ret[5] = ep_open(test, &init_net, RDMA, &any4, 0, &eps[0]);
	c[6] = ports_charged(&init_user_ns, 4243);
	ep_close(test, &eps[0]);
	become_root(test, user);
	ep_close(test, tcp);

	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, c[0], 1);
	KUNIT_EXPECT_EQ(test, ret[1], 0);
	KUNIT_EXPECT_EQ(test, c[1], 2);
	KUNIT_EXPECT_EQ(test, ret[2], 0);
	KUNIT_EXPECT_EQ(test, c[2], 3);
	KUNIT_EXPECT_EQ(test, ret[3], -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, c[3], 3);
	KUNIT_EXPECT_EQ(test, ret[4], -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, c[4], 3);
	KUNIT_EXPECT_EQ(test, c[5], 0);
	KUNIT_EXPECT_EQ(test, ret[5], 0);
	KUNIT_EXPECT_EQ(test, c[6], 0);
}

#define SOAK_CYCLES 1000000

/* @n create/bind/destroy cycles, port 0 and @port alternately. */
static int soak_run(struct kunit *test, int n, u16 port)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *ep = ep_alloc(test, 1);
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = ep_open(test, &init_net, RDMA, &any4, i & 1 ? port : 0, ep);
		if (ret)
			return ret;
		ep_close(test, ep);
		if (!(i % 1024))
			cond_resched();
	}
	return 0;
}

static unsigned long slab_bytes(void)
{
	return global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) << PAGE_SHIFT;
}

/*
 * A soak: 10^6 create/bind/destroy cycles with the provider, half at port
 * 0, half at an explicit port, leave the TCP sockets (struct tcp_sock) and
 * the sockets in use (socket inodes) exactly where they were.  The
 * unreclaimable slab is reported beside the same count of cycles without
 * the provider, not asserted: KASAN's quarantine moves it by megabytes
 * either way (kmemleak, in the VM suite, looks for leaked objects).  On
 * UML only: it runs at native speed there.
 */
static void soak(struct kunit *test)
{
	s64 tcp = percpu_counter_sum(&tcp_sockets_allocated);
	int inuse = sock_inuse_get(&init_net);
	long upstream, ours;
	unsigned long slab;
	ktime_t start;
	s64 ms;

	if (!IS_ENABLED(CONFIG_UML))
		kunit_skip(test, "10^6 cycles: UML only (native speed)");

	/* Warm the caches and the quarantine: their growth is bounded. */
	KUNIT_ASSERT_EQ(test, soak_run(test, SOAK_CYCLES / 10, PORT), 0);

	rdma_tcp_port_kunit_unregister();
	slab = slab_bytes();
	upstream = soak_run(test, SOAK_CYCLES / 4, PORT + 1);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	KUNIT_ASSERT_EQ(test, upstream, 0);
	upstream = (long)slab_bytes() - (long)slab;

	slab = slab_bytes();
	start = ktime_get();
	KUNIT_ASSERT_EQ(test, soak_run(test, SOAK_CYCLES, PORT), 0);
	ms = ktime_ms_delta(ktime_get(), start);
	ours = (long)slab_bytes() - (long)slab;

	kunit_info(test, "%d cycles with the provider in %lld ms: TCP sockets %lld -> %lld, in use %d -> %d, slab %+ld bytes (%d cycles without it: %+ld)\n",
		   SOAK_CYCLES, ms, tcp, percpu_counter_sum(&tcp_sockets_allocated),
		   inuse, sock_inuse_get(&init_net), ours, SOAK_CYCLES / 4,
		   upstream);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), tcp);
	KUNIT_EXPECT_EQ(test, sock_inuse_get(&init_net), inuse);
}

/*
 * iw_cm_may_join_port() is the one answer to whether an iWARP driver's
 * socket (siw's) may join the port that the rdma_cm holds for its id, with
 * SK_FORCE_REUSE, that is past every bind conflict check: only the held
 * port, only in the held socket's namespace.  The holder here is a bound
 * TCP socket in init_net, as the provider's would be; @net and @port are
 * where the driver's socket is and what it is about to bind.
 */
static bool join_answer(struct kunit *test, struct sock *held, struct net *net,
			u16 port)
{
	struct iw_cm_id id = { .held_sk = held };
	struct sockaddr_storage ss;
	struct socket *s;
	bool yes;

	make_addr(LO4, port, &ss);
	KUNIT_ASSERT_EQ(test, sock_create_kern(net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	yes = iw_cm_may_join_port(&id, s->sk, (struct sockaddr *)&ss);
	sock_release(s);
	return yes;
}

static struct sock *join_holder(struct kunit *test, struct ep *ep)
{
	static const struct ep_spec lo4 = { .addr = LO4, .v6only = -1 };

	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, TCP, &lo4, PORT, ep), 0);
	return ep->sock->sk;
}

static void join_held_port(struct kunit *test)
{
	struct sock *held = join_holder(test, ep_alloc(test, 1));

	KUNIT_EXPECT_TRUE(test, join_answer(test, held, &init_net, PORT));
}

static void join_other_port(struct kunit *test)
{
	struct sock *held = join_holder(test, ep_alloc(test, 1));

	KUNIT_EXPECT_FALSE(test, join_answer(test, held, &init_net, PORT + 1));
	KUNIT_EXPECT_FALSE(test, join_answer(test, held, &init_net, 0));
}

/*
 * Cannot happen: the rdma_cm listens on an iWARP device only for ids of its
 * net device's namespace, where siw opens its sockets.  The answer is no,
 * with a warning, which scripts/check-kunit-log.sh lets through only after
 * this line and only from iw_cm_may_join_port(), and requires.
 */
static void join_other_namespace(struct kunit *test)
{
	struct net *net = net_new(test);
	struct sock *held = join_holder(test, ep_alloc(test, 1));

	pr_info("rdma_tcp_port_test: a WARNING from iw_cm_may_join_port() follows\n");
	KUNIT_EXPECT_FALSE(test, join_answer(test, held, net, PORT));
}

static void join_without_held_port(struct kunit *test)
{
	join_holder(test, ep_alloc(test, 1));
	KUNIT_EXPECT_FALSE(test, join_answer(test, NULL, &init_net, PORT));
}

/*
 * One id, several in-kernel callers.  ucma serializes the calls on an id
 * from user space; kernel callers need not, so the held socket has one
 * rule (rdma_id_private's sock_mutex): an option set while the id binds,
 * listens or gives its port back is ordered with it, and reaches the held
 * socket or is refused; it never touches a socket that is gone.
 *
 * A gate provider forces the orderings: it passes every call on to the
 * module's provider, and can stop in get_port (after the module bound the
 * socket, before the rdma_cm keeps it) or in release_port (before the
 * module closes it) until the test lets it go.
 */
struct gate {
	struct rdma_cm_port_provider prov;
	const struct rdma_cm_port_provider *real;
	bool stop_get, stop_release;
	struct completion entered, go;
};

static void gate_stop(struct gate *g)
{
	complete(&g->entered);
	wait_for_completion(&g->go);
}

static int gate_get_port(void *priv, struct rdma_cm_port_req *req,
			 struct socket **sock)
{
	struct gate *g = priv;
	int ret = g->real->ops->get_port(g->real->priv, req, sock);

	if (g->stop_get)
		gate_stop(g);
	return ret;
}

static int gate_listen(void *priv, struct socket *sock)
{
	struct gate *g = priv;

	return g->real->ops->listen ?
	       g->real->ops->listen(g->real->priv, sock) : 0;
}

static void gate_release_port(void *priv, struct socket *sock)
{
	struct gate *g = priv;

	if (g->stop_release)
		gate_stop(g);
	g->real->ops->release_port(g->real->priv, sock);
}

static const struct rdma_cm_port_ops gate_ops = {
	.get_port = gate_get_port,
	.listen = gate_listen,
	.release_port = gate_release_port,
};

/* The gate in the module's provider's place until the case ends. */
static struct gate *gate_install(struct kunit *test)
{
	struct gate *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	g->real = rdma_tcp_port_kunit_provider();
	g->prov = (struct rdma_cm_port_provider) {
		.ops = &gate_ops, .owner = THIS_MODULE, .priv = g,
	};
	init_completion(&g->entered);
	init_completion(&g->go);
	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_provider(&g->prov), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_action,
							&g->prov), 0);
	return g;
}

/* Until the provider stops in the gate; then the gate is ready again. */
static void gate_wait(struct kunit *test, struct gate *g)
{
	KUNIT_ASSERT_NE_MSG(test,
			    wait_for_completion_timeout(&g->entered, 30 * HZ),
			    0, "the provider was not called");
	reinit_completion(&g->entered);
}

static void gate_open(struct gate *g)
{
	complete(&g->go);
}

/* An rdma_cm call made by a kthread of its own. */
struct call {
	int (*fn)(struct call *c);
	struct rdma_cm_id *id;
	struct sockaddr_storage addr;
	int arg;
	int ret;
	struct completion *start;	/* waited for first, if set */
	bool stop;			/* ends a call that loops */
	int ok, refused;		/* a loop's results */
	struct completion done;
};

static int call_thread(void *data)
{
	struct call *c = data;

	if (c->start)
		wait_for_completion(c->start);
	c->ret = c->fn(c);
	kthread_complete_and_exit(&c->done, 0);
}

static struct call *call_new(struct kunit *test, int (*fn)(struct call *c),
			     struct rdma_cm_id *id)
{
	struct call *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	c->fn = fn;
	c->id = id;
	init_completion(&c->done);
	return c;
}

static void call_run(struct kunit *test, struct call *c)
{
	struct task_struct *t = kthread_run(call_thread, c, "rdma_tcp_call");

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
}

/* Whether @c is still running after 100 ms: it waits for a lock. */
static bool call_waits(struct call *c)
{
	msleep(100);
	return !completion_done(&c->done);
}

static int call_wait(struct kunit *test, struct call *c)
{
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&c->done, 30 * HZ),
			    0, "an rdma_cm call did not return in 30 s");
	return c->ret;
}

static int do_bind(struct call *c)
{
	return rdma_bind_addr(c->id, (struct sockaddr *)&c->addr);
}

static int do_reuse(struct call *c)
{
	return rdma_set_reuseaddr(c->id, 1);
}

static int do_afonly(struct call *c)
{
	return rdma_set_afonly(c->id, 1);
}

/*
 * An option set while the provider takes the id's port waits for it, then
 * applies to the socket: reuse reaches it (a TCP socket with SO_REUSEADDR
 * joins the port), afonly is refused as IPV6_V6ONLY is once bound, and the
 * port stays dual-stack (a TCP socket on 0.0.0.0 is kept out).
 */
static void option_waits_for_bind(struct kunit *test)
{
	static const struct ep_spec tcp_reuse = {
		.addr = ANY4, .reuse = true, .v6only = -1
	};
	static const struct ep_spec tcp4 = { .addr = ANY4, .v6only = -1 };
	struct ep *tcp = ep_alloc(test, 1);
	struct gate *g = gate_install(test);
	int i;

	g->stop_get = true;
	for (i = 0; i < 2; i++) {
		bool afonly = i;
		struct rdma_cm_id *id = id_create(test, &init_net, RDMA_PS_TCP,
						  IB_QPT_RC);
		struct call *bind = call_new(test, do_bind, id);
		struct call *opt = call_new(test, afonly ? do_afonly : do_reuse,
					    id);
		bool waited;

		make_addr(afonly ? ANY6 : ANY4, PORT, &bind->addr);
		call_run(test, bind);
		gate_wait(test, g);
		call_run(test, opt);
		waited = call_waits(opt);
		gate_open(g);
		KUNIT_EXPECT_EQ(test, call_wait(test, bind), 0);
		KUNIT_EXPECT_TRUE_MSG(test, waited,
				      "%s returned while the port was being taken",
				      afonly ? "rdma_set_afonly()" :
					       "rdma_set_reuseaddr()");
		if (afonly) {
			KUNIT_EXPECT_EQ(test, call_wait(test, opt), -EINVAL);
			KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP,
						      &tcp4, PORT, tcp),
					-EADDRINUSE);
		} else {
			KUNIT_EXPECT_EQ(test, call_wait(test, opt), 0);
			KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP,
						      &tcp_reuse, PORT, tcp), 0);
		}
		ep_close(test, tcp);
		id_destroy(test, id);
		reinit_completion(&g->go);
	}
}

/*
 * The bind fails after the provider gave a socket: the rdma_cm's table
 * (idr on) has the port for an id bound before the provider came.  The
 * socket goes back while an option is set: the option waits, and finds no
 * socket; nothing is left of the bind.
 */
static void option_waits_for_release(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	static const struct ep_spec lo4 = { .addr = LO4, .v6only = -1 };
	struct ep *old = ep_alloc(test, 1), *tcp = ep_alloc(test, 1);
	struct rdma_cm_id *id;
	struct call *bind, *opt;
	struct gate *g;
	s64 before;
	bool waited;

	rdma_tcp_port_kunit_set_idr(true);
	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, ep_open(test, &init_net, RDMA, &any4, PORT, old), 0);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	g = gate_install(test);
	g->stop_release = true;

	before = percpu_counter_sum(&tcp_sockets_allocated);
	id = id_create(test, &init_net, RDMA_PS_TCP, IB_QPT_RC);
	bind = call_new(test, do_bind, id);
	opt = call_new(test, do_reuse, id);
	make_addr(LO4, PORT, &bind->addr);
	call_run(test, bind);
	gate_wait(test, g);
	call_run(test, opt);
	waited = call_waits(opt);
	gate_open(g);
	/* The rdma_cm's errno for a wildcard already in its table */
	KUNIT_EXPECT_EQ(test, call_wait(test, bind), -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, call_wait(test, opt), 0);
	KUNIT_EXPECT_TRUE_MSG(test, waited,
			      "rdma_set_reuseaddr() returned while the socket was going back");
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	/* The host stack never knew the old id's port; the new one's is free */
	KUNIT_EXPECT_EQ(test, ep_open(test, &init_net, TCP, &lo4, PORT, tcp), 0);
	ep_close(test, tcp);
	id_destroy(test, id);
	ep_close(test, old);
}

/*
 * Free-running: in each round one id is bound (port 0), bound and listened,
 * listened unbound, or resolved (which binds), while a second thread sets
 * reuse and afonly on it over and over; then it is destroyed.  Whatever the
 * order, the id's port ends held by the host stack (with reuse, for an id
 * that only binds: its reuse is accepted before the bind or after), it is
 * free once the id is gone, and lockdep and KASAN stay quiet.
 */
#define RACE_ROUNDS 400

enum race_op { RACE_BIND, RACE_BIND_LISTEN, RACE_LISTEN, RACE_RESOLVE };

static int do_race_op(struct call *c)
{
	struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_port = htons(7000),
		.sin_addr.s_addr = htonl(0xc0000201),	/* 192.0.2.1 */
	};
	enum race_op op = c->arg;
	int ret = 0;

	if (op == RACE_BIND || op == RACE_BIND_LISTEN)
		ret = rdma_bind_addr(c->id, (struct sockaddr *)&c->addr);
	if (!ret && (op == RACE_BIND_LISTEN || op == RACE_LISTEN))
		ret = rdma_listen(c->id, 8);
	if (op == RACE_RESOLVE)
		ret = rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst,
					100);
	return ret;
}

static int do_options(struct call *c)
{
	int i;

	/* At least one reuse and one afonly, however soon it is stopped */
	for (i = 0; i < 2 || !READ_ONCE(c->stop); i++) {
		int ret = i & 1 ? rdma_set_afonly(c->id, i & 2) :
				  rdma_set_reuseaddr(c->id, 1);

		if (ret)
			c->refused++;
		else
			c->ok++;
		cond_resched();
	}
	return 0;
}

static void one_id_races(struct kunit *test)
{
	static const struct ep_spec tcp_reuse = {
		.addr = ANY4, .reuse = true, .v6only = -1
	};
	static const struct ep_spec tcp4 = { .addr = ANY4, .v6only = -1 };
	struct ep *tcp = ep_alloc(test, 1);
	unsigned int opts = 0, refused = 0, failed = 0;
	struct completion *start;
	s64 before;
	int r;

	start = kunit_kzalloc(test, sizeof(*start), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, start);
	before = percpu_counter_sum(&tcp_sockets_allocated);
	for (r = 0; r < RACE_ROUNDS; r++) {
		enum race_op op = r % 4;
		struct rdma_cm_id *id = id_create(test, &init_net, RDMA_PS_TCP,
						  IB_QPT_RC);
		struct call *call = call_new(test, do_race_op, id);
		struct call *opt = call_new(test, do_options, id);
		int ret, got;
		u16 port;

		init_completion(start);
		call->start = start;
		opt->start = start;
		call->arg = op;
		make_addr(ANY4, 0, &call->addr);
		call_run(test, call);
		call_run(test, opt);
		complete_all(start);
		ret = call_wait(test, call);
		WRITE_ONCE(opt->stop, true);
		call_wait(test, opt);
		opts += opt->ok + opt->refused;
		refused += opt->refused;

		/* Resolving fails here (no route), after the id's bind */
		port = id_port(id);
		if (!port || (ret && op != RACE_RESOLVE)) {
			failed++;
			kunit_info(test, "round %d (op %d): %d, port %u\n", r,
				   op, ret, port);
		} else if (op == RACE_BIND) {
			/* A reuse was accepted before or after the bind */
			got = ep_open(test, &init_net, TCP, &tcp_reuse, port, tcp);
			KUNIT_EXPECT_EQ_MSG(test, got, 0,
					    "round %d: reuse did not reach the socket",
					    r);
		} else {
			got = ep_open(test, &init_net, TCP, &tcp4, port, tcp);
			KUNIT_EXPECT_EQ_MSG(test, got, -EADDRINUSE,
					    "round %d (op %d): port %u not held",
					    r, op, port);
		}
		ep_close(test, tcp);
		id_destroy(test, id);
		if (port) {
			got = ep_open(test, &init_net, TCP, &tcp4, port, tcp);
			KUNIT_EXPECT_EQ_MSG(test, got, 0,
					    "round %d: port %u kept after destroy",
					    r, port);
			ep_close(test, tcp);
		}
		/* Each round's calls are freed now, not at the test's end */
		kunit_kfree(test, call);
		kunit_kfree(test, opt);
	}
	kunit_info(test, "%d rounds, %u options set meanwhile (%u refused), %u rounds failed\n",
		   RACE_ROUNDS, opts, refused, failed);
	KUNIT_EXPECT_EQ(test, failed, 0U);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks, "lockdep reported a problem");
}

static struct kunit_case rdma_tcp_port_cases[] = {
	KUNIT_CASE_PARAM(oracle_scenario, scenario_gen_params),
	KUNIT_CASE(two_namespaces_same_port),
	KUNIT_CASE(privileged_port_without_cap),
	KUNIT_CASE(privileged_port_upstream_rule),
	KUNIT_CASE(ephemeral_range_and_reserved),
	KUNIT_CASE(ephemeral_around_client_sockets),
	KUNIT_CASE(reserved_port_explicit),
	KUNIT_CASE(port_free_after_destroy),
	KUNIT_CASE(failed_bind_and_listen_leave_nothing),
	KUNIT_CASE(sockstat_balanced),
	KUNIT_CASE(upstream_without_provider),
	KUNIT_CASE(registration_checks_ops),
	KUNIT_CASE(idr_flag_both_states),
	KUNIT_CASE(reserve_policy),
	KUNIT_CASE(other_port_spaces_untouched),
	KUNIT_CASE(active_side_ceiling),
	KUNIT_CASE(afonly_after_bind),
	KUNIT_CASE(af_ib_keeps_the_table_rules),
	KUNIT_CASE(user_cap),
	KUNIT_CASE(person_cap_initial_limit),
	KUNIT_CASE(person_cap_subordinate_uids),
	KUNIT_CASE(person_charge_balanced),
	KUNIT_CASE(join_held_port),
	KUNIT_CASE(join_other_port),
	KUNIT_CASE(join_other_namespace),
	KUNIT_CASE(join_without_held_port),
	KUNIT_CASE(option_waits_for_bind),
	KUNIT_CASE(option_waits_for_release),
	KUNIT_CASE_SLOW(one_id_races),
	KUNIT_CASE_SLOW(soak),
	{}
};

/*
 * Before each case (and each scenario): defer putting the provider back,
 * so that a case that ends early leaves it as the next one expects.
 */
static int rdma_tcp_port_test_init(struct kunit *test)
{
	return kunit_add_action_or_reset(test, provider_defaults_action, test);
}

/* Nothing brings lo up in a KUnit kernel; the scenarios bind 127.0.0.1. */
static int rdma_tcp_port_suite_init(struct kunit_suite *suite)
{
	int ret;

	rtnl_lock();
	ret = dev_open(init_net.loopback_dev, NULL);
	rtnl_unlock();
	return ret;
}

static struct kunit_suite rdma_tcp_port_suite = {
	.name = "rdma_tcp_port",
	.suite_init = rdma_tcp_port_suite_init,
	.init = rdma_tcp_port_test_init,
	.test_cases = rdma_tcp_port_cases,
};

kunit_test_suite(rdma_tcp_port_suite);

MODULE_DESCRIPTION("KUnit tests for rdma_tcp_port");
MODULE_LICENSE("GPL");
