// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rdma_tcp_port_ports: the ports around the host TCP table.
 * The other port spaces keep the rdma_cm's own table; ids that the active
 * side binds share ports as upstream's do; afonly is fixed once the port
 * is held; an AF_IB id, which holds no host port, meets the others in the
 * rdma_cm's table; and an iWARP driver's socket may join only the port
 * that the rdma_cm holds for its id (iw_cm_may_join_port()).
 */

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/net.h>
#include <linux/percpu_counter.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/ib.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_kunit.h"
#include "rdma_tcp_port_test.h"

/* The port spaces other than RDMA_PS_TCP, and the QP type each goes with. */
struct space_case {
	const char *name;
	enum rdma_ucm_port_space ps;
	enum ib_qp_type qpt;
};

static const struct space_case other_spaces[] = {
	{ "RDMA_PS_UDP", RDMA_PS_UDP, IB_QPT_UD },
	{ "RDMA_PS_IPOIB", RDMA_PS_IPOIB, IB_QPT_UD },
	{ "RDMA_PS_IB", RDMA_PS_IB, IB_QPT_RC },
};

KUNIT_ARRAY_PARAM_DESC(other_spaces, other_spaces, name);

/* An id of @c's space bound on the wildcard address and PORT: 0 or an errno. */
static int space_bind(struct kunit *test, const struct space_case *c)
{
	struct rdma_cm_id *id = rtp_id_create(test, &init_net, c->ps, c->qpt);
	struct sockaddr_storage ss;

	rtp_make_addr(ANY4, PORT, &ss);
	return rdma_bind_addr(id, (struct sockaddr *)&ss);
}

/* Not in the host's TCP space: beside a TCP listener, no socket, no collision. */
static void other_space_takes_no_host_port(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	s64 before;

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT,
					  rtp_ep_alloc(test, 1)), 0);
	before = percpu_counter_sum(&tcp_sockets_allocated);
	KUNIT_ASSERT_EQ(test, space_bind(test, test->param_value), 0);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

/* The rdma_cm's own table still rules the space: a second id is refused. */
static void other_space_keeps_cma_table(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, space_bind(test, test->param_value), 0);
	KUNIT_EXPECT_EQ(test, space_bind(test, test->param_value), -EADDRNOTAVAIL);
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

			id = rtp_id_create(test, net, RDMA_PS_TCP, IB_QPT_RC);
			ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
						100);
			if (ret == -EADDRINUSE || ret == -EADDRNOTAVAIL ||
			    !rtp_id_port(id)) {
				rtp_id_destroy(test, id);
				break;
			}
			ids[n++] = id;
		}
	}
	return n;
}

/* Active ids to 3 destinations in a new namespace with a 4-port range. */
static int active_ids(struct kunit *test, struct rdma_cm_id ***ids)
{
	struct net *net = rtp_small_range_net(test, 40000, 40003);

	*ids = kunit_kcalloc(test, 64, sizeof(**ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, *ids);
	return fill_active(test, net, 3, *ids, 64);
}

/* 4 ports x 3 destinations: 12 ids, no fewer than upstream's. */
static void active_side_ceiling(struct kunit *test)
{
	struct rdma_cm_id **ids;
	int ours, upstream;

	ours = active_ids(test, &ids);
	rdma_tcp_port_kunit_unregister();
	upstream = active_ids(test, &ids);
	kunit_info(test, "active ids, 4 ports x 3 destinations: module %d, upstream %d\n",
		   ours, upstream);
	KUNIT_EXPECT_EQ(test, ours, 12);
	KUNIT_EXPECT_GE(test, ours, upstream);
}

/* Their ports are in the namespace's range. */
static void active_side_ports_in_range(struct kunit *test)
{
	struct rdma_cm_id **ids;
	int n, i;

	n = active_ids(test, &ids);
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GE(test, rtp_id_port(ids[i]), 40000);
		KUNIT_EXPECT_LE(test, rtp_id_port(ids[i]), 40003);
	}
}

/* Destroyed, they leave no TCP socket behind. */
static void active_side_leaves_nothing(struct kunit *test)
{
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct rdma_cm_id **ids;
	int n, i;

	n = active_ids(test, &ids);
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < n; i++)
		rtp_id_destroy(test, ids[i]);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

/*
 * IPV6_V6ONLY cannot change once a TCP socket is bound (EINVAL); nor can
 * afonly once the id's port is held by one.
 */
static void afonly_after_bind(struct kunit *test)
{
	static const struct ep_spec any6 = { .addr = ANY6, .v6only = -1 };
	struct ep *tcp = rtp_ep_alloc(test, 1), *rdma = rtp_ep_alloc(test, 1);
	int t, r;

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any6, PORT, tcp), 0);
	t = ip6_sock_set_v6only(tcp->sock->sk);
	rtp_ep_close(test, tcp);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any6, PORT, rdma), 0);
	r = rdma_set_afonly(rdma->id, 1);
	rtp_ep_close(test, rdma);
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

	*id = rtp_id_create(test, &init_net, RDMA_PS_TCP, IB_QPT_RC);
	ret = rdma_bind_addr(*id, (struct sockaddr *)&sib);
	if (ret) {
		rtp_id_destroy(test, *id);
		*id = NULL;
	}
	return ret;
}

static const struct ep_spec any4_listen = {
	.addr = ANY4, .v6only = -1, .listen = true
};

/*
 * The rdma_cm's table rules between an id that holds a host port and one
 * that cannot (AF_IB), in both orders, with upstream's errno: upstream, an
 * AF_INET wildcard id is refused beside an AF_IB id on the same port.
 */
static void af_ib_upstream_rule(struct kunit *test)
{
	struct rdma_cm_id *ib;

	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4_listen, PORT,
					  rtp_ep_alloc(test, 1)),
			-EADDRNOTAVAIL);
}

/* With the provider, the AF_INET id is refused so, and holds no socket ... */
static void af_ib_first(struct kunit *test)
{
	s64 before = percpu_counter_sum(&tcp_sockets_allocated);
	struct rdma_cm_id *ib;

	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4_listen, PORT,
					  rtp_ep_alloc(test, 1)),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
}

/* ... and in the other order the AF_IB id is refused so. */
static void af_ib_second(struct kunit *test)
{
	struct rdma_cm_id *ib;

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4_listen, PORT,
					  rtp_ep_alloc(test, 1)), 0);
	KUNIT_EXPECT_EQ(test, bind_af_ib(test, PORT, &ib), -EADDRNOTAVAIL);
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

	rtp_make_addr(LO4, port, &ss);
	KUNIT_ASSERT_EQ(test, sock_create_kern(net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	yes = iw_cm_may_join_port(&id, s->sk, (struct sockaddr *)&ss);
	sock_release(s);
	return yes;
}

static struct sock *join_holder(struct kunit *test, struct ep *ep)
{
	static const struct ep_spec lo4 = { .addr = LO4, .v6only = -1 };

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &lo4, PORT, ep), 0);
	return ep->sock->sk;
}

static void join_held_port(struct kunit *test)
{
	struct sock *held = join_holder(test, rtp_ep_alloc(test, 1));

	KUNIT_EXPECT_TRUE(test, join_answer(test, held, &init_net, PORT));
}

static void join_other_port(struct kunit *test)
{
	struct sock *held = join_holder(test, rtp_ep_alloc(test, 1));

	KUNIT_EXPECT_FALSE(test, join_answer(test, held, &init_net, PORT + 1));
	KUNIT_EXPECT_FALSE(test, join_answer(test, held, &init_net, 0));
}

/*
 * Not in the held socket's namespace (a net device moved between resolve
 * and connect): the answer is no, with a rate-limited message and no WARN,
 * which scripts/check-kunit-log.sh requires after this line.
 */
static void join_other_namespace(struct kunit *test)
{
	struct net *net = rtp_net_new(test);
	struct sock *held = join_holder(test, rtp_ep_alloc(test, 1));

	pr_info("rdma_tcp_port_test: a refusal from iw_cm_may_join_port() follows\n");
	KUNIT_EXPECT_FALSE(test, join_answer(test, held, net, PORT));
}

static void join_without_held_port(struct kunit *test)
{
	join_holder(test, rtp_ep_alloc(test, 1));
	KUNIT_EXPECT_FALSE(test, join_answer(test, NULL, &init_net, PORT));
}

static struct kunit_case ports_cases[] = {
	KUNIT_CASE_PARAM(other_space_takes_no_host_port, other_spaces_gen_params),
	KUNIT_CASE_PARAM(other_space_keeps_cma_table, other_spaces_gen_params),
	KUNIT_CASE(active_side_ceiling),
	KUNIT_CASE(active_side_ports_in_range),
	KUNIT_CASE(active_side_leaves_nothing),
	KUNIT_CASE(afonly_after_bind),
	KUNIT_CASE(af_ib_upstream_rule),
	KUNIT_CASE(af_ib_first),
	KUNIT_CASE(af_ib_second),
	KUNIT_CASE(join_held_port),
	KUNIT_CASE(join_other_port),
	KUNIT_CASE(join_other_namespace),
	KUNIT_CASE(join_without_held_port),
	{}
};

static struct kunit_suite ports_suite = {
	.name = "rdma_tcp_port_ports",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = ports_cases,
};

kunit_test_suite(ports_suite);
