// SPDX-License-Identifier: GPL-2.0
/*
 * What the KUnit suites of rdma_tcp_port share (rdma_tcp_port_test.h).
 *
 * A case that ends early, on a failed assertion, leaves nothing behind for
 * the next: its endpoints, ids, namespaces and credentials are released by
 * KUnit deferred actions, and every suite's .init defers putting the
 * provider back as the module starts it (registered, default parameters).
 */

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/user_namespace.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_kunit.h"
#include "rdma_tcp_port_test.h"

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	return 0;
}

int rtp_make_addr(enum ep_addr a, u16 port, struct sockaddr_storage *ss)
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

/* @n closed endpoints, freed when the test ends. */
struct ep *rtp_ep_alloc(struct kunit *test, size_t n)
{
	struct ep *eps = kunit_kcalloc(test, n, sizeof(*eps), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eps);
	return eps;
}

static void ep_release(struct ep *ep)
{
	if (ep->id)
		rdma_destroy_id(ep->id);
	if (ep->sock)
		sock_release(ep->sock);
	ep->id = NULL;
	ep->sock = NULL;
}

KUNIT_DEFINE_ACTION_WRAPPER(ep_release_action, ep_release, struct ep *);

/*
 * Bind (and listen) as @kind would; returns 0 or the errno it met.  An
 * endpoint that fails is closed already; one that opens is closed by
 * rtp_ep_close(), or when the test ends, whichever comes first.
 */
int rtp_ep_open(struct kunit *test, struct net *net, enum ep_kind kind,
		const struct ep_spec *s, u16 port, struct ep *ep)
{
	struct sockaddr_storage ss;
	int len = rtp_make_addr(s->addr, port, &ss);
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
	if (ret) {
		ep_release(ep);
		return ret;
	}
	/* If the action cannot be deferred, @ep is closed and this fails. */
	return kunit_add_action_or_reset(test, ep_release_action, ep);
}

/* Close @ep now; nothing if it is not open. */
void rtp_ep_close(struct kunit *test, struct ep *ep)
{
	kunit_release_action(test, ep_release_action, ep);
}

KUNIT_DEFINE_ACTION_WRAPPER(put_net_action, put_net, struct net *);

/*
 * A new network namespace, put by rtp_net_put() or when the test ends.
 * Kernel sockets hold no reference to their namespace: create it before the
 * endpoints in it, so that the test's end closes them first.
 */
struct net *rtp_net_new(struct kunit *test)
{
	struct net *net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, put_net_action, net), 0);
	return net;
}

void rtp_net_put(struct kunit *test, struct net *net)
{
	kunit_release_action(test, put_net_action, net);
}

/* A new namespace whose ip_local_port_range is @low to @high. */
struct net *rtp_small_range_net(struct kunit *test, u16 low, u16 high)
{
	struct net *net = rtp_net_new(test);

	WRITE_ONCE(net->ipv4.ip_local_ports.range, (u32)high << 16 | low);
	return net;
}

KUNIT_DEFINE_ACTION_WRAPPER(destroy_id_action, rdma_destroy_id,
			    struct rdma_cm_id *);

/* An rdma_cm id, destroyed by rtp_id_destroy() or when the test ends. */
struct rdma_cm_id *rtp_id_create(struct kunit *test, struct net *net,
				 enum rdma_ucm_port_space ps,
				 enum ib_qp_type qpt)
{
	struct rdma_cm_id *id = rdma_create_id(net, cm_handler, NULL, ps, qpt);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, destroy_id_action, id), 0);
	return id;
}

void rtp_id_destroy(struct kunit *test, struct rdma_cm_id *id)
{
	kunit_release_action(test, destroy_id_action, id);
}

/* The port of @id's source address, an IPv4 or IPv6 one alike. */
u16 rtp_id_port(struct rdma_cm_id *id)
{
	return ntohs(((struct sockaddr_in *)&id->route.addr.src_addr)->sin_port);
}

static void creds_put(struct test_creds *c)
{
	if (c->saved)
		put_cred(c->saved);
	put_cred(c->cred);
}

KUNIT_DEFINE_ACTION_WRAPPER(creds_put_action, creds_put, struct test_creds *);

/* A copy of the test's credentials, to change and then take on. */
struct test_creds *rtp_creds_prepare(struct kunit *test)
{
	struct test_creds *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	c->cred = prepare_creds();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->cred);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, creds_put_action, c), 0);
	return c;
}

void rtp_creds_override(struct test_creds *c)
{
	c->saved = override_creds(c->cred);
}

/* Back to the test's own credentials, dropping @c's. */
void rtp_creds_revert(struct kunit *test, struct test_creds *c)
{
	revert_creds(c->saved);
	c->saved = NULL;
	kunit_release_action(test, creds_put_action, c);
}

void rtp_unregister_action(void *prov)
{
	rdma_cm_unregister_port_provider(prov);
}

/*
 * What a case may change of the provider, put back when it ends, passed or
 * not: registered (-EBUSY: it still is), idr on, reserve "all" and
 * user_share 5, the module's defaults (src/param.rs).  It runs after the
 * case's own deferred actions, once its endpoints are closed.
 */
static void provider_defaults(struct kunit *test)
{
	int ret = rdma_tcp_port_kunit_register();

	KUNIT_EXPECT_TRUE_MSG(test, !ret || ret == -EBUSY,
			      "registering the provider again: %pe",
			      ERR_PTR(ret));
	rdma_tcp_port_kunit_set_idr(true);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_reserve("all"), 0);
	KUNIT_EXPECT_EQ(test, rdma_tcp_port_kunit_set_user_share("5"), 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(provider_defaults_action, provider_defaults,
			    struct kunit *);

/*
 * Before each case (and each scenario): defer putting the provider back,
 * so that a case that ends early leaves it as the next one expects.
 */
int rtp_test_init(struct kunit *test)
{
	return kunit_add_action_or_reset(test, provider_defaults_action, test);
}

/* Nothing brings lo up in a KUnit kernel; the scenarios bind 127.0.0.1. */
int rtp_suite_init(struct kunit_suite *suite)
{
	int ret;

	rtnl_lock();
	ret = dev_open(init_net.loopback_dev, NULL);
	rtnl_unlock();
	return ret;
}

MODULE_DESCRIPTION("KUnit tests for rdma_tcp_port");
MODULE_LICENSE("GPL");
