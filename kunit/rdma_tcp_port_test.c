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
 */

#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/percpu_counter.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/vmstat.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/ib.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_kunit.h"

enum ep_kind { TCP, RDMA };
static const char * const kind_name[] = { "TCP", "RDMA" };

enum ep_addr { ANY4, LO4, ANY6, LO6, MAPPED4 };
static const char * const addr_name[] = {
	"0.0.0.0", "127.0.0.1", "[::]", "[::1]", "[::ffff:127.0.0.1]"
};

/* One side of a scenario: the address it binds and how. */
struct ep_spec {
	enum ep_addr addr;
	bool reuse;		/* SO_REUSEADDR / rdma_set_reuseaddr() */
	int v6only;		/* -1: namespace default, else IPV6_V6ONLY */
	bool listen;
	bool reuse_after_bind;	/* SO_REUSEADDR / reuse set once bound */
};

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

static void ep_close(struct ep *ep)
{
	if (ep->id)
		rdma_destroy_id(ep->id);
	if (ep->sock)
		sock_release(ep->sock);
	ep->id = NULL;
	ep->sock = NULL;
}

/* Bind (and listen) as @kind would; returns 0 or the errno it met. */
static int ep_open(struct net *net, enum ep_kind kind,
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
	if (ret)
		ep_close(ep);
	return ret;
}

struct scenario {
	const char *name;
	struct ep_spec a, b;	/* a binds first, then b */
	int expect;		/* what TCP+TCP gives for b */
};

#define PORT 20001

static const struct scenario scenarios[] = {
	{ "same wildcard, no reuse",
	  { ANY4, false, -1, false }, { ANY4, false, -1, false }, -EADDRINUSE },
	{ "same wildcard, reuse on both",
	  { ANY4, true, -1, false }, { ANY4, true, -1, false }, 0 },
	{ "same wildcard, reuse on first only",
	  { ANY4, true, -1, false }, { ANY4, false, -1, false }, -EADDRINUSE },
	{ "same wildcard, reuse on second only",
	  { ANY4, false, -1, false }, { ANY4, true, -1, false }, -EADDRINUSE },
	{ "first listening, reuse on both",
	  { ANY4, true, -1, true }, { ANY4, true, -1, false }, -EADDRINUSE },
	{ "second listening, reuse on both",
	  { ANY4, true, -1, false }, { ANY4, true, -1, true }, 0 },
	{ "both listening, reuse on both",
	  { ANY4, true, -1, true }, { ANY4, true, -1, true }, -EADDRINUSE },
	{ "listening, no reuse",
	  { ANY4, false, -1, true }, { ANY4, false, -1, false }, -EADDRINUSE },
	{ "wildcard then specific",
	  { ANY4, false, -1, false }, { LO4, false, -1, false }, -EADDRINUSE },
	{ "specific then wildcard",
	  { LO4, false, -1, false }, { ANY4, false, -1, false }, -EADDRINUSE },
	{ "specific listening then wildcard, reuse",
	  { LO4, true, -1, true }, { ANY4, true, -1, false }, -EADDRINUSE },
	{ "IPv6 wildcard",
	  { ANY6, false, -1, false }, { ANY6, false, -1, false }, -EADDRINUSE },
	{ "IPv6 wildcard then ::1",
	  { ANY6, false, -1, false }, { LO6, false, -1, false }, -EADDRINUSE },
	{ "IPv6 dual-stack then IPv4",
	  { ANY6, false, 0, false }, { ANY4, false, -1, false }, -EADDRINUSE },
	{ "IPv6 v6only then IPv4",
	  { ANY6, false, 1, false }, { ANY4, false, -1, false }, 0 },
	{ "IPv4 then IPv6 dual-stack",
	  { ANY4, false, -1, false }, { ANY6, false, 0, false }, -EADDRINUSE },
	{ "IPv4 then IPv6 v6only",
	  { ANY4, false, -1, false }, { ANY6, false, 1, false }, 0 },
	{ "v4-mapped then IPv4 wildcard",
	  { MAPPED4, false, -1, false }, { ANY4, false, -1, false }, -EADDRINUSE },
	{ "IPv4 wildcard then v4-mapped",
	  { ANY4, false, -1, false }, { MAPPED4, false, -1, false }, -EADDRINUSE },
	{ "v6only wildcard then v4-mapped",
	  { ANY6, false, 1, false }, { MAPPED4, false, -1, false }, 0 },
	{ "reuse set after bind, then reuse",
	  { .addr = ANY4, .v6only = -1, .reuse_after_bind = true },
	  { .addr = ANY4, .reuse = true, .v6only = -1 }, 0 },
	{ "reuse set after bind, then reuse listening",
	  { .addr = ANY4, .v6only = -1, .reuse_after_bind = true },
	  { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true }, 0 },
	{ "reuse set after bind, then no reuse",
	  { .addr = ANY4, .v6only = -1, .reuse_after_bind = true },
	  { .addr = ANY4, .v6only = -1 }, -EADDRINUSE },
};

static int run_pair(struct kunit *test, struct net *net, enum ep_kind ka,
		    const struct ep_spec *a, enum ep_kind kb,
		    const struct ep_spec *b)
{
	struct ep first, second;
	int ret;

	ret = ep_open(net, ka, a, PORT, &first);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "first %s bind of %s failed",
			    kind_name[ka], addr_name[a->addr]);
	ret = ep_open(net, kb, b, PORT, &second);
	ep_close(&second);
	ep_close(&first);
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

/* The scenario table: TCP+TCP against RDMA+TCP and TCP+RDMA. */
static void oracle_scenarios(struct kunit *test)
{
	char b1[24], b2[24], b3[24];
	int i;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		const struct scenario *s = &scenarios[i];
		int tcp, rdma_first = INT_MIN, tcp_first = INT_MIN;

		tcp = run_pair(test, &init_net, TCP, &s->a, TCP, &s->b);
		KUNIT_EXPECT_EQ_MSG(test, tcp, s->expect, "%s: TCP+TCP", s->name);
		if (is_wildcard(s->a.addr)) {
			rdma_first = run_pair(test, &init_net, RDMA, &s->a,
					      TCP, &s->b);
			KUNIT_EXPECT_EQ_MSG(test, rdma_first, tcp,
					    "%s: RDMA then TCP", s->name);
		}
		if (is_wildcard(s->b.addr)) {
			struct ep_spec held = { s->b.addr, true, s->b.v6only,
						true };
			int want = s->b.reuse ? tcp :
				run_pair(test, &init_net, TCP, &s->a, TCP, &held);

			tcp_first = run_pair(test, &init_net, TCP, &s->a,
					     RDMA, &s->b);
			KUNIT_EXPECT_EQ_MSG(test, tcp_first, want,
					    "%s: TCP then RDMA", s->name);
		}
		kunit_info(test, "scenario | %-40s | TCP+TCP %-12s | RDMA+TCP %-12s | TCP+RDMA %-12s\n",
			   s->name, outcome(tcp, b1, sizeof(b1)),
			   outcome(rdma_first, b2, sizeof(b2)),
			   outcome(tcp_first, b3, sizeof(b3)));
	}
}

/* Each side alone, in its own namespace, on the same port. */
static void two_namespaces_same_port(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, true };
	struct net *net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	struct ep tcp, rdma;

	KUNIT_ASSERT_FALSE(test, IS_ERR(net));
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, TCP, &any4, PORT, &tcp), 0);
	KUNIT_EXPECT_EQ(test, ep_open(net, RDMA, &any4, PORT, &rdma), 0);
	ep_close(&rdma);
	KUNIT_EXPECT_EQ(test, ep_open(net, TCP, &any4, PORT, &rdma), 0);
	ep_close(&rdma);
	ep_close(&tcp);
	put_net(net);
}

/* A port below ip_unprivileged_port_start, without CAP_NET_BIND_SERVICE. */
static void privileged_port_without_cap(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, false };
	const struct cred *old;
	struct cred *cred;
	struct ep ep;
	int tcp, rdma;

	KUNIT_EXPECT_EQ(test, ep_open(&init_net, RDMA, &any4, 999, &ep), 0);
	ep_close(&ep);

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_NET_BIND_SERVICE);
	old = override_creds(cred);
	tcp = ep_open(&init_net, TCP, &any4, 999, &ep);
	ep_close(&ep);
	rdma = ep_open(&init_net, RDMA, &any4, 999, &ep);
	ep_close(&ep);
	revert_creds(old);
	put_cred(cred);

	KUNIT_EXPECT_EQ(test, tcp, -EACCES);
	KUNIT_EXPECT_EQ(test, rdma, tcp);
}

static u16 id_port(struct rdma_cm_id *id)
{
	return ntohs(((struct sockaddr_in *)&id->route.addr.src_addr)->sin_port);
}

static struct net *small_range_net(struct kunit *test, u16 low, u16 high)
{
	struct net *net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);

	KUNIT_ASSERT_FALSE(test, IS_ERR(net));
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
	static const struct ep_spec any4 = { ANY4, false, -1, false };
	struct net *net = small_range_net(test, 40000, 40009);
	struct ep eps[6], tcp;
	int i, ret;

	for (i = 40000; i < 40005; i++)
		set_bit(i, net->ipv4.sysctl_local_reserved_ports);

	for (i = 0; i < ARRAY_SIZE(eps) - 1; i++) {
		KUNIT_ASSERT_EQ(test, ep_open(net, RDMA, &any4, 0, &eps[i]), 0);
		KUNIT_EXPECT_GE(test, id_port(eps[i].id), 40005);
		KUNIT_EXPECT_LE(test, id_port(eps[i].id), 40009);
	}
	/* The range is full: the next RDMA id and a TCP socket both fail. */
	ret = ep_open(net, RDMA, &any4, 0, &eps[5]);
	KUNIT_EXPECT_EQ(test, ret, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, ep_open(net, TCP, &any4, 0, &tcp), ret);
	/* And the RDMA ids hold real host ports. */
	KUNIT_EXPECT_EQ(test, ep_open(net, TCP, &any4, id_port(eps[0].id), &tcp),
			-EADDRINUSE);

	for (i = 0; i < ARRAY_SIZE(eps); i++)
		ep_close(&eps[i]);
	put_net(net);
}

/* A reserved port can still be bound explicitly, by TCP and RDMA alike. */
static void reserved_port_explicit(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, false };
	struct net *net = small_range_net(test, 40000, 40009);
	struct ep ep;
	int tcp, rdma;

	set_bit(40001, net->ipv4.sysctl_local_reserved_ports);
	tcp = ep_open(net, TCP, &any4, 40001, &ep);
	ep_close(&ep);
	rdma = ep_open(net, RDMA, &any4, 40001, &ep);
	ep_close(&ep);
	KUNIT_EXPECT_EQ(test, tcp, 0);
	KUNIT_EXPECT_EQ(test, rdma, tcp);
	put_net(net);
}

/* rdma_destroy_id() gives the port back to the host at once. */
static void port_free_after_destroy(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, true };
	struct ep rdma, tcp;

	KUNIT_ASSERT_EQ(test, ep_open(&init_net, RDMA, &any4, PORT, &rdma), 0);
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, TCP, &any4, PORT, &tcp),
			-EADDRINUSE);
	ep_close(&rdma);
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, TCP, &any4, PORT, &tcp), 0);
	ep_close(&tcp);
}

/* A failed bind or listen leaves nothing held. */
static void failed_bind_and_listen_leave_nothing(struct kunit *test)
{
	static const struct ep_spec reuse_listen = { ANY4, true, -1, true };
	static const struct ep_spec plain = { ANY4, false, -1, false };
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep tcp, rdma;

	KUNIT_ASSERT_EQ(test, ep_open(&init_net, TCP, &plain, PORT, &tcp), 0);
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, RDMA, &plain, PORT, &rdma),
			-EADDRINUSE);
	ep_close(&tcp);

	/* The listen rule refuses; the id stays bound until destroyed. */
	KUNIT_ASSERT_EQ(test, ep_open(&init_net, TCP, &reuse_listen, PORT, &tcp), 0);
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, RDMA, &reuse_listen, PORT, &rdma),
			-EADDRINUSE);
	ep_close(&tcp);
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, TCP, &plain, PORT, &tcp), 0);
	ep_close(&tcp);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

/* N create/bind/destroy cycles: the TCP socket count comes back. */
static void sockstat_balanced(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, false };
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep ep;
	int i;

	for (i = 0; i < 500; i++) {
		KUNIT_ASSERT_EQ(test, ep_open(&init_net, RDMA, &any4, 0, &ep), 0);
		if (i == 0)	/* a reservation is a real TCP socket */
			KUNIT_EXPECT_EQ(test,
					percpu_counter_sum(&tcp_sockets_allocated),
					before + 1);
		ep_close(&ep);
	}
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

/*
 * Without the provider the rdma_cm is upstream's: an RDMA listener takes a
 * port a TCP listener holds (the collision this project closes).
 */
static void upstream_without_provider(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, true };
	const struct rdma_cm_port_ops *ops = rdma_tcp_port_kunit_ops();
	struct ep tcp, rdma;
	int upstream, ours;

	KUNIT_ASSERT_EQ(test, ep_open(&init_net, TCP, &any4, PORT, &tcp), 0);
	rdma_cm_unregister_port_ops(ops);
	upstream = ep_open(&init_net, RDMA, &any4, PORT, &rdma);
	ep_close(&rdma);
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_ops(ops), 0);
	ours = ep_open(&init_net, RDMA, &any4, PORT, &rdma);
	ep_close(&rdma);
	ep_close(&tcp);

	KUNIT_EXPECT_EQ(test, upstream, 0);
	KUNIT_EXPECT_EQ(test, ours, -EADDRINUSE);
	/* Only one provider at a time. */
	KUNIT_EXPECT_EQ(test, rdma_cm_register_port_ops(ops), -EBUSY);
}

/*
 * The reserve parameter.  There is no iWARP device here, so under "iwarp" a
 * wildcard id is left to the rdma_cm's table, as under "none": it binds next
 * to a TCP listener, and its port is then in that table, whose own errno
 * refuses a second id.  Unknown values are refused and change nothing.
 */
static void reserve_policy(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, true };
	static const char * const left_to_cma[] = { "none", "iwarp" };
	struct ep tcp, rdma, again;
	int i;

	KUNIT_ASSERT_EQ(test, ep_open(&init_net, TCP, &any4, PORT, &tcp), 0);
	for (i = 0; i < ARRAY_SIZE(left_to_cma); i++) {
		KUNIT_ASSERT_EQ(test,
				rdma_tcp_port_kunit_set_reserve(left_to_cma[i]),
				0);
		KUNIT_EXPECT_EQ_MSG(test, ep_open(&init_net, RDMA, &any4, PORT,
						  &rdma), 0, left_to_cma[i]);
		KUNIT_EXPECT_EQ_MSG(test, ep_open(&init_net, RDMA, &any4, PORT,
						  &again), -EADDRNOTAVAIL,
				    left_to_cma[i]);
		ep_close(&again);
		ep_close(&rdma);
	}
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all\n"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("bogus"), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve(""), -EINVAL);
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, RDMA, &any4, PORT, &rdma),
			-EADDRINUSE);
	ep_close(&rdma);
	ep_close(&tcp);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all"), 0);
}

/*
 * The idr flag: on, the rdma_cm's own table also records the port (an id
 * bound while the provider is away sees it); off, it does not.
 */
static void idr_flag_both_states(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, false };
	const struct rdma_cm_port_ops *ops = rdma_tcp_port_kunit_ops();
	struct ep held, probe;
	int with_idr, without_idr;
	bool old;

	old = rdma_tcp_port_kunit_set_idr(true);
	KUNIT_ASSERT_EQ(test, ep_open(&init_net, RDMA, &any4, PORT, &held), 0);
	rdma_cm_unregister_port_ops(ops);
	with_idr = ep_open(&init_net, RDMA, &any4, PORT, &probe);
	ep_close(&probe);
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_ops(ops), 0);
	ep_close(&held);

	rdma_tcp_port_kunit_set_idr(false);
	KUNIT_ASSERT_EQ(test, ep_open(&init_net, RDMA, &any4, PORT, &held), 0);
	rdma_cm_unregister_port_ops(ops);
	without_idr = ep_open(&init_net, RDMA, &any4, PORT, &probe);
	ep_close(&probe);
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_ops(ops), 0);
	/* Off, the host stack still holds the port. */
	KUNIT_EXPECT_EQ(test, ep_open(&init_net, TCP, &any4, PORT, &probe),
			-EADDRINUSE);
	ep_close(&held);
	rdma_tcp_port_kunit_set_idr(old);

	/* The rdma_cm's own errno for an overlapping wildcard bind */
	KUNIT_EXPECT_EQ(test, with_idr, -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, without_idr, 0);
}

/* RDMA_PS_UDP, RDMA_PS_IPOIB and RDMA_PS_IB keep the rdma_cm's own table. */
static void other_port_spaces_untouched(struct kunit *test)
{
	static const struct ep_spec any4 = { ANY4, false, -1, true };
	static const enum rdma_ucm_port_space spaces[] = {
		RDMA_PS_UDP, RDMA_PS_IPOIB, RDMA_PS_IB
	};
	struct sockaddr_storage ss;
	struct ep tcp;
	int i;

	make_addr(ANY4, PORT, &ss);
	KUNIT_ASSERT_EQ(test, ep_open(&init_net, TCP, &any4, PORT, &tcp), 0);
	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		s64 before = percpu_counter_sum(&tcp_sockets_allocated);
		struct rdma_cm_id *id, *id2;
		enum ib_qp_type qpt = spaces[i] == RDMA_PS_UDP ||
				      spaces[i] == RDMA_PS_IPOIB ?
				      IB_QPT_UD : IB_QPT_RC;

		id = rdma_create_id(&init_net, cm_handler, NULL, spaces[i], qpt);
		KUNIT_ASSERT_FALSE(test, IS_ERR(id));
		/* Not in the host's TCP space: no socket, no collision ... */
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&ss), 0);
		KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated),
				before);
		/* ... but the rdma_cm's own table still rules the space. */
		id2 = rdma_create_id(&init_net, cm_handler, NULL, spaces[i], qpt);
		KUNIT_ASSERT_FALSE(test, IS_ERR(id2));
		KUNIT_EXPECT_NE(test, rdma_bind_addr(id2, (struct sockaddr *)&ss), 0);
		rdma_destroy_id(id2);
		rdma_destroy_id(id);
	}
	ep_close(&tcp);
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

			id = rdma_create_id(net, cm_handler, NULL, RDMA_PS_TCP,
					    IB_QPT_RC);
			KUNIT_ASSERT_FALSE(test, IS_ERR(id));
			ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
						100);
			if (ret == -EADDRINUSE || ret == -EADDRNOTAVAIL ||
			    !id_port(id)) {
				rdma_destroy_id(id);
				break;
			}
			ids[n++] = id;
		}
	}
	return n;
}

static void active_side_ceiling(struct kunit *test)
{
	const struct rdma_cm_port_ops *ops = rdma_tcp_port_kunit_ops();
	struct rdma_cm_id **ids;
	int ours, upstream, i;
	struct net *net;
	s64 before;

	ids = kunit_kcalloc(test, 64, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);

	before = percpu_counter_sum(&tcp_sockets_allocated);
	net = small_range_net(test, 40000, 40003);
	ours = fill_active(test, net, 3, ids, 64);
	for (i = 0; i < ours; i++) {
		KUNIT_EXPECT_GE(test, id_port(ids[i]), 40000);
		KUNIT_EXPECT_LE(test, id_port(ids[i]), 40003);
		rdma_destroy_id(ids[i]);
	}
	put_net(net);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);

	rdma_cm_unregister_port_ops(ops);
	net = small_range_net(test, 40000, 40003);
	upstream = fill_active(test, net, 3, ids, 64);
	for (i = 0; i < upstream; i++)
		rdma_destroy_id(ids[i]);
	put_net(net);
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_ops(ops), 0);

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
	struct ep tcp, rdma;
	int t, r;

	KUNIT_ASSERT_EQ(test, ep_open(&init_net, TCP, &any6, PORT, &tcp), 0);
	t = ip6_sock_set_v6only(tcp.sock->sk);
	ep_close(&tcp);
	KUNIT_ASSERT_EQ(test, ep_open(&init_net, RDMA, &any6, PORT, &rdma), 0);
	r = rdma_set_afonly(rdma.id, 1);
	ep_close(&rdma);
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

	*id = rdma_create_id(&init_net, cm_handler, NULL, RDMA_PS_TCP,
			     IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(*id));
	ret = rdma_bind_addr(*id, (struct sockaddr *)&sib);
	if (ret) {
		rdma_destroy_id(*id);
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
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1,
					      .listen = true };
	const struct rdma_cm_port_ops *ops = rdma_tcp_port_kunit_ops();
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	int upstream, ours, ib_second;
	struct rdma_cm_id *ib;
	struct ep inet;

	rdma_cm_unregister_port_ops(ops);
	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	upstream = ep_open(&init_net, RDMA, &any4, PORT, &inet);
	ep_close(&inet);
	rdma_destroy_id(ib);
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_ops(ops), 0);

	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	ours = ep_open(&init_net, RDMA, &any4, PORT, &inet);
	ep_close(&inet);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	rdma_destroy_id(ib);

	KUNIT_ASSERT_EQ(test, ep_open(&init_net, RDMA, &any4, PORT, &inet), 0);
	ib_second = bind_af_ib(test, PORT, &ib);
	if (!ib_second)
		rdma_destroy_id(ib);
	ep_close(&inet);

	KUNIT_EXPECT_EQ(test, upstream, -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, ours, upstream);
	KUNIT_EXPECT_EQ(test, ib_second, upstream);
}

/* Run as @uid without CAP_NET_ADMIN, the RLIMIT_NOFILE being @nofile. */
static const struct cred *become_user(struct kunit *test, uid_t uid,
				      unsigned long nofile, unsigned long *old)
{
	struct cred *cred = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, cred);
	cred->uid = KUIDT_INIT(uid);
	cred->euid = cred->uid;
	cred->fsuid = cred->uid;
	cap_lower(cred->cap_effective, CAP_NET_ADMIN);
	*old = current->signal->rlim[RLIMIT_NOFILE].rlim_cur;
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, nofile);
	return override_creds(cred);
}

static void become_root(const struct cred *saved, unsigned long nofile)
{
	const struct cred *cred = current_cred();

	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, nofile);
	revert_creds(saved);
	put_cred(cred);
}

/* Binds port-0 ids in @net until one fails; returns how many bound. */
static int fill_ids(struct kunit *test, struct net *net, struct ep *eps,
		    int max, int *err)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	int n;

	for (n = 0; n < max; n++) {
		*err = ep_open(net, RDMA, &any4, 0, &eps[n]);
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
	struct ep *eps, tcp, root;
	const struct cred *saved;
	unsigned long nofile;
	int n, n2, nfile, err, err2, errf, errn, i;

	eps = kunit_kcalloc(test, 16, sizeof(*eps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eps);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);

	saved = become_user(test, 4242, 1024, &nofile);
	n = fill_ids(test, net, eps, 16, &err);
	/* The user's TCP sockets are not held back by its RDMA ids. */
	KUNIT_EXPECT_EQ(test, ep_open(net, TCP, &any4, 0, &tcp), 0);
	ep_close(&tcp);
	/* A lower RLIMIT_NOFILE: nothing more, in any namespace. */
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, 3);
	errf = ep_open(&init_net, RDMA, &any4, 0, &tcp);
	ep_close(&tcp);
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, 1024);
	become_root(saved, nofile);

	/* CAP_NET_ADMIN over the namespace: not capped. */
	KUNIT_EXPECT_EQ(test, ep_open(net, RDMA, &any4, 0, &root), 0);
	ep_close(&root);

	for (i = 0; i < n; i++)
		ep_close(&eps[i]);
	/* Destroyed ids are no longer counted. */
	saved = become_user(test, 4242, 1024, &nofile);
	n2 = fill_ids(test, net, eps, 16, &err2);
	for (i = 0; i < n2; i++)
		ep_close(&eps[i]);
	/* user_share=0: no cap. */
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	nfile = fill_ids(test, net, eps, 16, &errn);
	for (i = 0; i < nfile; i++)
		ep_close(&eps[i]);
	become_root(saved, nofile);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("101"), -EINVAL);
	put_net(net);

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

#define SOAK_CYCLES 1000000

/* @n create/bind/destroy cycles, port 0 and @port alternately. */
static int soak_run(struct kunit *test, int n, u16 port)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep ep;
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = ep_open(&init_net, RDMA, &any4, i & 1 ? port : 0, &ep);
		if (ret)
			return ret;
		ep_close(&ep);
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
	const struct rdma_cm_port_ops *ops = rdma_tcp_port_kunit_ops();
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

	rdma_cm_unregister_port_ops(ops);
	slab = slab_bytes();
	upstream = soak_run(test, SOAK_CYCLES / 4, PORT + 1);
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_ops(ops), 0);
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

static struct kunit_case rdma_tcp_port_cases[] = {
	KUNIT_CASE(oracle_scenarios),
	KUNIT_CASE(two_namespaces_same_port),
	KUNIT_CASE(privileged_port_without_cap),
	KUNIT_CASE(ephemeral_range_and_reserved),
	KUNIT_CASE(reserved_port_explicit),
	KUNIT_CASE(port_free_after_destroy),
	KUNIT_CASE(failed_bind_and_listen_leave_nothing),
	KUNIT_CASE(sockstat_balanced),
	KUNIT_CASE(upstream_without_provider),
	KUNIT_CASE(idr_flag_both_states),
	KUNIT_CASE(reserve_policy),
	KUNIT_CASE(other_port_spaces_untouched),
	KUNIT_CASE(active_side_ceiling),
	KUNIT_CASE(afonly_after_bind),
	KUNIT_CASE(af_ib_keeps_the_table_rules),
	KUNIT_CASE(user_cap),
	KUNIT_CASE_SLOW(soak),
	{}
};

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
	.test_cases = rdma_tcp_port_cases,
};

kunit_test_suite(rdma_tcp_port_suite);

MODULE_DESCRIPTION("KUnit tests for rdma_tcp_port");
MODULE_LICENSE("GPL");
