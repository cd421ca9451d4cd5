// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rdma_tcp_port_registration: the rdma_cm's provider
 * interface and the module's parameters.  Without the provider the
 * rdma_cm is upstream's; registration checks the operations and takes one
 * provider at a time; the reserve and idr parameters decide which ids hold
 * a host port and whether the rdma_cm's own table records it too.
 */

#include <kunit/test.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_kunit.h"
#include "rdma_tcp_port_test.h"

static const struct ep_spec any4_listen = {
	.addr = ANY4, .v6only = -1, .listen = true
};

/* A TCP listener on PORT, closed when the case ends. */
static void tcp_listener(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4_listen,
					  PORT, rtp_ep_alloc(test, 1)), 0);
}

/* An RDMA_PS_TCP id bound to the wildcard address on PORT: 0 or an errno. */
static int rdma_bind(struct kunit *test)
{
	return rtp_ep_open(test, &init_net, RDMA, &any4_listen, PORT,
			   rtp_ep_alloc(test, 1));
}

/*
 * Without the provider the rdma_cm is upstream's: an RDMA listener takes a
 * port a TCP listener holds (the collision this project closes).
 */
static void upstream_without_provider(struct kunit *test)
{
	tcp_listener(test);
	rdma_tcp_port_kunit_unregister();
	KUNIT_EXPECT_EQ(test, rdma_bind(test), 0);
}

/* The provider is what refuses that port, with TCP's errno. */
static void provider_refuses_tcp_port(struct kunit *test)
{
	tcp_listener(test);
	KUNIT_EXPECT_EQ(test, rdma_bind(test), -EADDRINUSE);
}

/* Only one provider at a time. */
static void one_provider_at_a_time(struct kunit *test)
{
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

static const struct rdma_cm_port_ops no_ops = { };

static const struct rdma_cm_port_ops no_release_port = {
	.get_port = declining_get_port,
};

static const struct rdma_cm_port_ops no_get_port = {
	.release_port = unexpected_release_port,
};

static const struct rdma_cm_port_ops declining = {
	.get_port = declining_get_port,
	.release_port = unexpected_release_port,
};

struct ops_case {
	const char *name;
	const struct rdma_cm_port_ops *ops;
};

static const struct ops_case incomplete_ops[] = {
	{ "ops=NULL", NULL },
	{ "ops={}", &no_ops },
	{ "no release_port", &no_release_port },
	{ "no get_port", &no_get_port },
};

KUNIT_ARRAY_PARAM_DESC(incomplete_ops, incomplete_ops, name);

/*
 * Registration requires get_port and release_port (listen is optional):
 * without them, EINVAL, and the rdma_cm has no provider still (registering
 * the module's then succeeds).
 */
static void registration_checks_ops(struct kunit *test)
{
	const struct ops_case *c = test->param_value;
	struct rdma_cm_port_provider bad = {
		.ops = c->ops, .owner = THIS_MODULE
	};

	rdma_tcp_port_kunit_unregister();
	KUNIT_EXPECT_EQ(test, rdma_cm_register_port_provider(&bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_register(), 0);
}

/*
 * In place of the module's provider, one that declines every id and counts
 * its calls in *@calls, its context; unregistered when the case ends.
 */
static int *register_declining(struct kunit *test)
{
	struct rdma_cm_port_provider *prov;
	int *calls;

	prov = kunit_kzalloc(test, sizeof(*prov), GFP_KERNEL);
	calls = kunit_kzalloc(test, sizeof(*calls), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, prov);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, calls);
	*prov = (struct rdma_cm_port_provider) {
		.ops = &declining, .owner = THIS_MODULE, .priv = calls,
	};
	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_provider(prov), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rtp_unregister_action,
							prov), 0);
	return calls;
}

/* A declined id keeps the rdma_cm's own port: it binds beside TCP's. */
static void declined_id_keeps_cma_port(struct kunit *test)
{
	register_declining(test);
	tcp_listener(test);
	KUNIT_EXPECT_EQ(test, rdma_bind(test), 0);
}

/* get_port is called once per bind, with its provider's context. */
static void provider_gets_its_context(struct kunit *test)
{
	int *calls = register_declining(test);

	KUNIT_ASSERT_EQ(test, rdma_bind(test), 0);
	KUNIT_EXPECT_EQ(test, *calls, 1);
}

/*
 * Values of the reserve parameter that leave a wildcard id to the rdma_cm's
 * table.  There is no iWARP device here, so "iwarp" does as "none" does.
 */
static const char * const reserve_left_to_cma[] = { "none", "iwarp" };

static void reserve_desc(const char * const *val, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "reserve=%s", *val);
}

KUNIT_ARRAY_PARAM(reserve_left, reserve_left_to_cma, reserve_desc);

/* Left to the rdma_cm, an id binds beside a TCP listener, as upstream. */
static void reserve_left_binds_beside_tcp(struct kunit *test)
{
	const char * const *val = test->param_value;

	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_reserve(*val), 0);
	tcp_listener(test);
	KUNIT_EXPECT_EQ(test, rdma_bind(test), 0);
}

/* Left to the rdma_cm, the port is in its table, whose errno refuses a second id. */
static void reserve_left_port_in_cma_table(struct kunit *test)
{
	const char * const *val = test->param_value;

	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_reserve(*val), 0);
	KUNIT_ASSERT_EQ(test, rdma_bind(test), 0);
	KUNIT_EXPECT_EQ(test, rdma_bind(test), -EADDRNOTAVAIL);
}

/* "all", as sysfs writes it (with a newline), holds a host port again. */
static void reserve_all_holds_host_port(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_reserve("none"), 0);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_reserve("all\n"), 0);
	tcp_listener(test);
	KUNIT_EXPECT_EQ(test, rdma_bind(test), -EADDRINUSE);
}

static const char * const reserve_unknown[] = { "bogus", "", "al" };

KUNIT_ARRAY_PARAM(reserve_unknown, reserve_unknown, reserve_desc);

/* An unknown value is refused and changes nothing ("none" stays). */
static void reserve_refuses_unknown(struct kunit *test)
{
	const char * const *val = test->param_value;

	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_reserve("none"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve(*val), -EINVAL);
	tcp_listener(test);
	KUNIT_EXPECT_EQ(test, rdma_bind(test), 0);
}

struct idr_case {
	bool on;
	int probe;	/* a bind while the provider is away */
};

/*
 * On, the rdma_cm's own table also records a held port: an id bound while
 * the provider is away gets the table's errno for an overlapping wildcard
 * bind.  Off, the table does not record it.
 */
static const struct idr_case idr_cases[] = {
	{ .on = true, .probe = -EADDRNOTAVAIL },
	{ .on = false, .probe = 0 },
};

static void idr_case_desc(const struct idr_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "idr=%s", c->on ? "on" : "off");
}

KUNIT_ARRAY_PARAM(idr, idr_cases, idr_case_desc);

static void idr_flag_records_port(struct kunit *test)
{
	const struct idr_case *c = test->param_value;

	rdma_tcp_port_kunit_set_idr(c->on);
	KUNIT_ASSERT_EQ(test, rdma_bind(test), 0);
	rdma_tcp_port_kunit_unregister();
	KUNIT_EXPECT_EQ(test, rdma_bind(test), c->probe);
}

/* Off, the host stack still holds the port. */
static void idr_off_host_holds_port(struct kunit *test)
{
	rdma_tcp_port_kunit_set_idr(false);
	KUNIT_ASSERT_EQ(test, rdma_bind(test), 0);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &any4_listen,
					  PORT, rtp_ep_alloc(test, 1)),
			-EADDRINUSE);
}

static struct kunit_case registration_cases[] = {
	KUNIT_CASE(upstream_without_provider),
	KUNIT_CASE(provider_refuses_tcp_port),
	KUNIT_CASE(one_provider_at_a_time),
	KUNIT_CASE_PARAM(registration_checks_ops, incomplete_ops_gen_params),
	KUNIT_CASE(declined_id_keeps_cma_port),
	KUNIT_CASE(provider_gets_its_context),
	KUNIT_CASE_PARAM(reserve_left_binds_beside_tcp, reserve_left_gen_params),
	KUNIT_CASE_PARAM(reserve_left_port_in_cma_table, reserve_left_gen_params),
	KUNIT_CASE(reserve_all_holds_host_port),
	KUNIT_CASE_PARAM(reserve_refuses_unknown, reserve_unknown_gen_params),
	KUNIT_CASE_PARAM(idr_flag_records_port, idr_gen_params),
	KUNIT_CASE(idr_off_host_holds_port),
	{}
};

static struct kunit_suite registration_suite = {
	.name = "rdma_tcp_port_registration",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = registration_cases,
};

kunit_test_suite(registration_suite);
