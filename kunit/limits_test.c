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

/*
 * The per-user cap: 5 % of a 100-port range is 5 ports for a user without
 * CAP_NET_ADMIN, and never more than its RLIMIT_NOFILE in all; then EMFILE.
 * TCP sockets and a CAP_NET_ADMIN caller are not held back, and destroyed
 * ids give their count back.
 */
static void user_cap(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct net *net = rtp_small_range_net(test, 40000, 40099);
	int n, n2, nfile, err, err2, errf, errn, i;
	struct ep *eps, *tcp, *root;
	struct test_creds *user;

	eps = rtp_ep_alloc(test, 16);
	tcp = rtp_ep_alloc(test, 1);
	root = rtp_ep_alloc(test, 1);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);

	user = become_user(test, 4242, 1024);
	n = fill_ids(test, net, eps, 16, &err);
	/* The user's TCP sockets are not held back by its RDMA ids. */
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, TCP, &any4, 0, tcp), 0);
	rtp_ep_close(test, tcp);
	/* A lower RLIMIT_NOFILE: nothing more, in any namespace. */
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, 3);
	errf = rtp_ep_open(test, &init_net, RDMA, &any4, 0, tcp);
	rtp_ep_close(test, tcp);
	WRITE_ONCE(current->signal->rlim[RLIMIT_NOFILE].rlim_cur, 1024);
	become_root(test, user);

	/* CAP_NET_ADMIN over the namespace: not capped. */
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, net, RDMA, &any4, 0, root), 0);
	rtp_ep_close(test, root);

	for (i = 0; i < n; i++)
		rtp_ep_close(test, &eps[i]);
	/* Destroyed ids are no longer counted. */
	user = become_user(test, 4242, 1024);
	n2 = fill_ids(test, net, eps, 16, &err2);
	for (i = 0; i < n2; i++)
		rtp_ep_close(test, &eps[i]);
	/* user_share=0: no cap. */
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	nfile = fill_ids(test, net, eps, 16, &errn);
	for (i = 0; i < nfile; i++)
		rtp_ep_close(test, &eps[i]);
	become_root(test, user);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("101"), -EINVAL);
	rtp_net_put(test, net);

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

/*
 * user.max_rdma_tcp_ports of the initial user namespace (1411 by default)
 * caps a user below its user_share (5 of a 100-port range): at 3, three
 * ids, then EMFILE.  Each held port is charged to the user while its id
 * lives.  Root, with CAP_NET_ADMIN over the namespace, is exempt: it binds
 * past the limit, and is charged nothing.
 */
static void person_cap_initial_limit(struct kunit *test)
{
	struct net *net = rtp_small_range_net(test, 40000, 40099);
	struct ep *eps = rtp_ep_alloc(test, 8), *root = rtp_ep_alloc(test, 4);
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
		rtp_ep_close(test, &eps[i]);
	after = ports_charged(&init_user_ns, 4242);

	root_before = ports_charged(&init_user_ns, 0);
	nroot = fill_ids(test, net, root, 4, &errroot);
	root_held = ports_charged(&init_user_ns, 0);
	for (i = 0; i < nroot; i++)
		rtp_ep_close(test, &root[i]);
	root_after = ports_charged(&init_user_ns, 0);
	rtp_net_put(test, net);

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
	struct net *net = rtp_small_range_net(test, 40000, 40099);
	const int per_uid = 8, nuids = 3;
	struct ep *eps = rtp_ep_alloc(test, per_uid * nuids);
	int n[2] = { 0, 0 }, err[2][3], round, i, j, got;
	struct test_creds *owner, *sub;
	struct user_namespace *ns;
	long held[2], after;

	init_ports_max_set(test, 4);
	owner = rtp_creds_prepare(test);
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
			rtp_ep_close(test, &eps[j]);
	}
	after = ports_charged(&init_user_ns, 4242);
	rtp_net_put(test, net);

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
	struct ep *eps = rtp_ep_alloc(test, 4), *tcp = rtp_ep_alloc(test, 1);
	struct test_creds *user;
	int ret[6], i;
	long c[7];

	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, TCP, &reuse_listen, PORT, tcp), 0);
	user = become_user(test, 4243, 1024);
	ret[0] = rtp_ep_open(test, &init_net, RDMA, &any4, 0, &eps[0]);
	c[0] = ports_charged(&init_user_ns, 4243);
	ret[1] = rtp_ep_open(test, &init_net, RDMA, &any6, PORT + 1, &eps[1]);
	c[1] = ports_charged(&init_user_ns, 4243);
	ret[2] = rtp_ep_open(test, &init_net, RDMA, &reuse_listen, PORT + 2, &eps[2]);
	c[2] = ports_charged(&init_user_ns, 4243);
	ret[3] = rtp_ep_open(test, &init_net, RDMA, &any4, PORT, &eps[3]);
	c[3] = ports_charged(&init_user_ns, 4243);
	ret[4] = rtp_ep_open(test, &init_net, RDMA, &reuse_listen, PORT, &eps[3]);
	c[4] = ports_charged(&init_user_ns, 4243);
	for (i = 0; i < 3; i++)
		rtp_ep_close(test, &eps[i]);
	c[5] = ports_charged(&init_user_ns, 4243);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("0"), 0);
	ret[5] = rtp_ep_open(test, &init_net, RDMA, &any4, 0, &eps[0]);
	c[6] = ports_charged(&init_user_ns, 4243);
	rtp_ep_close(test, &eps[0]);
	become_root(test, user);
	rtp_ep_close(test, tcp);

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

static struct kunit_case limits_cases[] = {
	KUNIT_CASE(user_cap),
	KUNIT_CASE(person_cap_initial_limit),
	KUNIT_CASE(person_cap_subordinate_uids),
	KUNIT_CASE(person_charge_balanced),
	{}
};

static struct kunit_suite limits_suite = {
	.name = "rdma_tcp_port_limits",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = limits_cases,
};

kunit_test_suite(limits_suite);
