/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of rdma_tcp_port share, defined in helpers.c:
 * endpoints that bind as a TCP socket or as an rdma_cm id would, network
 * namespaces, ids and credentials, each released by a KUnit deferred action
 * when a case ends early, and the .suite_init and .init of every suite.
 * The suites are built into the kernel: their shared names carry rtp_.
 */
#ifndef _RDMA_TCP_PORT_TEST_H
#define _RDMA_TCP_PORT_TEST_H

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/net.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

/* The port that cases bind explicitly (and PORT + 1, PORT + 2). */
#define PORT 20001

enum ep_kind { TCP, RDMA };

enum ep_addr { ANY4, LO4, ANY6, LO6, MAPPED4 };

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
 * one points at it, so endpoints live in KUnit's memory (rtp_ep_alloc()),
 * not on the stack of the test's thread, which a failed assertion ends.
 */
struct ep {
	struct socket *sock;
	struct rdma_cm_id *id;
};

/*
 * Credentials that the test's thread takes on for a while.  Deferred
 * actions run in a kthread of their own once the test's has ended, where
 * revert_creds() would change the wrong task: so rtp_creds_revert() runs
 * in the test, and creds_put() (helpers.c) only drops references.  A
 * thread that ended with its credentials overridden drops the override's
 * reference when its task is freed (exit_creds()), but not the one to its
 * own credentials that override_creds() handed over in @saved: creds_put()
 * drops that.
 */
struct test_creds {
	struct cred *cred;		/* from prepare_creds() */
	const struct cred *saved;	/* the thread's own, while overridden */
	unsigned long nofile;		/* the thread's RLIMIT_NOFILE before */
};

/* An address of @a with @port; returns its length. */
int rtp_make_addr(enum ep_addr a, u16 port, struct sockaddr_storage *ss);

struct ep *rtp_ep_alloc(struct kunit *test, size_t n);
int rtp_ep_open(struct kunit *test, struct net *net, enum ep_kind kind,
		const struct ep_spec *s, u16 port, struct ep *ep);
void rtp_ep_close(struct kunit *test, struct ep *ep);

struct net *rtp_net_new(struct kunit *test);
void rtp_net_put(struct kunit *test, struct net *net);
struct net *rtp_small_range_net(struct kunit *test, u16 low, u16 high);

struct rdma_cm_id *rtp_id_create(struct kunit *test, struct net *net,
				 enum rdma_ucm_port_space ps,
				 enum ib_qp_type qpt);
void rtp_id_destroy(struct kunit *test, struct rdma_cm_id *id);
u16 rtp_id_port(struct rdma_cm_id *id);

struct test_creds *rtp_creds_prepare(struct kunit *test);
void rtp_creds_override(struct test_creds *c);
void rtp_creds_revert(struct kunit *test, struct test_creds *c);

/* A deferred action that unregisters the provider @prov. */
void rtp_unregister_action(void *prov);

/* Every suite's .suite_init and .init. */
int rtp_suite_init(struct kunit_suite *suite);
int rtp_test_init(struct kunit *test);

#endif /* _RDMA_TCP_PORT_TEST_H */
