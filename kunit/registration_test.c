// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rdma_tcp_port_registration: the rdma_cm's provider
 * interface and the module's parameters.  Without the provider the
 * rdma_cm is upstream's; registration checks the operations; the reserve
 * and idr parameters decide which ids hold a host port and whether the
 * rdma_cm's own table records it too.
 */

#include <kunit/test.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_kunit.h"
#include "rdma_tcp_port_test.h"

/*
 * Without the provider the rdma_cm is upstream's: an RDMA listener takes a
 * port a TCP listener holds (the collision this project closes).
 */
static void upstream_without_provider(struct kunit *test)
{
	static const struct ep_spec any4 = {
		.addr = ANY4, .v6only = -1, .listen = true
	};
	struct ep *tcp = rtp_ep_alloc(test, 1), *rdma = rtp_ep_alloc(test, 1);
	int upstream, ours;

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	rdma_tcp_port_kunit_unregister();
	upstream = rtp_ep_open(test, &init_net, RDMA, &any4, PORT, rdma);
	rtp_ep_close(test, rdma);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	ours = rtp_ep_open(test, &init_net, RDMA, &any4, PORT, rdma);
	rtp_ep_close(test, rdma);
	rtp_ep_close(test, tcp);

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
	struct ep *tcp = rtp_ep_alloc(test, 1), *rdma = rtp_ep_alloc(test, 1);
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
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rtp_unregister_action,
							other), 0);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	/* Declined, the id binds next to the TCP listener, as upstream. */
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, PORT, rdma), 0);
	KUNIT_EXPECT_EQ(test, *calls, 1);
	rtp_ep_close(test, rdma);
	rtp_ep_close(test, tcp);
	kunit_release_action(test, rtp_unregister_action, other);
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

	tcp = rtp_ep_alloc(test, 1);
	rdma = rtp_ep_alloc(test, 1);
	again = rtp_ep_alloc(test, 1);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, tcp), 0);
	for (i = 0; i < ARRAY_SIZE(left_to_cma); i++) {
		KUNIT_ASSERT_EQ(test,
				rdma_tcp_port_kunit_set_reserve(left_to_cma[i]),
				0);
		KUNIT_EXPECT_EQ_MSG(test, rtp_ep_open(test, &init_net, RDMA, &any4,
						      PORT, rdma), 0, left_to_cma[i]);
		KUNIT_EXPECT_EQ_MSG(test, rtp_ep_open(test, &init_net, RDMA, &any4,
						      PORT, again), -EADDRNOTAVAIL,
				    left_to_cma[i]);
		rtp_ep_close(test, again);
		rtp_ep_close(test, rdma);
	}
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all\n"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("bogus"), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve(""), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, PORT, rdma),
			-EADDRINUSE);
	rtp_ep_close(test, rdma);
	rtp_ep_close(test, tcp);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all"), 0);
}

/*
 * The idr flag: on, the rdma_cm's own table also records the port (an id
 * bound while the provider is away sees it); off, it does not.
 */
static void idr_flag_both_states(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *held = rtp_ep_alloc(test, 1), *probe = rtp_ep_alloc(test, 1);
	int with_idr, without_idr;
	bool old;

	old = rdma_tcp_port_kunit_set_idr(true);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, PORT, held), 0);
	rdma_tcp_port_kunit_unregister();
	with_idr = rtp_ep_open(test, &init_net, RDMA, &any4, PORT, probe);
	rtp_ep_close(test, probe);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	rtp_ep_close(test, held);

	rdma_tcp_port_kunit_set_idr(false);
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, PORT, held), 0);
	rdma_tcp_port_kunit_unregister();
	without_idr = rtp_ep_open(test, &init_net, RDMA, &any4, PORT, probe);
	rtp_ep_close(test, probe);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	/* Off, the host stack still holds the port. */
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4, PORT, probe),
			-EADDRINUSE);
	rtp_ep_close(test, held);
	rdma_tcp_port_kunit_set_idr(old);

	/* The rdma_cm's own errno for an overlapping wildcard bind */
	KUNIT_EXPECT_EQ(test, with_idr, -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, without_idr, 0);
}

static struct kunit_case registration_cases[] = {
	KUNIT_CASE(upstream_without_provider),
	KUNIT_CASE(registration_checks_ops),
	KUNIT_CASE(idr_flag_both_states),
	KUNIT_CASE(reserve_policy),
	{}
};

static struct kunit_suite registration_suite = {
	.name = "rdma_tcp_port_registration",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = registration_cases,
};

kunit_test_suite(registration_suite);
