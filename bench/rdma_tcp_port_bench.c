// SPDX-License-Identifier: GPL-2.0
/*
 * `make bench`: what holding RDMA_PS_TCP ports in the host TCP stack costs.
 *
 * A KUnit suite, built only into the benchmark kernel (bench/.kunitconfig:
 * no lockdep, no KASAN), that times real rdma_cm ids and real TCP sockets
 * and prints each figure as a "BENCH <name> key=value..." line, which
 * bench/report.py turns into the results table and plots.  The figures are
 * not asserted; a case fails only if an operation it times fails.
 *
 * The variants, switched between repetitions so that each repetition times
 * all of them back to back, in an order that turns from one repetition to
 * the next (report.py divides them within each repetition):
 *   upstream      no provider: the rdma_cm's own port table
 *   module        the Rust provider, idr=1 (its default)
 *   module_noidr  the Rust provider, idr=0
 *   seed_c        the RFC's approach in C (seed_provider.c)
 *   twin_c        the module's work in C (twin_provider.c): Rust against C
 *                 on the same work
 *   floor         a bare TCP socket: sock_create_kern, kernel_bind,
 *                 sock_release, and no rdma_cm id at all
 *   combined      upstream's operation and then floor's, as one: the work
 *                 of upstream + floor timed together, which costs more than
 *                 the sum of the two timed apart (report.py shows by how much)
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/mmzone.h>
#include <linux/net.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmstat.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/rdma_cm.h>

#include "../kunit/rdma_tcp_port_kunit.h"
#include "seed_provider.h"
#include "twin_provider.h"

enum variant {
	UPSTREAM, MODULE, MODULE_NOIDR, SEED_C, TWIN_C, FLOOR, COMBINED,
	NR_VARIANTS
};

static const char * const variant_name[] = {
	"upstream", "module", "module_noidr", "seed_c", "twin_c", "floor",
	"combined"
};

/*
 * Per port, REPS * NR_VARIANTS * OPS_PER_REP operations: 45 s at 50 us per
 * operation (a slow TCG guest), well inside KUnit's 300 s per case.
 */
#define OPS_PER_REP	500
#define REPS		301		/* after one warm-up repetition */
#define FIXED_PORT	20000		/* below the ephemeral range */
#define MEM_IDS		10000
#define MT_OPS		2000		/* per thread */
#define MT_REPS		21

/* Install the provider that @v runs with (none for upstream, floor, combined). */
static int use_variant(enum variant v)
{
	rdma_tcp_port_kunit_unregister();
	rdma_cm_unregister_port_provider(&seed_port_provider);
	rdma_cm_unregister_port_provider(&twin_port_provider);
	switch (v) {
	case MODULE:
	case MODULE_NOIDR:
		rdma_tcp_port_kunit_set_idr(v == MODULE);
		return rdma_tcp_port_kunit_register();
	case SEED_C:
		return rdma_cm_register_port_provider(&seed_port_provider);
	case TWIN_C:
		return rdma_cm_register_port_provider(&twin_port_provider);
	default:
		return 0;
	}
}

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	return 0;
}

static struct sockaddr_in any4(u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};

	return sin;
}

static struct rdma_cm_id *new_id(void)
{
	return rdma_create_id(&init_net, cm_handler, NULL, RDMA_PS_TCP,
			      IB_QPT_RC);
}

/* One id's life: create, bind to 0.0.0.0:@port, destroy. */
static int rdma_op(u16 port)
{
	struct sockaddr_in sin = any4(port);
	struct rdma_cm_id *id = new_id();
	int ret;

	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	rdma_destroy_id(id);
	return ret;
}

/* The least a socket-based reservation can cost. */
static int floor_op(u16 port)
{
	struct sockaddr_in sin = any4(port);
	struct socket *sock;
	int ret;

	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret)
		return ret;
	ret = kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
	sock_release(sock);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Median of @v[0..@n), sorted in place; 0 for none. */
static u64 median(u64 *v, int n)
{
	if (n <= 0)
		return 0;
	sort(v, n, sizeof(*v), cmp_u64, NULL);
	return v[n / 2];
}

/*
 * The variant timed @i-th in repetition @rep: the order turns by one place
 * from one repetition to the next and runs backwards every other round of
 * NR_VARIANTS repetitions, so that each variant is timed in every place and
 * after each of its neighbours.  The warm-up (@rep < 0) runs them in order.
 */
static enum variant rep_variant(int rep, int i)
{
	if (rep < 0)
		return i;
	if ((rep / NR_VARIANTS) % 2)
		i = NR_VARIANTS - 1 - i;
	return (rep + i) % NR_VARIANTS;
}

/*
 * Per-operation cost: in each repetition every variant does OPS_PER_REP
 * operations back to back, and the repetition is printed as one line, from
 * which report.py takes the paired ratios; then each variant's median.
 */
static void per_op_port(struct kunit *test, u16 port)
{
	const char *port_name = port ? "fixed" : "0";
	u64 (*ns)[REPS];
	int rep, v, i, op, ret;

	ns = kunit_kcalloc(test, NR_VARIANTS, sizeof(*ns), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ns);
	for (rep = -1; rep < REPS; rep++) {
		char order[96];
		int len = 0;

		for (i = 0; i < NR_VARIANTS; i++) {
			u64 t0;

			v = rep_variant(rep, i);
			len += scnprintf(order + len, sizeof(order) - len, "%s%s",
					 i ? "," : "", variant_name[v]);
			KUNIT_ASSERT_EQ(test, use_variant(v), 0);
			t0 = ktime_get_ns();
			for (op = 0; op < OPS_PER_REP; op++) {
				ret = v == FLOOR ? floor_op(port) : rdma_op(port);
				if (!ret && v == COMBINED)
					ret = floor_op(port);
				KUNIT_ASSERT_EQ(test, ret, 0);
			}
			if (rep >= 0)
				ns[v][rep] = div_u64(ktime_get_ns() - t0,
						     OPS_PER_REP);
		}
		if (rep < 0)
			continue;
		kunit_info(test,
			   "BENCH per_op_rep port=%s rep=%d upstream=%llu module=%llu module_noidr=%llu seed_c=%llu twin_c=%llu floor=%llu combined=%llu order=%s\n",
			   port_name, rep, ns[UPSTREAM][rep], ns[MODULE][rep],
			   ns[MODULE_NOIDR][rep], ns[SEED_C][rep], ns[TWIN_C][rep],
			   ns[FLOOR][rep], ns[COMBINED][rep], order);
	}
	for (v = 0; v < NR_VARIANTS; v++) {
		u64 med = median(ns[v], REPS);

		kunit_info(test,
			   "BENCH per_op port=%s variant=%s median_ns=%llu min_ns=%llu max_ns=%llu reps=%d ops=%d\n",
			   port_name, variant_name[v], med,
			   ns[v][0], ns[v][REPS - 1], REPS, OPS_PER_REP);
	}
}

/* Two cases, so that each has KUnit's 300 s to itself. */
static void per_op_port0(struct kunit *test)
{
	per_op_port(test, 0);
}

static void per_op_fixed(struct kunit *test)
{
	per_op_port(test, FIXED_PORT);
}

/* Slab memory in bytes, per-CPU deltas included. */
static long slab_bytes(void)
{
	static const enum node_stat_item items[] = {
		NR_SLAB_RECLAIMABLE_B, NR_SLAB_UNRECLAIMABLE_B
	};
	struct pglist_data *pgdat;
	long pages = 0;
	int i, cpu;

	for_each_online_pgdat(pgdat) {
		for (i = 0; i < ARRAY_SIZE(items); i++) {
			pages += atomic_long_read(&pgdat->vm_stat[items[i]]);
			for_each_online_cpu(cpu)
				pages += per_cpu_ptr(pgdat->per_cpu_nodestats,
						     cpu)->vm_node_stat_diff[items[i]];
		}
	}
	return pages << PAGE_SHIFT;
}

/*
 * Slab memory per held id: MEM_IDS ids bound to port 0 at once.  Upstream's
 * figure is the id and its bind_list; the others add their reservation.
 */
static void slab_per_id(struct kunit *test)
{
	struct rdma_cm_id **ids;
	int v, i;

	ids = kvcalloc(MEM_IDS, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	for (v = 0; v < FLOOR; v++) {
		struct sockaddr_in sin = any4(0);
		long before, held;

		KUNIT_ASSERT_EQ(test, use_variant(v), 0);
		/*
		 * Sockets and their inodes are freed after an RCU grace
		 * period: let the previous variant's go before counting.
		 */
		rcu_barrier();
		before = slab_bytes();
		for (i = 0; i < MEM_IDS; i++) {
			ids[i] = new_id();
			if (IS_ERR(ids[i]))
				break;
			if (rdma_bind_addr(ids[i], (struct sockaddr *)&sin)) {
				rdma_destroy_id(ids[i]);
				break;
			}
		}
		held = slab_bytes();
		KUNIT_EXPECT_EQ(test, i, MEM_IDS);
		while (i--)
			rdma_destroy_id(ids[i]);
		kunit_info(test, "BENCH memory variant=%s ids=%d bytes_per_id=%ld\n",
			   variant_name[v], MEM_IDS, (held - before) / MEM_IDS);
	}
	kvfree(ids);
	kunit_info(test, "BENCH objsize tcp_sock=%u socket_alloc=%zu\n",
		   kmem_cache_size(tcp_prot.slab), sizeof(struct socket_alloc));
}

/*
 * Filling the ephemeral range: ports are bound to port 0 until the range is
 * exhausted, each bind timed, and the k-th bind's cost is reported against k
 * in 100 buckets of the range.  KUnit gives each case 300 s, which the host
 * allocator's scans near the end exceed under TCG, so the fill runs as the
 * steps of a parameterised case, what is bound kept here from one step to
 * the next.  The curves:
 *   upstream      RDMA ids, no provider: the rdma_cm's rover
 *   module        RDMA ids, the Rust provider
 *   host          plain kernel TCP sockets, kernel_bind() alone timed: the
 *                 host's own bind(0) search, which the module used to follow
 *   module_mixed  half the range first taken by plain sockets bound to port
 *                 0 (as a busy host's clients hold them; not reported), then
 *                 RDMA ids with the Rust provider: the curve starts at 50 %
 */
enum fill_curve { FILL_UPSTREAM, FILL_MODULE, FILL_HOST, FILL_MIXED };

static const struct fill_kind {
	const char *name;
	enum variant v;		/* who gives the RDMA ids their port */
	bool plain;		/* plain sockets only, all timed */
	int plain_permille;	/* share first taken by plain sockets */
} fill_kinds[] = {
	[FILL_UPSTREAM] = { .name = "upstream", .v = UPSTREAM },
	[FILL_MODULE] = { .name = "module", .v = MODULE },
	[FILL_HOST] = { .name = "host", .v = FLOOR, .plain = true },
	[FILL_MIXED] = { .name = "module_mixed", .v = MODULE,
			 .plain_permille = 500 },
};

/* Binds tried past the end of the range, the first one included. */
#define FILL_FAIL_TRIES	9

static struct {
	struct rdma_cm_id **ids;
	struct socket **socks;
	u64 *ns;		/* bind times, by place in the range */
	int range, bound, nids, nsocks;
	int plain_upto;		/* the first binds, by plain sockets */
	int timed_from;		/* the first bind reported */
	int err, fails;
	u64 fail_ns[FILL_FAIL_TRIES];
} fill_st;

/*
 * Share of the range bound by the end of each step, per mille; 1001: the
 * binds past the range, then the report.
 */
static const int fill_steps[] = {
	500, 550, 600, 650, 700, 750, 800, 850, 900, 950, 1000, 1001
};

static void fill_step_desc(const int *step, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "to %d per mille", *step);
}

KUNIT_ARRAY_PARAM(fill, fill_steps, fill_step_desc);

/* Median of @n bind times from @v, through @tmp: @v keeps its order. */
static u64 median_of(const u64 *v, int n, u64 *tmp)
{
	if (n <= 0)
		return 0;
	memcpy(tmp, v, n * sizeof(*v));
	return median(tmp, n);
}

/*
 * One bind to port 0, timed into *@t: a plain socket, kept in fill_st.socks,
 * or an RDMA id, kept in fill_st.ids.  On failure nothing is kept.
 */
static int fill_bind(bool plain, u64 *t)
{
	struct sockaddr_in sin = any4(0);
	struct rdma_cm_id *id;
	struct socket *sock;
	int ret;

	*t = 0;
	if (plain) {
		ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
				       IPPROTO_TCP, &sock);
		if (ret)
			return ret;
		*t = ktime_get_ns();
		ret = kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
		*t = ktime_get_ns() - *t;
		if (ret)
			sock_release(sock);
		else
			fill_st.socks[fill_st.nsocks++] = sock;
		return ret;
	}
	id = new_id();
	if (IS_ERR(id))
		return PTR_ERR(id);
	*t = ktime_get_ns();
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	*t = ktime_get_ns() - *t;
	if (ret)
		rdma_destroy_id(id);
	else
		fill_st.ids[fill_st.nids++] = id;
	return ret;
}

static void fill_report(struct kunit *test, const struct fill_kind *kind)
{
	int b, range = fill_st.range, bound = fill_st.bound;
	int from, to, first_n, at99_from, at99_to;
	u64 first, at99, fail;
	u64 *tmp;

	tmp = kunit_kmalloc_array(test, range + FILL_FAIL_TRIES, sizeof(*tmp),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	fail = median_of(fill_st.fail_ns, fill_st.fails, tmp);
	kunit_info(test,
		   "BENCH fill_end variant=%s range=%d bound=%d ids=%d socks=%d timed_from=%d errno=%d fail_ns=%llu fail_min_ns=%llu fail_max_ns=%llu fail_tries=%d\n",
		   kind->name, range, bound, fill_st.nids, fill_st.nsocks,
		   fill_st.timed_from, -fill_st.err, fail,
		   fill_st.fails ? tmp[0] : 0,
		   fill_st.fails ? tmp[fill_st.fails - 1] : 0, fill_st.fails);
	/* The first 1 % of the range's binds that are timed. */
	first_n = min(max(range / 100, 1), bound - fill_st.timed_from);
	first = median_of(fill_st.ns + fill_st.timed_from, first_n, tmp);
	/* The bind at 99 % full: the median of those from 98.5 % to 99.5 %. */
	at99_from = max(range * 985 / 1000, fill_st.timed_from);
	at99_to = min(bound, range * 995 / 1000);
	at99 = median_of(fill_st.ns + at99_from, at99_to - at99_from, tmp);
	for (b = 0; b < 100; b++) {
		from = max(range * b / 100, fill_st.timed_from);
		to = min(bound, range * (b + 1) / 100);
		if (to <= from)
			continue;
		kunit_info(test, "BENCH fill variant=%s bucket=%d median_ns=%llu\n",
			   kind->name, b,
			   median_of(fill_st.ns + from, to - from, tmp));
	}
	kunit_info(test, "BENCH fill_first variant=%s from=%d n=%d median_ns=%llu\n",
		   kind->name, fill_st.timed_from, max(first_n, 0), first);
	kunit_info(test, "BENCH fill_at99 variant=%s from=%d n=%d median_ns=%llu\n",
		   kind->name, at99_from, max(at99_to - at99_from, 0), at99);
	kunit_kfree(test, tmp);
}

static void fill_free(void)
{
	while (fill_st.nids > 0)
		rdma_destroy_id(fill_st.ids[--fill_st.nids]);
	while (fill_st.nsocks > 0)
		sock_release(fill_st.socks[--fill_st.nsocks]);
	kvfree(fill_st.ns);
	kvfree(fill_st.socks);
	kvfree(fill_st.ids);
	memset(&fill_st, 0, sizeof(fill_st));
}

static void fill_start(struct kunit *test, const struct fill_kind *kind)
{
	int low, high, n;

	fill_free();
	inet_get_local_port_range(&init_net, &low, &high);
	fill_st.range = high - low + 1;
	/* The range, and the binds past it that succeed against all odds. */
	n = fill_st.range + FILL_FAIL_TRIES;
	fill_st.ids = kvcalloc(n, sizeof(*fill_st.ids), GFP_KERNEL);
	fill_st.socks = kvcalloc(n, sizeof(*fill_st.socks), GFP_KERNEL);
	fill_st.ns = kvcalloc(n, sizeof(*fill_st.ns), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fill_st.ids);
	KUNIT_ASSERT_NOT_NULL(test, fill_st.socks);
	KUNIT_ASSERT_NOT_NULL(test, fill_st.ns);
	fill_st.plain_upto = kind->plain ? n :
			     fill_st.range * kind->plain_permille / 1000;
	fill_st.timed_from = kind->plain ? 0 : fill_st.plain_upto;
	KUNIT_ASSERT_EQ(test, use_variant(kind->v), 0);
}

static void fill_variant(struct kunit *test, enum fill_curve curve)
{
	const struct fill_kind *kind = &fill_kinds[curve];
	const int *step = test->param_value;
	int target, ret;
	u64 t;

	if (step == fill_steps)
		fill_start(test, kind);
	KUNIT_ASSERT_NOT_NULL(test, fill_st.ids);
	target = *step > 1000 ? fill_st.range + 1 : fill_st.range * *step / 1000;
	while (!fill_st.err && fill_st.bound < target) {
		ret = fill_bind(fill_st.bound < fill_st.plain_upto, &t);
		if (ret) {
			fill_st.err = ret;
			fill_st.fail_ns[fill_st.fails++] = t;
			break;
		}
		fill_st.ns[fill_st.bound++] = t;
		cond_resched();
	}
	if (*step <= 1000)
		return;
	/*
	 * The bind after the last free port, again: one failing bind is timed
	 * here FILL_FAIL_TRIES times in all, and the report gives the median.
	 */
	while (fill_st.err && fill_st.fails < FILL_FAIL_TRIES) {
		ret = fill_bind(fill_st.bound < fill_st.plain_upto, &t);
		KUNIT_EXPECT_NE(test, ret, 0);
		if (!ret) {
			fill_st.bound++;
			break;
		}
		fill_st.fail_ns[fill_st.fails++] = t;
	}
	KUNIT_EXPECT_GT(test, fill_st.bound, fill_st.timed_from);
	fill_report(test, kind);
	fill_free();
}

static void fill_upstream(struct kunit *test)
{
	fill_variant(test, FILL_UPSTREAM);
}

static void fill_module(struct kunit *test)
{
	fill_variant(test, FILL_MODULE);
}

static void fill_host(struct kunit *test)
{
	fill_variant(test, FILL_HOST);
}

static void fill_module_mixed(struct kunit *test)
{
	fill_variant(test, FILL_MIXED);
}

struct worker {
	struct completion done;
	int ret;
};

static int worker_fn(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < MT_OPS && !w->ret; i++)
		w->ret = rdma_op(0);
	complete(&w->done);
	return 0;
}

/* Wall time for @n threads, one per CPU, each doing MT_OPS ids. */
static u64 run_threads(struct kunit *test, int n)
{
	struct worker w[2];
	struct task_struct *t[2];
	u64 t0;
	int i;

	for (i = 0; i < n; i++) {
		init_completion(&w[i].done);
		w[i].ret = 0;
		t[i] = kthread_create(worker_fn, &w[i], "rtp_bench/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		kthread_bind(t[i], i);
	}
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		wake_up_process(t[i]);
	for (i = 0; i < n; i++)
		wait_for_completion(&w[i].done);
	t0 = ktime_get_ns() - t0;
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, w[i].ret, 0);
	return t0;
}

/*
 * Bind/destroy throughput with one thread and with two on two CPUs: a lock
 * that serialises binds shows as a two-thread throughput near one thread's.
 * The variants take turns first; each repetition is printed, from which
 * report.py takes the paired scaling figures.
 */
static void two_threads(struct kunit *test)
{
	static const enum variant vs[] = { UPSTREAM, MODULE };
	u64 ns[ARRAY_SIZE(vs)][2][MT_REPS];
	int i, v, n, rep;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	for (rep = -1; rep < MT_REPS; rep++) {
		for (i = 0; i < ARRAY_SIZE(vs); i++) {
			v = rep % 2 ? ARRAY_SIZE(vs) - 1 - i : i;
			KUNIT_ASSERT_EQ(test, use_variant(vs[v]), 0);
			for (n = 1; n <= 2; n++) {
				u64 t = run_threads(test, n);

				if (rep >= 0)
					ns[v][n - 1][rep] = t;
			}
		}
		if (rep < 0)
			continue;
		for (v = 0; v < ARRAY_SIZE(vs); v++)
			kunit_info(test,
				   "BENCH threads_rep variant=%s rep=%d ops=%d ns_1=%llu ns_2=%llu first=%s\n",
				   variant_name[vs[v]], rep, MT_OPS,
				   ns[v][0][rep], ns[v][1][rep],
				   variant_name[vs[rep % 2 ? ARRAY_SIZE(vs) - 1 : 0]]);
	}
	for (v = 0; v < ARRAY_SIZE(vs); v++) {
		for (n = 1; n <= 2; n++) {
			u64 *t = ns[v][n - 1];
			u64 med = median(t, MT_REPS);

			/* ids per second: n * MT_OPS in @med nanoseconds */
			kunit_info(test,
				   "BENCH threads variant=%s threads=%d median_ops_s=%llu min_ops_s=%llu max_ops_s=%llu reps=%d\n",
				   variant_name[vs[v]], n,
				   div64_u64(n * MT_OPS * NSEC_PER_SEC, med),
				   div64_u64(n * MT_OPS * NSEC_PER_SEC, t[MT_REPS - 1]),
				   div64_u64(n * MT_OPS * NSEC_PER_SEC, t[0]),
				   MT_REPS);
		}
	}
}

/* Leave the kernel as it booted: the Rust provider registered, idr=1. */
static void bench_exit(struct kunit_suite *suite)
{
	fill_free();
	use_variant(MODULE);
}

static struct kunit_case bench_cases[] = {
	KUNIT_CASE(per_op_port0),
	KUNIT_CASE(per_op_fixed),
	KUNIT_CASE(slab_per_id),
	KUNIT_CASE_PARAM(fill_upstream, fill_gen_params),
	KUNIT_CASE_PARAM(fill_module, fill_gen_params),
	KUNIT_CASE_PARAM(fill_host, fill_gen_params),
	KUNIT_CASE_PARAM(fill_module_mixed, fill_gen_params),
	KUNIT_CASE(two_threads),
	{}
};

static struct kunit_suite bench_suite = {
	.name = "rdma_tcp_port_bench",
	.suite_exit = bench_exit,
	.test_cases = bench_cases,
};

kunit_test_suite(bench_suite);

MODULE_LICENSE("GPL");
