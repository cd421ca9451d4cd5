// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rdma_tcp_port_oracle: RDMA_PS_TCP ports held in the host TCP
 * port space, against the host's own rules.
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
 * Then the rules around the table: namespaces, privileged ports, port 0 in
 * ip_local_port_range and ip_local_reserved_ports, and what a destroyed id
 * or a failed bind leaves (nothing).
 */

#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/net.h>
#include <linux/percpu_counter.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_test.h"

static const char * const kind_name[] = { [TCP] = "TCP", [RDMA] = "RDMA" };

static const char * const addr_name[] = {
	[ANY4] = "0.0.0.0",
	[LO4] = "127.0.0.1",
	[ANY6] = "[::]",
	[LO6] = "[::1]",
	[MAPPED4] = "[::ffff:127.0.0.1]",
};

static bool is_wildcard(enum ep_addr a)
{
	return a == ANY4 || a == ANY6;
}

struct scenario {
	const char *name;
	struct ep_spec a, b;	/* a binds first, then b */
	int expect;		/* what TCP+TCP gives for b */
};

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

/* Defines scenario_gen_params(): one run of oracle_scenario per scenario. */
KUNIT_ARRAY_PARAM_DESC(scenario, scenarios, name);

static int run_pair(struct kunit *test, struct net *net, enum ep_kind ka,
		    const struct ep_spec *a, enum ep_kind kb,
		    const struct ep_spec *b)
{
	struct ep *first = rtp_ep_alloc(test, 1), *second = rtp_ep_alloc(test, 1);
	int ret;

	ret = rtp_ep_open(test, net, ka, a, PORT, first);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "first %s bind of %s failed",
			    kind_name[ka], addr_name[a->addr]);
	ret = rtp_ep_open(test, net, kb, b, PORT, second);
	rtp_ep_close(test, second);
	rtp_ep_close(test, first);
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
	struct net *net = rtp_net_new(test);
	struct ep *tcp = rtp_ep_alloc(test, 1), *rdma = rtp_ep_alloc(test, 1);

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, PORT, rdma), 0);
}

/* A port below ip_unprivileged_port_start, without CAP_NET_BIND_SERVICE. */
static void privileged_port_without_cap(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *ep = rtp_ep_alloc(test, 1);
	struct test_creds *creds;
	int tcp, rdma;

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, 999, ep), 0);
	rtp_ep_close(test, ep);

	creds = rtp_creds_prepare(test);
	cap_lower(creds->cred->cap_effective, CAP_NET_BIND_SERVICE);
	rtp_creds_override(creds);
	tcp = rtp_ep_open(test, &init_net, TCP, &any4, 999, ep);
	rtp_ep_close(test, ep);
	rdma = rtp_ep_open(test, &init_net, RDMA, &any4, 999, ep);
	rtp_ep_close(test, ep);
	rtp_creds_revert(test, creds);

	KUNIT_EXPECT_EQ(test, tcp, -EACCES);
	KUNIT_EXPECT_EQ(test, rdma, tcp);
}

/*
 * Below PROT_SOCK the rdma_cm also asks for CAP_NET_BIND_SERVICE in the
 * initial user namespace, as upstream's cma_use_port() does, besides what
 * TCP asks over the id's namespace.  Opens @port in a namespace whose
 * ip_unprivileged_port_start is 0, as @kind, without the capability.
 */
static int bind_unprivileged(struct kunit *test, enum ep_kind kind, u16 port)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = rtp_net_new(test);
	struct test_creds *creds;
	int ret;

	WRITE_ONCE(net->ipv4.sysctl_ip_prot_sock, 0);
	creds = rtp_creds_prepare(test);
	cap_lower(creds->cred->cap_effective, CAP_NET_BIND_SERVICE);
	rtp_creds_override(creds);
	ret = rtp_ep_open(test, net, kind, &any4, port, rtp_ep_alloc(test, 1));
	rtp_creds_revert(test, creds);
	return ret;
}

/* Where TCP's rule lets a port through, an RDMA id still gets EACCES ... */
static void privileged_port_upstream_rule(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, bind_unprivileged(test, TCP, 999), 0);
	KUNIT_EXPECT_EQ(test, bind_unprivileged(test, RDMA, 999), -EACCES);
}

/* ... and binds at PROT_SOCK. */
static void prot_sock_unprivileged(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bind_unprivileged(test, RDMA, PROT_SOCK), 0);
}

/*
 * Port 0: the host stack chooses, inside ip_local_port_range and outside
 * ip_local_reserved_ports, and says EADDRINUSE when the range is full,
 * exactly as for a TCP socket.  A 10-port range with its first 5 reserved:
 * returns the namespace, and in @eps the ids that took the 5 free ports.
 */
static struct net *reserved_half_range(struct kunit *test, struct ep **eps)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = rtp_small_range_net(test, 40000, 40009);
	int i;

	for (i = 40000; i < 40005; i++)
		set_bit(i, net->ipv4.sysctl_local_reserved_ports);
	*eps = rtp_ep_alloc(test, 5);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0, &(*eps)[i]), 0);
	return net;
}

static void ephemeral_in_range_outside_reserved(struct kunit *test)
{
	struct ep *eps;
	int i;

	reserved_half_range(test, &eps);
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_GE(test, rtp_id_port(eps[i].id), 40005);
		KUNIT_EXPECT_LE(test, rtp_id_port(eps[i].id), 40009);
	}
}

/* The range is full: the next RDMA id fails as a TCP socket does. */
static void ephemeral_full_as_tcp(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *eps, *tcp = rtp_ep_alloc(test, 1);
	struct net *net = reserved_half_range(test, &eps);
	int rdma;

	rdma = rtp_ep_open(test, net, RDMA, &any4, 0, rtp_ep_alloc(test, 1));
	KUNIT_EXPECT_EQ(test, rdma, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, 0, tcp), rdma);
}

/* The port an id got is a real host port: a TCP bind there is refused. */
static void ephemeral_port_held_by_host(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *eps;
	struct net *net = reserved_half_range(test, &eps);

	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, rtp_id_port(eps[0].id),
					  rtp_ep_alloc(test, 1)),
			-EADDRINUSE);
}

/*
 * Port 0 among client sockets: the module tries ports with explicit binds,
 * remembering the ones it found taken.  In a 20-port range, 10 TCP
 * sockets bound to port 0 (TCP's bind(0) takes the odd offsets first) and
 * ids in the 10 ports they left: returns the namespace, @tcp and @rdma.
 */
static struct net *clients_and_ids(struct kunit *test, struct ep **tcp,
				   struct ep **rdma)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = rtp_small_range_net(test, 40000, 40019);
	int i;

	*tcp = rtp_ep_alloc(test, 10);
	*rdma = rtp_ep_alloc(test, 10);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, TCP, &any4, 0, &(*tcp)[i]), 0);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0, &(*rdma)[i]), 0);
	return net;
}

/* Every port that TCP's bind(0) left free goes to an id, none a socket holds. */
static void ephemeral_around_client_sockets(struct kunit *test)
{
	struct ep *tcp, *rdma;
	int i, j;

	clients_and_ids(test, &tcp, &rdma);
	for (i = 0; i < 10; i++) {
		for (j = 0; j < 10; j++)
			KUNIT_EXPECT_NE(test, rtp_id_port(rdma[i].id),
					inet_sk(tcp[j].sock->sk)->inet_num);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, rtp_id_port(rdma[i].id),
					rtp_id_port(rdma[j].id));
	}
}

/* Full: refused as TCP's own bind(0) is. */
static void ephemeral_full_among_clients(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *tcp, *rdma, *extra = rtp_ep_alloc(test, 2);
	struct net *net = clients_and_ids(test, &tcp, &rdma);
	int ret;

	ret = rtp_ep_open(test, net, RDMA, &any4, 0, &extra[0]);
	KUNIT_EXPECT_EQ(test, ret, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, 0, &extra[1]), ret);
}

/* A client lets its port go: the next id gets that very port. */
static void ephemeral_finds_freed_port(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *tcp, *rdma, *extra = rtp_ep_alloc(test, 1);
	struct net *net = clients_and_ids(test, &tcp, &rdma);
	u16 freed = inet_sk(tcp[3].sock->sk)->inet_num;

	rtp_ep_close(test, &tcp[3]);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0, extra), 0);
	KUNIT_EXPECT_EQ(test, rtp_id_port(extra->id), freed);
}

/* A reserved port can still be bound explicitly, by TCP and RDMA alike. */
static void reserved_port_explicit(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = rtp_small_range_net(test, 40000, 40009);
	struct ep *ep = rtp_ep_alloc(test, 1);
	int tcp, rdma;

	set_bit(40001, net->ipv4.sysctl_local_reserved_ports);
	tcp = rtp_ep_open(test, net, TCP, &any4, 40001, ep);
	rtp_ep_close(test, ep);
	rdma = rtp_ep_open(test, net, RDMA, &any4, 40001, ep);
	rtp_ep_close(test, ep);
	KUNIT_EXPECT_EQ(test, tcp, 0);
	KUNIT_EXPECT_EQ(test, rdma, tcp);
	rtp_net_put(test, net);
}

/* rdma_destroy_id() gives the port back to the host at once. */
static void port_free_after_destroy(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	struct ep *rdma = rtp_ep_alloc(test, 1), *tcp = rtp_ep_alloc(test, 1);

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, PORT, rdma), 0);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp),
			-EADDRINUSE);
	rtp_ep_close(test, rdma);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
}

/* A refusal: what holds PORT, and the id that it refuses. */
struct refusal {
	const char *name;
	struct ep_spec holder, id;
};

static const struct refusal refusals[] = {
	/* TCP's bind conflict */
	{ "bind", { .addr = ANY4, .v6only = -1 }, { .addr = ANY4, .v6only = -1 } },
	/* The listen rule: the id is bound, then refused at listen. */
	{ "listen",
	  { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true } },
};

KUNIT_ARRAY_PARAM_DESC(refusals, refusals, name);

/*
 * A failed bind or listen leaves nothing held: once the holder is closed,
 * the port is free and the count of TCP sockets is back.
 */
static void refusal_leaves_nothing(struct kunit *test)
{
	static const struct ep_spec plain = { .addr = ANY4, .v6only = -1 };
	const struct refusal *r = test->param_value;
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep *tcp = rtp_ep_alloc(test, 1);

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &r->holder, PORT, tcp), 0);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &r->id, PORT,
					  rtp_ep_alloc(test, 1)),
			-EADDRINUSE);
	rtp_ep_close(test, tcp);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &plain, PORT, tcp), 0);
}

/* A held port is a real TCP socket. */
static void reservation_is_tcp_socket(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, 0,
					  rtp_ep_alloc(test, 1)), 0);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before + 1);
}

/* N create/bind/destroy cycles: the TCP socket count comes back. */
static void sockstat_balanced(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep *ep = rtp_ep_alloc(test, 1);
	int i;

	for (i = 0; i < 500; i++) {
		KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, 0, ep), 0);
		rtp_ep_close(test, ep);
	}
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

static struct kunit_case oracle_cases[] = {
	KUNIT_CASE_PARAM(oracle_scenario, scenario_gen_params),
	KUNIT_CASE(two_namespaces_same_port),
	KUNIT_CASE(privileged_port_without_cap),
	KUNIT_CASE(privileged_port_upstream_rule),
	KUNIT_CASE(prot_sock_unprivileged),
	KUNIT_CASE(ephemeral_in_range_outside_reserved),
	KUNIT_CASE(ephemeral_full_as_tcp),
	KUNIT_CASE(ephemeral_port_held_by_host),
	KUNIT_CASE(ephemeral_around_client_sockets),
	KUNIT_CASE(ephemeral_full_among_clients),
	KUNIT_CASE(ephemeral_finds_freed_port),
	KUNIT_CASE(reserved_port_explicit),
	KUNIT_CASE(port_free_after_destroy),
	KUNIT_CASE_PARAM(refusal_leaves_nothing, refusals_gen_params),
	KUNIT_CASE(reservation_is_tcp_socket),
	KUNIT_CASE(sockstat_balanced),
	{}
};

static struct kunit_suite oracle_suite = {
	.name = "rdma_tcp_port_oracle",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = oracle_cases,
};

kunit_test_suite(oracle_suite);
