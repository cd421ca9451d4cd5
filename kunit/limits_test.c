// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rdma_tcp_port_limits: how many ports a user may hold.  The
 * user_share cap of a user without CAP_NET_ADMIN and its RLIMIT_NOFILE,
 * the person's cap (user.max_rdma_tcp_ports, counted over the uids that a
 * user's namespaces map), and the charge that follows each held socket.
 */

#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>

#include "rdma_tcp_port_kunit.h"
#include "rdma_tcp_port_test.h"

/*
 * Run as @uid without CAP_NET_ADMIN, the RLIMIT_NOFILE being @nofile, until
 * become_root().  The limit needs no deferred action: each test runs in a
 * kthread with a signal_struct of its own.
 */
static struct test_creds *become_user(struct kunit *test, uid_t uid,
				      unsigned long nofile)
{
	struct test_creds *creds = rtp_creds_prepare(test);
	struct cred *cred = creds->cred;

	cred->uid = KUIDT_INIT(uid);
	cred->euid = cred->uid;
	cred->fsuid = cred->uid;
	cap_lower(cred->cap_effective, CAP_NET_ADMIN);
	creds->nofile = current->signal->rlim[RLIMIT_NOFILE].rlim_cur;
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, nofile);
	rtp_creds_override(creds);
	return creds;
}

static void become_root(struct kunit *test, struct test_creds *creds)
{
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, creds->nofile);
	rtp_creds_revert(test, creds);
}

/* Binds port-0 ids in @net until one fails; returns how many bound. */
static int fill_ids(struct kunit *test, struct net *net, struct ep *eps,
		    int max, int *err)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	int n;

	for (n = 0; n < max; n++) {
		*err = rtp_ep_open(test, net, RDMA, &any4, 0, &eps[n]);
		if (*err)
			break;
	}
	return n;
}

/* A namespace whose ephemeral range is 100 ports: 5 % of it is 5. */
static struct net *range100_net(struct kunit *test)
{
	return rtp_small_range_net(test, 40000, 40099);
}

/* As uid 4242 without CAP_NET_ADMIN, bind up to 16 ids in @net. */
static int user_fill(struct kunit *test, struct net *net, int *err)
{
	struct test_creds *user = become_user(test, 4242, 1024);
	int n = fill_ids(test, net, rtp_ep_alloc(test, 16), 16, err);

	become_root(test, user);
	return n;
}

/*
 * The per-user cap: 5 % of a 100-port range is 5 ports for a user without
 * CAP_NET_ADMIN; then EMFILE.
 */
static void user_cap(struct kunit *test)
{
	int n, err;

	n = user_fill(test, range100_net(test), &err);
	kunit_info(test, "user without CAP_NET_ADMIN: %d ids in a 100-port range, then %pe\n",
		   n, ERR_PTR(err));
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, err, -EMFILE);
}

/* The user's TCP sockets are not held back by its RDMA ids. */
static void user_cap_leaves_tcp(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = range100_net(test);
	struct test_creds *user;
	int err, ret;

	KUNIT_ASSERT_EQ(test, user_fill(test, net, &err), 5);
	user = become_user(test, 4242, 1024);
	ret = rtp_ep_open(test, net, TCP, &any4, 0, rtp_ep_alloc(test, 1));
	become_root(test, user);
	KUNIT_EXPECT_EQ(test, ret, 0);
}

/*
 * Never more ports in all, over every namespace, than the RLIMIT_NOFILE:
 * with 5 held in one namespace, a limit of 3 refuses one in another.
 */
static void user_cap_nofile(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct test_creds *user;
	int err, ret;

	KUNIT_ASSERT_EQ(test, user_fill(test, range100_net(test), &err), 5);
	user = become_user(test, 4242, 3);
	ret = rtp_ep_open(test, &init_net, RDMA, &any4, 0, rtp_ep_alloc(test, 1));
	become_root(test, user);
	KUNIT_EXPECT_EQ(test, ret, -EMFILE);
}

/* CAP_NET_ADMIN over the namespace: not capped. */
static void user_cap_exempts_net_admin(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = range100_net(test);
	int err;

	KUNIT_ASSERT_EQ(test, user_fill(test, net, &err), 5);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0,
					  rtp_ep_alloc(test, 1)), 0);
}

/* Destroyed ids give their count back: the user binds 5 again. */
static void user_cap_counts_live_ids(struct kunit *test)
{
	struct net *net = range100_net(test);
	struct test_creds *user;
	struct ep *eps;
	int n, err, i;

	user = become_user(test, 4242, 1024);
	eps = rtp_ep_alloc(test, 16);
	n = fill_ids(test, net, eps, 16, &err);
	for (i = 0; i < n; i++)
		rtp_ep_close(test, &eps[i]);
	n = fill_ids(test, net, eps, 16, &err);
	become_root(test, user);
	KUNIT_EXPECT_EQ(test, n, 5);
}

/* user_share=0: no cap. */
static void user_share_zero_no_cap(struct kunit *test)
{
	int n, err;

	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	n = user_fill(test, range100_net(test), &err);
	KUNIT_EXPECT_EQ(test, n, 16);
}

static const char * const share_invalid[] = { "101", "-1", "5%", "", "1000" };

static void share_desc(const char * const *val, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "user_share=\"%s\"", *val);
}

KUNIT_ARRAY_PARAM(share_invalid, share_invalid, share_desc);

/* Anything but 0 to 100 is refused and changes nothing (0 stays). */
static void user_share_refuses_invalid(struct kunit *test)
{
	const char * const *val = test->param_value;
	int err;

	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share(*val), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_fill(test, range100_net(test), &err), 16);
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
	struct test_creds *creds = rtp_creds_prepare(test);
	struct cred *cred = creds->cred;

	put_user_ns(cred->user_ns);
	cred->user_ns = get_user_ns(ns);
	cred->uid = KUIDT_INIT(uid);
	cred->euid = cred->uid;
	cred->fsuid = cred->uid;
	creds->nofile = current->signal->rlim[RLIMIT_NOFILE].rlim_cur;
	rtp_creds_override(creds);
	return creds;
}

/* user.max_rdma_tcp_ports of the initial user namespace is 1411 by default. */
static void person_limit_default(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, init_user_ns.ucount_max[UCOUNT_RDMA_TCP_PORTS], 1411);
}

/*
 * That limit caps a user below its user_share (5 of a 100-port range): at
 * 3, three ids, then EMFILE.
 */
static void person_cap_initial_limit(struct kunit *test)
{
	int n, err;

	init_ports_max_set(test, 3);
	n = user_fill(test, range100_net(test), &err);
	kunit_info(test, "uid 4242 at a limit of 3: %d ids, then %pe\n",
		   n, ERR_PTR(err));
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, err, -EMFILE);
}

/* Root, with CAP_NET_ADMIN over the namespace, binds past the limit ... */
static void person_cap_exempts_net_admin(struct kunit *test)
{
	int err;

	init_ports_max_set(test, 3);
	KUNIT_EXPECT_EQ(test, fill_ids(test, range100_net(test),
				       rtp_ep_alloc(test, 4), 4, &err), 4);
}

/* ... and is charged nothing. */
static void person_charges_net_admin_nothing(struct kunit *test)
{
	long before = ports_charged(&init_user_ns, 0);
	int err;

	KUNIT_ASSERT_EQ(test, fill_ids(test, range100_net(test),
				       rtp_ep_alloc(test, 4), 4, &err), 4);
	KUNIT_EXPECT_EQ(test, ports_charged(&init_user_ns, 0), before);
}

/*
 * Binds as each of three uids that uid 4242 maps in a user namespace of
 * its own, whose user.max_rdma_tcp_ports is @ns_max, up to 8 ids each.
 * Returns how many bound in all; *@err is the errno each uid met last, or
 * the first that was not EMFILE; *@held, the ports charged to uid 4242.
 */
static int fill_subordinates(struct kunit *test, struct net *net, long ns_max,
			     int *err, long *held)
{
	const int per_uid = 8, nuids = 3;
	struct ep *eps = rtp_ep_alloc(test, per_uid * nuids);
	struct test_creds *owner, *sub;
	struct user_namespace *ns;
	int n = 0, i, e;

	owner = rtp_creds_prepare(test);
	owner->cred->uid = KUIDT_INIT(4242);
	owner->cred->euid = owner->cred->uid;
	owner->cred->fsuid = owner->cred->uid;
	KUNIT_ASSERT_EQ(test, create_user_ns(owner->cred), 0);
	ns = owner->cred->user_ns;
	WRITE_ONCE(ns->ucount_max[UCOUNT_RDMA_TCP_PORTS], ns_max);

	*err = -EMFILE;
	for (i = 0; i < nuids; i++) {
		sub = become_in_ns(test, ns, 100000 + i);
		n += fill_ids(test, net, &eps[i * per_uid], per_uid, &e);
		become_root(test, sub);
		if (e != -EMFILE && *err == -EMFILE)
			*err = e;
	}
	*held = ports_charged(&init_user_ns, 4242);
	return n;
}

/*
 * One user's uids in a user namespace of its own count against that user:
 * three uids that uid 4242 maps hold 4 ports in all at an initial limit of
 * 4, though each is below its own user_share (5 of a 100-port range).
 */
static void person_cap_counts_subordinate_uids(struct kunit *test)
{
	int n, err;
	long held;

	init_ports_max_set(test, 4);
	n = fill_subordinates(test, range100_net(test), 1411, &err, &held);
	kunit_info(test, "3 uids of uid 4242: %d ids at its limit of 4\n", n);
	KUNIT_EXPECT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, err, -EMFILE);
}

/* Their ports are charged to that user. */
static void person_charges_the_owner(struct kunit *test)
{
	int err;
	long held;

	init_ports_max_set(test, 4);
	fill_subordinates(test, range100_net(test), 1411, &err, &held);
	KUNIT_EXPECT_EQ(test, held, 4);
}

/* The user namespace's own limit, lower, applies to each uid in it: 2 each. */
static void person_cap_user_ns_limit(struct kunit *test)
{
	int n, err;
	long held;

	n = fill_subordinates(test, range100_net(test), 2, &err, &held);
	KUNIT_EXPECT_EQ(test, n, 6);
	KUNIT_EXPECT_EQ(test, err, -EMFILE);
}

/* One path by which an id may hold a port, and what it is charged. */
struct charge_case {
	const char *name;
	struct ep_spec spec;
	u16 port;
	int ret;
	long charged;
};

/* PORT has a TCP listener with SO_REUSEADDR: what a bind there meets. */
static const struct charge_case charge_cases[] = {
	{ "port 0", { .addr = ANY4, .v6only = -1 }, 0, 0, 1 },
	{ "IPv6 port", { .addr = ANY6, .v6only = 1 }, PORT + 1, 0, 1 },
	{ "reuse and listen",
	  { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  PORT + 2, 0, 1 },
	{ "refused", { .addr = ANY4, .v6only = -1 }, PORT, -EADDRINUSE, 0 },
	{ "refused, reuse and listen",
	  { .addr = ANY4, .reuse = true, .v6only = -1, .listen = true },
	  PORT, -EADDRINUSE, 0 },
};

KUNIT_ARRAY_PARAM_DESC(charge, charge_cases, name);

/*
 * The charge follows the held socket on every path KUnit reaches: one
 * port while the id holds it, none once it is destroyed or refused.
 */
static void person_charge_follows_socket(struct kunit *test)
{
	static const struct ep_spec reuse_listen = {
		.addr = ANY4, .reuse = true, .v6only = -1, .listen = true
	};
	const struct charge_case *c = test->param_value;
	struct ep *rdma = rtp_ep_alloc(test, 1);
	long before, held, after;
	struct test_creds *user;
	int ret;

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &reuse_listen, PORT,
					  rtp_ep_alloc(test, 1)), 0);
	before = ports_charged(&init_user_ns, 4243);
	user = become_user(test, 4243, 1024);
	ret = rtp_ep_open(test, &init_net, RDMA, &c->spec, c->port, rdma);
	held = ports_charged(&init_user_ns, 4243);
	rtp_ep_close(test, rdma);
	after = ports_charged(&init_user_ns, 4243);
	become_root(test, user);

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, held - before, c->charged);
	KUNIT_EXPECT_EQ(test, after, before);
}

/* user_share=0 (no cap) charges nothing. */
static void person_no_cap_charges_nothing(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct test_creds *user;
	long before, held;
	int ret;

	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	before = ports_charged(&init_user_ns, 4243);
	user = become_user(test, 4243, 1024);
	ret = rtp_ep_open(test, &init_net, RDMA, &any4, 0, rtp_ep_alloc(test, 1));
	held = ports_charged(&init_user_ns, 4243);
	become_root(test, user);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, held, before);
}

static struct kunit_case limits_cases[] = {
	KUNIT_CASE(user_cap),
	KUNIT_CASE(user_cap_leaves_tcp),
	KUNIT_CASE(user_cap_nofile),
	KUNIT_CASE(user_cap_exempts_net_admin),
	KUNIT_CASE(user_cap_counts_live_ids),
	KUNIT_CASE(user_share_zero_no_cap),
	KUNIT_CASE_PARAM(user_share_refuses_invalid, share_invalid_gen_params),
	KUNIT_CASE(person_limit_default),
	KUNIT_CASE(person_cap_initial_limit),
	KUNIT_CASE(person_cap_exempts_net_admin),
	KUNIT_CASE(person_charges_net_admin_nothing),
	KUNIT_CASE(person_cap_counts_subordinate_uids),
	KUNIT_CASE(person_charges_the_owner),
	KUNIT_CASE(person_cap_user_ns_limit),
	KUNIT_CASE_PARAM(person_charge_follows_socket, charge_gen_params),
	KUNIT_CASE(person_no_cap_charges_nothing),
	{}
};

static struct kunit_suite limits_suite = {
	.name = "rdma_tcp_port_limits",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = limits_cases,
};

kunit_test_suite(limits_suite);
