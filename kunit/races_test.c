// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rdma_tcp_port_races: one id under concurrent in-kernel
 * callers, with the orderings forced by a gate provider and then free
 * running; and a soak of 10^6 create/bind/destroy cycles (UML only).
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/percpu_counter.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/vmstat.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/rdma_cm.h>

#include "rdma_tcp_port_kunit.h"
#include "rdma_tcp_port_test.h"

/*
 * One id, several in-kernel callers.  ucma serializes the calls on an id
 * from user space; kernel callers need not, so the bind and the held
 * socket have one rule (rdma_id_private's bind_mutex): a listen or an
 * option while the id binds, listens or gives its port back is ordered
 * with it; a listen goes on only on a port the id holds, an option reaches
 * the held socket or is refused, and none touches a socket that is gone.
 *
 * A gate provider forces the orderings: it passes every call on to the
 * module's provider, and can stop in get_port (after the module bound the
 * socket, before the rdma_cm keeps it) or in release_port (before the
 * module closes it) until the test lets it go.
 */
struct gate {
	struct rdma_cm_port_provider prov;
	const struct rdma_cm_port_provider *real;
	bool stop_get, stop_release;	/* each stops one call */
	int fail_get;			/* get_port then gives its port back */
	struct completion entered, go;
};

static void gate_stop(struct gate *g)
{
	complete(&g->entered);
	wait_for_completion(&g->go);
}

static int gate_get_port(void *priv, struct rdma_cm_port_req *req,
			 struct socket **sock)
{
	struct gate *g = priv;
	int ret = g->real->ops->get_port(g->real->priv, req, sock);

	if (!g->stop_get)
		return ret;
	g->stop_get = false;
	gate_stop(g);
	if (ret || !g->fail_get)
		return ret;
	/* A bind that fails after the port was taken, as a provider's may */
	g->real->ops->release_port(g->real->priv, *sock);
	*sock = NULL;
	return g->fail_get;
}

static int gate_listen(void *priv, struct socket *sock)
{
	struct gate *g = priv;

	return g->real->ops->listen ?
	       g->real->ops->listen(g->real->priv, sock) : 0;
}

static void gate_release_port(void *priv, struct socket *sock)
{
	struct gate *g = priv;

	if (g->stop_release) {
		g->stop_release = false;
		gate_stop(g);
	}
	g->real->ops->release_port(g->real->priv, sock);
}

static const struct rdma_cm_port_ops gate_ops = {
	.get_port = gate_get_port,
	.listen = gate_listen,
	.release_port = gate_release_port,
};

/* The gate in the module's provider's place until the case ends. */
static struct gate *gate_install(struct kunit *test)
{
	struct gate *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	g->real = rdma_tcp_port_kunit_provider();
	g->prov = (struct rdma_cm_port_provider) {
		.ops = &gate_ops, .owner = THIS_MODULE, .priv = g,
	};
	init_completion(&g->entered);
	init_completion(&g->go);
	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, rdma_cm_register_port_provider(&g->prov), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rtp_unregister_action,
							&g->prov), 0);
	return g;
}

/* Until the provider stops in the gate; then the gate is ready again. */
static void gate_wait(struct kunit *test, struct gate *g)
{
	KUNIT_ASSERT_NE_MSG(test,
			    wait_for_completion_timeout(&g->entered, 30 * HZ),
			    0, "the provider was not called");
	reinit_completion(&g->entered);
}

static void gate_open(struct gate *g)
{
	complete(&g->go);
}

/* An rdma_cm call made by a kthread of its own. */
struct call {
	int (*fn)(struct call *c);
	struct rdma_cm_id *id;
	struct sockaddr_storage addr;
	int arg;
	int ret;
	struct completion *start;	/* waited for first, if set */
	bool stop;			/* ends a call that loops */
	int ok, refused;		/* a loop's results */
	struct completion done;
};

static int call_thread(void *data)
{
	struct call *c = data;

	if (c->start)
		wait_for_completion(c->start);
	c->ret = c->fn(c);
	kthread_complete_and_exit(&c->done, 0);
}

static struct call *call_new(struct kunit *test, int (*fn)(struct call *c),
			     struct rdma_cm_id *id)
{
	struct call *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	c->fn = fn;
	c->id = id;
	init_completion(&c->done);
	return c;
}

static void call_run(struct kunit *test, struct call *c)
{
	struct task_struct *t = kthread_run(call_thread, c, "rdma_tcp_call");

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
}

/* Whether @c is still running after 100 ms: it waits for a lock. */
static bool call_waits(struct call *c)
{
	msleep(100);
	return !completion_done(&c->done);
}

/*
 * @first runs until the provider stops in the gate, then @second runs;
 * the gate opens after 100 ms.  Whether @second was still waiting then.
 */
static bool call_while_gated(struct kunit *test, struct gate *g,
			     struct call *first, struct call *second)
{
	bool waited;

	call_run(test, first);
	gate_wait(test, g);
	call_run(test, second);
	waited = call_waits(second);
	gate_open(g);
	return waited;
}

static int call_wait(struct kunit *test, struct call *c)
{
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&c->done, 30 * HZ),
			    0, "an rdma_cm call did not return in 30 s");
	return c->ret;
}

static int do_bind(struct call *c)
{
	return rdma_bind_addr(c->id, (struct sockaddr *)&c->addr);
}

static int do_reuse(struct call *c)
{
	return rdma_set_reuseaddr(c->id, 1);
}

static int do_afonly(struct call *c)
{
	return rdma_set_afonly(c->id, 1);
}

/*
 * An option set while the provider takes the id's port waits for it, then
 * applies to the socket: reuse reaches it (a TCP socket with SO_REUSEADDR
 * joins the port), afonly is refused as IPV6_V6ONLY is once bound, and the
 * port stays dual-stack (a TCP socket on 0.0.0.0 is kept out).
 */
struct option_case {
	const char *name;
	int (*set)(struct call *c);
	enum ep_addr bind;	/* where the id binds */
	int ret;		/* what the option returns */
	struct ep_spec tcp;	/* a TCP socket on the port then ... */
	int tcp_ret;		/* ... and what its bind returns */
};

static const struct option_case option_cases[] = {
	{ "rdma_set_reuseaddr", do_reuse, ANY4, 0,
	  { .addr = ANY4, .reuse = true, .v6only = -1 }, 0 },
	{ "rdma_set_afonly", do_afonly, ANY6, -EINVAL,
	  { .addr = ANY4, .v6only = -1 }, -EADDRINUSE },
};

KUNIT_ARRAY_PARAM_DESC(option, option_cases, name);

static void option_waits_for_bind(struct kunit *test)
{
	const struct option_case *c = test->param_value;
	struct gate *g = gate_install(test);
	struct rdma_cm_id *id;
	struct call *bind, *opt;
	bool waited;

	g->stop_get = true;
	id = rtp_id_create(test, &init_net, RDMA_PS_TCP, IB_QPT_RC);
	bind = call_new(test, do_bind, id);
	opt = call_new(test, c->set, id);
	rtp_make_addr(c->bind, PORT, &bind->addr);
	waited = call_while_gated(test, g, bind, opt);
	KUNIT_ASSERT_EQ(test, call_wait(test, bind), 0);
	KUNIT_EXPECT_TRUE_MSG(test, waited,
			      "%s returned while the port was being taken", c->name);
	KUNIT_EXPECT_EQ(test, call_wait(test, opt), c->ret);
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &c->tcp, PORT,
					  rtp_ep_alloc(test, 1)),
			c->tcp_ret);
}

static int do_listen(struct call *c)
{
	return rdma_listen(c->id, 8);
}

/*
 * rdma_bind_addr() marks the id bound before it takes the port: an
 * rdma_listen() meanwhile waits for the bind, and listens on the port taken
 * or, if the bind failed, binds the id as for an unbound one (port 0).
 * Either way the port it listens on is held by the host stack.
 */
struct listen_case {
	const char *name;
	int fail;	/* what the bind returns */
};

static const struct listen_case listen_cases[] = {
	{ "bind takes the port", 0 },
	{ "bind fails", -EADDRINUSE },
};

KUNIT_ARRAY_PARAM_DESC(listen, listen_cases, name);

static void listen_waits_for_bind(struct kunit *test)
{
	static const struct ep_spec tcp4 = { .addr = ANY4, .v6only = -1 };
	const struct listen_case *c = test->param_value;
	struct gate *g = gate_install(test);
	struct ep *tcp = rtp_ep_alloc(test, 1);
	struct rdma_cm_id *id;
	struct call *bind, *listen;
	bool waited;
	u16 port;

	g->stop_get = true;
	g->fail_get = c->fail;
	id = rtp_id_create(test, &init_net, RDMA_PS_TCP, IB_QPT_RC);
	bind = call_new(test, do_bind, id);
	listen = call_new(test, do_listen, id);
	rtp_make_addr(ANY4, PORT, &bind->addr);
	waited = call_while_gated(test, g, bind, listen);
	KUNIT_EXPECT_EQ(test, call_wait(test, bind), c->fail);
	KUNIT_EXPECT_EQ(test, call_wait(test, listen), 0);
	KUNIT_EXPECT_TRUE_MSG(test, waited,
			      "rdma_listen() returned while the port was being taken");
	port = rtp_id_port(id);
	KUNIT_EXPECT_NE(test, port, 0);
	if (!c->fail)
		KUNIT_EXPECT_EQ(test, port, PORT);
	KUNIT_EXPECT_EQ_MSG(test, rtp_ep_open(test, &init_net, TCP, &tcp4, port, tcp),
			    -EADDRINUSE, "port %u listened on but not held", port);
	rtp_ep_close(test, tcp);
	rtp_id_destroy(test, id);
}

/*
 * The bind fails after the provider gave a socket: the rdma_cm's table
 * (idr on) has the port for an id bound before the provider came.  The
 * socket goes back while an option is set: the option waits, and finds no
 * socket; nothing is left of the bind.
 */
static void option_waits_for_release(struct kunit *test)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	static const struct ep_spec lo4 = { .addr = LO4, .v6only = -1 };
	struct ep *old = rtp_ep_alloc(test, 1), *tcp = rtp_ep_alloc(test, 1);
	struct rdma_cm_id *id;
	struct call *bind, *opt;
	struct gate *g;
	s64 before;
	bool waited;

	rdma_tcp_port_kunit_set_idr(true);
	rdma_tcp_port_kunit_unregister();
	KUNIT_ASSERT_EQ(test, rtp_ep_open(test, &init_net, RDMA, &any4, PORT, old), 0);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	g = gate_install(test);
	g->stop_release = true;

	before = percpu_counter_sum(&tcp_sockets_allocated);
	id = rtp_id_create(test, &init_net, RDMA_PS_TCP, IB_QPT_RC);
	bind = call_new(test, do_bind, id);
	opt = call_new(test, do_reuse, id);
	rtp_make_addr(LO4, PORT, &bind->addr);
	waited = call_while_gated(test, g, bind, opt);
	/* The rdma_cm's errno for a wildcard already in its table */
	KUNIT_EXPECT_EQ(test, call_wait(test, bind), -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, call_wait(test, opt), 0);
	KUNIT_EXPECT_TRUE_MSG(test, waited,
			      "rdma_set_reuseaddr() returned while the socket was going back");
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	/* The host stack never knew the old id's port; the new one's is free */
	KUNIT_EXPECT_EQ(test, rtp_ep_open(test, &init_net, TCP, &lo4, PORT, tcp), 0);
	rtp_ep_close(test, tcp);
	rtp_id_destroy(test, id);
	rtp_ep_close(test, old);
}

/*
 * Free-running: in each round one id is bound (port 0), bound and listened,
 * listened unbound, or resolved (which binds), while a second thread sets
 * reuse and afonly on it over and over; then it is destroyed.  Whatever the
 * order, the id's port ends held by the host stack (with reuse, for an id
 * that only binds: its reuse is accepted before the bind or after), it is
 * free once the id is gone, and lockdep and KASAN stay quiet.
 */
#define RACE_ROUNDS 400

enum race_op { RACE_BIND, RACE_BIND_LISTEN, RACE_LISTEN, RACE_RESOLVE };

static int do_race_op(struct call *c)
{
	struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_port = htons(7000),
		.sin_addr.s_addr = htonl(0xc0000201),	/* 192.0.2.1 */
	};
	enum race_op op = c->arg;
	int ret = 0;

	if (op == RACE_BIND || op == RACE_BIND_LISTEN)
		ret = rdma_bind_addr(c->id, (struct sockaddr *)&c->addr);
	if (!ret && (op == RACE_BIND_LISTEN || op == RACE_LISTEN))
		ret = rdma_listen(c->id, 8);
	if (op == RACE_RESOLVE)
		ret = rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst,
					100);
	return ret;
}

static int do_options(struct call *c)
{
	int i;

	/* At least one reuse and one afonly, however soon it is stopped */
	for (i = 0; i < 2 || !READ_ONCE(c->stop); i++) {
		int ret = i & 1 ? rdma_set_afonly(c->id, i & 2) :
				  rdma_set_reuseaddr(c->id, 1);

		if (ret)
			c->refused++;
		else
			c->ok++;
		cond_resched();
	}
	return 0;
}

static void one_id_races(struct kunit *test)
{
	static const struct ep_spec tcp_reuse = {
		.addr = ANY4, .reuse = true, .v6only = -1
	};
	static const struct ep_spec tcp4 = { .addr = ANY4, .v6only = -1 };
	struct ep *tcp = rtp_ep_alloc(test, 1);
	unsigned int opts = 0, refused = 0, failed = 0;
	struct completion *start;
	s64 before;
	int r;

	start = kunit_kzalloc(test, sizeof(*start), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, start);
	before = percpu_counter_sum(&tcp_sockets_allocated);
	for (r = 0; r < RACE_ROUNDS; r++) {
		enum race_op op = r % 4;
		struct rdma_cm_id *id = rtp_id_create(test, &init_net, RDMA_PS_TCP,
						  IB_QPT_RC);
		struct call *call = call_new(test, do_race_op, id);
		struct call *opt = call_new(test, do_options, id);
		int ret, got;
		u16 port;

		init_completion(start);
		call->start = start;
		opt->start = start;
		call->arg = op;
		rtp_make_addr(ANY4, 0, &call->addr);
		call_run(test, call);
		call_run(test, opt);
		complete_all(start);
		ret = call_wait(test, call);
		WRITE_ONCE(opt->stop, true);
		call_wait(test, opt);
		opts += opt->ok + opt->refused;
		refused += opt->refused;

		/* Resolving fails here (no route), after the id's bind */
		port = rtp_id_port(id);
		if (!port || (ret && op != RACE_RESOLVE)) {
			failed++;
			kunit_info(test, "round %d (op %d): %d, port %u\n", r,
				   op, ret, port);
		} else if (op == RACE_BIND) {
			/* A reuse was accepted before or after the bind */
			got = rtp_ep_open(test, &init_net, TCP, &tcp_reuse, port, tcp);
			KUNIT_EXPECT_EQ_MSG(test, got, 0,
					    "round %d: reuse did not reach the socket",
					    r);
		} else {
			got = rtp_ep_open(test, &init_net, TCP, &tcp4, port, tcp);
			KUNIT_EXPECT_EQ_MSG(test, got, -EADDRINUSE,
					    "round %d (op %d): port %u not held",
					    r, op, port);
		}
		rtp_ep_close(test, tcp);
		rtp_id_destroy(test, id);
		if (port) {
			got = rtp_ep_open(test, &init_net, TCP, &tcp4, port, tcp);
			KUNIT_EXPECT_EQ_MSG(test, got, 0,
					    "round %d: port %u kept after destroy",
					    r, port);
			rtp_ep_close(test, tcp);
		}
		/* Each round's calls are freed now, not at the test's end */
		kunit_kfree(test, call);
		kunit_kfree(test, opt);
	}
	kunit_info(test, "%d rounds, %u options set meanwhile (%u refused), %u rounds failed\n",
		   RACE_ROUNDS, opts, refused, failed);
	KUNIT_EXPECT_EQ(test, failed, 0U);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), before);
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks, "lockdep reported a problem");
}

#define SOAK_CYCLES 1000000

/* @n create/bind/destroy cycles, port 0 and @port alternately. */
static int soak_run(struct kunit *test, int n, u16 port)
{
	static const struct ep_spec any4 = { .addr = ANY4, .v6only = -1 };
	struct ep *ep = rtp_ep_alloc(test, 1);
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = rtp_ep_open(test, &init_net, RDMA, &any4, i & 1 ? port : 0, ep);
		if (ret)
			return ret;
		rtp_ep_close(test, ep);
		if (!(i % 1024))
			cond_resched();
	}
	return 0;
}

static unsigned long slab_bytes(void)
{
	return global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) << PAGE_SHIFT;
}

/*
 * A soak: 10^6 create/bind/destroy cycles with the provider, half at port
 * 0, half at an explicit port, leave the TCP sockets (struct tcp_sock) and
 * the sockets in use (socket inodes) exactly where they were.  The
 * unreclaimable slab is reported beside the same count of cycles without
 * the provider, not asserted: KASAN's quarantine moves it by megabytes
 * either way (kmemleak, in the VM suite, looks for leaked objects).  On
 * UML only: it runs at native speed there.
 */
static void soak(struct kunit *test)
{
	s64 tcp = percpu_counter_sum(&tcp_sockets_allocated);
	int inuse = sock_inuse_get(&init_net);
	long upstream, ours;
	unsigned long slab;
	ktime_t start;
	s64 ms;

	if (!IS_ENABLED(CONFIG_UML))
		kunit_skip(test, "10^6 cycles: UML only (native speed)");

	/* Warm the caches and the quarantine: their growth is bounded. */
	KUNIT_ASSERT_EQ(test, soak_run(test, SOAK_CYCLES / 10, PORT), 0);

	rdma_tcp_port_kunit_unregister();
	slab = slab_bytes();
	upstream = soak_run(test, SOAK_CYCLES / 4, PORT + 1);
	KUNIT_ASSERT_EQ(test, rdma_tcp_port_kunit_register(), 0);
	KUNIT_ASSERT_EQ(test, upstream, 0);
	upstream = (long)slab_bytes() - (long)slab;

	slab = slab_bytes();
	start = ktime_get();
	KUNIT_ASSERT_EQ(test, soak_run(test, SOAK_CYCLES, PORT), 0);
	ms = ktime_ms_delta(ktime_get(), start);
	ours = (long)slab_bytes() - (long)slab;

	kunit_info(test, "%d cycles with the provider in %lld ms: TCP sockets %lld -> %lld, in use %d -> %d, slab %+ld bytes (%d cycles without it: %+ld)\n",
		   SOAK_CYCLES, ms, tcp, percpu_counter_sum(&tcp_sockets_allocated),
		   inuse, sock_inuse_get(&init_net), ours, SOAK_CYCLES / 4,
		   upstream);
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&tcp_sockets_allocated), tcp);
	KUNIT_EXPECT_EQ(test, sock_inuse_get(&init_net), inuse);
}

static struct kunit_case races_cases[] = {
	KUNIT_CASE_PARAM(option_waits_for_bind, option_gen_params),
	KUNIT_CASE_PARAM(listen_waits_for_bind, listen_gen_params),
	KUNIT_CASE(option_waits_for_release),
	KUNIT_CASE_SLOW(one_id_races),
	KUNIT_CASE_SLOW(soak),
	{}
};

static struct kunit_suite races_suite = {
	.name = "rdma_tcp_port_races",
	.suite_init = rtp_suite_init,
	.init = rtp_test_init,
	.test_cases = races_cases,
};

kunit_test_suite(races_suite);
