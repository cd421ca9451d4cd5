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

	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, PORT, rdma), 0);
	rtp_ep_close(test, rdma);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, PORT, rdma), 0);
	rtp_ep_close(test, rdma);
	rtp_ep_close(test, tcp);
	rtp_net_put(test, net);
}

/* A port below ip_unprivileged_port_start, without CAP_NET_BIND_SERVICE. */
static void privileged_port_without_cap(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *ep = rtp_ep_alloc(test, 1);
	struct test_creds *creds;
	int tcp, rdma;

	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, 999, ep), 0);
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
 * TCP asks over the id's namespace: where TCP's rule lets a port through
 * (ip_unprivileged_port_start 0), an RDMA id without the capability still
 * gets EACCES there, and binds at PROT_SOCK.
 */
static void privileged_port_upstream_rule(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = rtp_net_new(test);
	struct ep *ep = rtp_ep_alloc(test, 1);
	struct test_creds *creds;
	int tcp, rdma, above;

	WRITE_ONCE(net->ipv4.sysctl_ip_prot_sock, 0);
	creds = rtp_creds_prepare(test);
	cap_lower(creds->cred->cap_effective, CAP_NET_BIND_SERVICE);
	rtp_creds_override(creds);
	tcp = rtp_ep_open(test, net, TCP, &any4, 999, ep);
	rtp_ep_close(test, ep);
	rdma = rtp_ep_open(test, net, RDMA, &any4, 999, ep);
	rtp_ep_close(test, ep);
	above = rtp_ep_open(test, net, RDMA, &any4, PROT_SOCK, ep);
	rtp_ep_close(test, ep);
	rtp_creds_revert(test, creds);
	rtp_net_put(test, net);

	KUNIT_EXPECT_EQ(test, tcp, 0);
	KUNIT_EXPECT_EQ(test, rdma, -EACCES);
	KUNIT_EXPECT_EQ(test, above, 0);
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
	struct net *net = rtp_small_range_net(test, 40000, 40009);
	struct ep *eps = rtp_ep_alloc(test, neps), *tcp = rtp_ep_alloc(test, 1);
	int i, ret;

	for (i = 40000; i < 40005; i++)
		set_bit(i, net->ipv4.sysctl_local_reserved_ports);

	for (i = 0; i < neps - 1; i++) {
		KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0, &eps[i]), 0);
		KUNIT_EXPECT_GE(test, rtp_id_port(eps[i].id), 40005);
		KUNIT_EXPECT_LE(test, rtp_id_port(eps[i].id), 40009);
	}
	/* The range is full: the next RDMA id and a TCP socket both fail. */
	ret = rtp_ep_open(test, net, RDMA, &any4, 0, &eps[neps - 1]);
	KUNIT_EXPECT_EQ(test, ret, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, 0, tcp), ret);
	rtp_ep_close(test, tcp);
	/* And the RDMA ids hold real host ports. */
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, rtp_id_port(eps[0].id), tcp),
			-EADDRINUSE);
	rtp_ep_close(test, tcp);

	for (i = 0; i < neps; i++)
		rtp_ep_close(test, &eps[i]);
	rtp_net_put(test, net);
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
	struct net *net = rtp_small_range_net(test, 40000, 40019);
	struct ep *tcp, *rdma, *extra;
	int i, j, ret;

	tcp = rtp_ep_alloc(test, ntcp);
	rdma = rtp_ep_alloc(test, nrdma);
	extra = rtp_ep_alloc(test, 1);
	/* TCP's bind(0) takes the odd offsets first: half the range. */
	for (i = 0; i < ntcp; i++)
		KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, TCP, &any4, 0, &tcp[i]), 0);
	for (i = 0; i < nrdma - 1; i++) {
		KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0, &rdma[i]), 0);
		for (j = 0; j < ntcp; j++)
			KUNIT_EXPECT_NE(test, rtp_id_port(rdma[i].id),
					inet_sk(tcp[j].sock->sk)->inet_num);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, rtp_id_port(rdma[i].id),
					rtp_id_port(rdma[j].id));
	}
	/* Full: refused as TCP's own bind(0) is. */
	ret = rtp_ep_open(test, net, RDMA, &any4, 0, &rdma[10]);
	KUNIT_EXPECT_EQ(test, ret, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, 0, extra), ret);
	rtp_ep_close(test, extra);
	/* A client lets its port go: the next id gets that very port. */
	j = inet_sk(tcp[3].sock->sk)->inet_num;
	rtp_ep_close(test, &tcp[3]);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0, &rdma[10]), 0);
	KUNIT_EXPECT_EQ(test, rtp_id_port(rdma[10].id), j);
	/* Which the host holds for it. */
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, j, extra), -EADDRINUSE);
	rtp_ep_close(test, extra);

	for (i = 0; i < nrdma; i++)
		rtp_ep_close(test, &rdma[i]);
	for (i = 0; i < ntcp; i++)
		rtp_ep_close(test, &tcp[i]);
	rtp_net_put(test, net);
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
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp),
			-EADDRINUSE);
	rtp_ep_close(test, rdma);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	rtp_ep_close(test, tcp);
}

/* A failed bind or listen leaves nothing held. */
static void failed_bind_and_listen_leave_nothing(struct kunit *test)
{
	static const struct ep_spec reuse_listen = {
		.addr = ANY4, .reuse = true, .v6only = -1, .listen = true
	};
	static const struct ep_spec plain = { .addr = ANY4, .v6only = -1 };
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct ep *tcp = rtp_ep_alloc(test, 1), *rdma = rtp_ep_alloc(test, 1);

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &plain, PORT, tcp), 0);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &plain, PORT, rdma),
			-EADDRINUSE);
	rtp_ep_close(test, tcp);

	/* The listen rule refuses; the id stays bound until destroyed. */
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &reuse_listen, PORT, tcp), 0);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &reuse_listen, PORT, rdma),
			-EADDRINUSE);
	rtp_ep_close(test, tcp);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &plain, PORT, tcp), 0);
	rtp_ep_close(test, tcp);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
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
		if (i == 0)	/* a reservation is a real TCP socket */
			KUNIT_EXPECT_EQ(test,
					percpu_counter_sum(&tcp_sockets_allocated),
					before + 1);
		rtp_ep_close(test, ep);
	}
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

static struct kunit_case oracle_cases[] = {
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
	{}
};

static struct kunit_suite oracle_suite = {
	.name = "rdma_tcp_port_oracle",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = oracle_cases,
};

kunit_test_suite(oracle_suite);
