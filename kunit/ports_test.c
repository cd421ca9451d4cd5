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

/* RDMA_PS_UDP, RDMA_PS_IPOIB and RDMA_PS_IB keep the rdma_cm's own table. */
static void other_port_spaces_untouched(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	static const enum rdma_ucm_port_space spaces[] = {
		RDMA_PS_UDP, RDMA_PS_IPOIB, RDMA_PS_IB
	};
	struct ep *tcp = rtp_ep_alloc(test, 1);
	struct sockaddr_storage ss;
	int i;

	rtp_make_addr(ANY4, PORT, &ss);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		s64 before = percpu_counter_sum(&tcp_sockets_allocated);
		struct rdma_cm_id *id, *id2;
		enum ib_qp_type qpt = spaces[i] == RDMA_PS_UDP ||
				      spaces[i] == RDMA_PS_IPOIB ?
				      IB_QPT_UD : IB_QPT_RC;

		id = rtp_id_create(test, &init_net, spaces[i], qpt);
		/* Not in the host's TCP space: no socket, no collision ... */
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&ss), 0);
		KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated),
				before);
		/* ... but the rdma_cm's own table still rules the space. */
		id2 = rtp_id_create(test, &init_net, spaces[i], qpt);
		KUNIT_EXPECT_NE(test, rdma_bind_addr(id2, (struct sockaddr *)&ss), 0);
		rtp_id_destroy(test, id2);
		rtp_id_destroy(test, id);
	}
	rtp_ep_close(test, tcp);
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

static void active_side_ceiling(struct kunit *test)
{
	struct rdma_cm_id **ids;
	int ours, upstream, i;
	struct net *net;
	s64 before;

	ids = kunit_kcalloc(test, 64, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ids);

	before = percpu_counter_sum(&tcp_sockets_allocated);
	net = rtp_small_range_net(test, 40000, 40003);
	ours = fill_active(test, net, 3, ids, 64);
	for (i = 0; i < ours; i++) {
		KUNIT_EXPECT_GE(test, rtp_id_port(ids[i]), 40000);
		KUNIT_EXPECT_LE(test, rtp_id_port(ids[i]), 40003);
		rtp_id_destroy(test, ids[i]);
	}
	rtp_net_put(test, net);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);

	rdma_tcp_port_kunit_unregister();
	net = rtp_small_range_net(test, 40000, 40003);
	upstream = fill_active(test, net, 3, ids, 64);
	for (i = 0; i < upstream; i++)
		rtp_id_destroy(test, ids[i]);
	rtp_net_put(test, net);
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
	struct ep *inet = rtp_ep_alloc(test, 1);
	int upstream, ours, ib_second;
	struct rdma_cm_id *ib;

	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	upstream = rtp_ep_open(test, &init_net, RDMA, &any4, PORT, inet);
	rtp_ep_close(test, inet);
	rtp_id_destroy(test, ib);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);

	KUNIT_ASSERT_EQ(test, bind_af_ib(test, PORT, &ib), 0);
	ours = rtp_ep_open(test, &init_net, RDMA, &any4, PORT, inet);
	rtp_ep_close(test, inet);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	rtp_id_destroy(test, ib);

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, PORT, inet), 0);
	ib_second = bind_af_ib(test, PORT, &ib);
	if (!ib_second)
		rtp_id_destroy(test, ib);
	rtp_ep_close(test, inet);

	KUNIT_EXPECT_EQ(test, upstream, -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, ours, upstream);
	KUNIT_EXPECT_EQ(test, ib_second, upstream);
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
 * Cannot happen: the rdma_cm listens on an iWARP device only for ids of its
 * net device's namespace, where siw opens its sockets.  The answer is no,
 * with a warning, which scripts/check-kunit-log.sh lets through only after
 * this line and only from iw_cm_may_join_port(), and requires.
 */
static void join_other_namespace(struct kunit *test)
{
	struct net *net = rtp_net_new(test);
	struct sock *held = join_holder(test, rtp_ep_alloc(test, 1));

	pr_info("rdma_tcp_port_test: a WARNING from iw_cm_may_join_port() follows\n");
	KUNIT_EXPECT_FALSE(test, join_answer(test, held, net, PORT));
}

static void join_without_held_port(struct kunit *test)
{
	join_holder(test, rtp_ep_alloc(test, 1));
	KUNIT_EXPECT_FALSE(test, join_answer(test, NULL, &init_net, PORT));
}

static struct kunit_case ports_cases[] = {
	KUNIT_CASE(other_port_spaces_untouched),
	KUNIT_CASE(active_side_ceiling),
	KUNIT_CASE(afonly_after_bind),
	KUNIT_CASE(af_ib_keeps_the_table_rules),
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
