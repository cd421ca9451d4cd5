// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_fuzz: a seeded differential fuzzer for RDMA_PS_TCP ports.
 *
 *   rdma_fuzz -s SEED -n COUNT [-i FIRST] [-a ADDR4] [-m MODE] [-b NETNS=ADDR4]
 *	       [-r PEER4] [-k] [-v] [-M] [-p] [-T]
 *	-s  seed (default 1)
 *	-n  number of sequences (default 1000)
 *	-i  index of the first sequence (default 0): "-s S -i I -n 1" replays
 *	    sequence I of seed S alone (with the same -m, -b and -r)
 *	-a  an IPv4 address an RDMA device owns (10.77.0.1 in the VM's srv
 *	    namespace); without it, only wildcard addresses are bound
 *	-m  root (default): as the caller, whom the module's cap exempts if it
 *	    has CAP_NET_ADMIN;
 *	    user: as a caller that the cap applies to (the caller must not
 *	    have CAP_NET_ADMIN); the fuzzer lowers its RLIMIT_NOFILE to 64,
 *	    holds port-0 ids until two ports below the cap, checks that the
 *	    cap is where it computed, and predicts EMFILE for every bind that
 *	    would go past it;
 *	    netns: each endpoint in this network namespace or in -b's, at
 *	    random, their operations interleaved (needs CAP_SYS_ADMIN);
 *	    resolve: rdma_resolve_addr() to -r's address among the steps, from
 *	    no source address (an implicit bind to 0.0.0.0 and port 0) or in
 *	    place of a bind, from its address; each waits for its event
 *	-b  the second namespace of -m netns: a path such as
 *	    /run/netns/cli, and the address ADDR4 stands for there
 *	-r  -m resolve: an IPv4 address the RDMA device reaches (10.77.0.2)
 *	-k  do not generate what triggers the two known divergences (reuse or
 *	    v6only set after an endpoint's bind or listen)
 *	-v  print the full listing of every divergence (default: the first
 *	    LISTINGS of each class; the DIVERGENCE line of every one), and of
 *	    every sequence the documented rule answered in (default: the first
 *	    LISTINGS)
 *	-M  do not minimise the first divergence of each class
 *	-p  print the listing of every sequence, divergent or not
 *	-T  run (a) with TCP sockets only: checks the harness, needs no RDMA
 *
 * Sequence i is generated from (SEED, i) alone with splitmix64: up to 4
 * endpoints, 4-12 operations among set reuse, set v6only, bind, listen and
 * close.  It runs twice: (a) with every endpoint an RDMA id or a TCP socket
 * as the sequence says (at least one RDMA id), (b) the oracle, with every
 * endpoint a TCP socket.  In (b) the sockets that stand for (a)'s RDMA ids
 * follow the module's documented rule (README, "Why an id without reuse may
 * still bind as SO_REUSEADDR") with TCP's own operations: a bind without
 * reuse of an explicit port that TCP refuses with EADDRINUSE binds again
 * as SO_REUSEADDR, then applies TCP's listen rule (listen(), and
 * connect(AF_UNSPEC) back to a bound socket that keeps its port) and
 * clears SO_REUSEADDR, so that from then on the port is the endpoint's
 * alone; in -m user, a bind that would hold one port more than the cap
 * gives EMFILE; in -m resolve, a resolve binds as the rdma_cm does (see
 * sock_resolve()) and the id's state refuses what follows as the rdma_cm
 * does (EINVAL: listen, resolve again).  The outcome of each operation (0
 * or errno) must be the same in both runs, to the end of the sequence.
 *
 * Each run uses its own pair of explicit ports, fresh for every sequence
 * (20000-27999, four per sequence), so that what one run leaves behind
 * (siw's listening sockets on an RDMA listener's port) cannot disturb the
 * next.  Exit status: 1 if any divergence; 2 usage or setup; 3 (-m user)
 * the cap is not where the fuzzer computed it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/resource.h>
#include <rdma/rdma_cma.h>

#define MAX_EPS		4
#define MIN_OPS		4
#define MAX_OPS		12
#define PORT_BASE	20000
#define PORT_SLOTS	2000	/* four ports each: 20000-27999 */
#define REPRO_BASE	28000	/* reruns and minimisation: 28000-29999 */
#define REPRO_SLOTS	500
#define MAX_CLASSES	64
#define LISTINGS	5
#define BACKLOG		8
#define PROGRESS	1000	/* a line every PROGRESS sequences */
#define USER_NOFILE	64	/* -m user: RLIMIT_NOFILE, the cap's total */
#define HEADROOM	2	/* -m user: ports a sequence may take */
#define RESOLVE_MS	2000	/* -m resolve: rdma_resolve_addr()'s timeout */

enum op_kind { OP_REUSE, OP_V6ONLY, OP_BIND, OP_LISTEN, OP_CLOSE, OP_RESOLVE };
static const char * const op_name[] = {
	"reuse", "v6only", "bind", "listen", "close", "resolve"
};

enum addr { A_ANY4, A_ADDR4, A_ANY6, A_MAPPED };

struct op {
	uint8_t kind;
	uint8_t ep;
	uint8_t addr;		/* OP_BIND, OP_RESOLVE with src */
	uint8_t port;		/* the same: 0 (any), 1 (P0) or 2 (P1) */
	uint8_t src;		/* OP_RESOLVE: from addr and port, not NULL */
	uint8_t val;		/* OP_V6ONLY */
};

struct seq {
	int neps;
	bool v6[MAX_EPS];	/* the endpoint's family */
	bool rdma[MAX_EPS];	/* an RDMA id in run (a) */
	uint8_t ns[MAX_EPS];	/* -m netns: the endpoint's namespace, 0 or 1 */
	int nops;
	struct op ops[MAX_OPS];
};

/* An endpoint as the outcomes of its operations left it. */
struct mep {
	bool open;
	bool bound;
	bool listening;
	bool reuse;
	bool reuse_late;	/* reuse set after the bind */
	int port;		/* 1 or 2: P0 or P1; 0: a port of the host's */
};

/*
 * An endpoint of a run.  For a TCP socket that stands for an RDMA id in the
 * oracle run, also what the rule and the cap need to know of it.
 */
struct live {
	int fd;
	struct rdma_cm_id *id;
	int v6set;		/* IPV6_V6ONLY as set before its bind, -1: never */
	bool reuse;		/* SO_REUSEADDR as the id has it */
	bool bound;		/* holds a port (bound, or listening) */
	bool listening;
	bool claimed;		/* took its port by the rule: reuse cleared */
	bool resolved;		/* -m resolve: the address resolved */
};

/* One run of a sequence: what each endpoint is, and the outcomes. */
struct run {
	const bool *kinds;	/* an RDMA id */
	const bool *standin;	/* a TCP socket that stands for an RDMA id */
	uint16_t ports[2];	/* P0, P1 */
	int *res;		/* each operation's outcome, 0 or an errno */
	unsigned int ruled;	/* binds the documented rule answered 0 */
	unsigned int capped;	/* binds refused at the cap (EMFILE) */
};

enum mode { M_ROOT, M_USER, M_NETNS, M_RESOLVE };
static const char * const mode_name[] = { "root", "user", "netns", "resolve" };
static enum mode mode;

static struct rdma_event_channel *chan;
static struct in_addr addr4[2];	/* ADDR4 in namespace 0 and 1 */
static bool have_addr4;
static bool rdma_mapped[2];	/* an RDMA id can bind ::ffff:ADDR4 there */
static int netns_fd[2] = { -1, -1 };	/* -m netns: this one and -b's */
static struct sockaddr_in peer;	/* -m resolve: the destination */
static unsigned long cap;	/* -m user: the ports the caller may hold */
static unsigned long ballast;	/* -m user: held by the fuzzer throughout */
static bool avoid_known;
static bool tcp_only;
static uint64_t seed = 1;
static unsigned int repro_slot;

/* splitmix64 */
static uint64_t rnd_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd(uint64_t *s, unsigned int n)
{
	return rnd_next(s) % n;
}

static bool may_bind_mapped(const struct seq *s, int e)
{
	return have_addr4 && s->v6[e] && (!s->rdma[e] || rdma_mapped[s->ns[e]]);
}

/*
 * An endpoint for an operation: with probability @pct % one for which
 * @want is true (if any), else any endpoint for which @only is true (NULL:
 * any at all); -1 if there is none.
 */
static int pick(uint64_t *st, const struct seq *s, const bool *want,
		unsigned int pct, const bool *only)
{
	int cand[MAX_EPS], n = 0, e;

	if (rnd(st, 100) < pct)
		for (e = 0; e < s->neps; e++)
			if (want[e] && (!only || only[e]))
				cand[n++] = e;
	if (!n)
		for (e = 0; e < s->neps; e++)
			if (!only || only[e])
				cand[n++] = e;
	return n ? cand[rnd(st, n)] : -1;
}

/* A bind target for endpoint @e; @one_port: mostly P0. */
static void bind_target(uint64_t *st, const struct seq *s, int e,
			bool one_port, struct op *op)
{
	unsigned int r = rnd(st, 4);

	op->kind = OP_BIND;
	op->ep = e;
	if (!s->v6[e])
		op->addr = have_addr4 && r >= 2 ? A_ADDR4 : A_ANY4;
	else
		op->addr = may_bind_mapped(s, e) && r >= 2 ? A_MAPPED : A_ANY6;
	r = rnd(st, 20);
	if (one_port)
		op->port = r < 17 ? 1 : r < 19 ? 2 : 0;
	else
		op->port = r < 10 ? 1 : r < 17 ? 2 : 0;
}

/*
 * Servers starting together: each endpoint [reuse] [v6only] bind [listen]
 * [close, and again], mostly on one port, the endpoints' steps interleaved
 * at random.
 */
static void generate_servers(uint64_t *st, struct seq *s)
{
	struct op script[MAX_EPS][MAX_OPS];
	int len[MAX_EPS] = { 0 }, at[MAX_EPS] = { 0 };
	int e, k, round, left = 0;

	for (e = 0; e < s->neps; e++) {
		for (round = 0; round < 2; round++) {
			struct op *op = script[e] + len[e];

			if (rnd(st, 5) < 4)
				*op++ = (struct op){ OP_REUSE, e };
			if (s->v6[e] && rnd(st, 3) == 0)
				*op++ = (struct op){ .kind = OP_V6ONLY,
						     .ep = e,
						     .val = rnd(st, 4) != 0 };
			bind_target(st, s, e, true, op++);
			if (rnd(st, 10) < 7)
				*op++ = (struct op){ OP_LISTEN, e };
			len[e] = op - script[e];
			if (rnd(st, 4))
				break;
			script[e][len[e]++] = (struct op){ OP_CLOSE, e };
		}
		left += len[e];
	}
	for (k = 0; k < MAX_OPS && left; k++, left--) {
		int r = rnd(st, left);

		for (e = 0; r >= len[e] - at[e]; e++)
			r -= len[e] - at[e];
		s->ops[k] = script[e][at[e]++];
	}
	s->nops = k;
}

/*
 * The operations of sequence @i.  Operations go where they can matter:
 * binds mostly to endpoints not bound yet, listens and closes mostly to
 * bound ones, as far as the operations (not their outcomes) tell.
 */
static void generate_ops(struct seq *s, uint64_t i)
{
	uint64_t st = seed ^ (i * 0xd1b54a32d192ed03ULL);
	/* reuse, v6only, bind, listen, close: out of 16 */
	static const unsigned int weight[2][5] = {
		{ 3, 3, 5, 3, 2 }, { 6, 1, 5, 3, 1 }
	};
	bool touched[MAX_EPS] = { false }, reused[MAX_EPS] = { false };
	bool listened[MAX_EPS] = { false };
	bool fresh[MAX_EPS], unreused[MAX_EPS], unlistened[MAX_EPS];
	unsigned int style;
	int e, k, rdma = 0;

	rnd_next(&st);
	memset(s, 0, sizeof(*s));
	s->neps = 2 + rnd(&st, MAX_EPS - 1);
	for (e = 0; e < s->neps; e++) {
		s->v6[e] = rnd(&st, 2);
		s->rdma[e] = rnd(&st, 2);
		rdma += s->rdma[e];
	}
	if (!rdma)
		s->rdma[rnd(&st, s->neps)] = true;
	if (mode == M_NETNS) {
		/* A stream of its own: the sequences stay those of -m root. */
		uint64_t nst = ~seed ^ (i * 0x9e3779b97f4a7c15ULL);

		for (e = 0; e < s->neps; e++)
			s->ns[e] = rnd(&nst, 2);
	}
	/*
	 * Styles: 0 all sorts, 1 reuse mostly set before the binds, 2 servers
	 * starting together.
	 */
	style = rnd(&st, 3);
	if (style == 2) {
		generate_servers(&st, s);
		if (s->nops >= MIN_OPS)
			return;
		style = 1;
	}
	s->nops = MIN_OPS + rnd(&st, MAX_OPS - MIN_OPS + 1);
	for (k = 0; k < s->nops; k++) {
		struct op *op = &s->ops[k];
		unsigned int r = rnd(&st, 16);
		bool any_touched = false, any_fresh = false;
		bool any_unreused = false;

		for (e = 0; e < s->neps; e++) {
			fresh[e] = !touched[e];
			unreused[e] = fresh[e] && !reused[e];
			unlistened[e] = touched[e] && !listened[e];
			any_touched |= touched[e];
			any_fresh |= fresh[e];
			any_unreused |= unreused[e];
		}
		for (op->kind = OP_REUSE; r >= weight[style][op->kind];
		     op->kind++)
			r -= weight[style][op->kind];
		/* Fewer repeats: reuse again, bind again, mostly close. */
		if (op->kind == OP_REUSE && !any_unreused && rnd(&st, 2))
			op->kind = any_fresh ? OP_BIND : OP_CLOSE;
		if (op->kind == OP_BIND && !any_fresh && rnd(&st, 10) < 7)
			op->kind = OP_CLOSE;
		switch (op->kind) {
		case OP_REUSE:
			e = avoid_known ? pick(&st, s, unreused, 100, fresh) :
					  pick(&st, s, unreused,
					       style ? 90 : 50, NULL);
			break;
		case OP_V6ONLY:
			e = avoid_known ? pick(&st, s, fresh, 100, fresh) :
					  pick(&st, s, fresh, 50, s->v6);
			if (e >= 0 && !s->v6[e])
				e = -1;
			break;
		case OP_BIND:
			e = pick(&st, s, fresh, 85, NULL);
			break;
		case OP_LISTEN:
			/* Mostly what was bound and does not listen yet. */
			e = any_touched ? pick(&st, s, unlistened, 85, NULL) :
					  -1;
			break;
		default:
			e = any_touched ? pick(&st, s, touched, 80, NULL) : -1;
			break;
		}
		if (e < 0) {
			op->kind = OP_BIND;
			e = pick(&st, s, fresh, 85, NULL);
		}
		op->ep = e;
		switch (op->kind) {
		case OP_REUSE:
			reused[e] = true;
			break;
		case OP_V6ONLY:
			op->val = rnd(&st, 4) != 0;
			break;
		case OP_BIND:
			bind_target(&st, s, e, false, op);
			touched[e] = true;
			break;
		case OP_LISTEN:
			touched[e] = true;
			listened[e] = true;
			break;
		case OP_CLOSE:
			touched[e] = false;
			reused[e] = false;
			listened[e] = false;
			break;
		}
	}
}

/*
 * -m resolve: some binds of IPv4 endpoints become rdma_resolve_addr() from
 * the bind's address, and resolves from no address (an implicit bind to
 * 0.0.0.0 and port 0) go in at random, from a stream of their own.  IPv6
 * endpoints never resolve: with no source address given, the rdma_cm binds
 * an id of the destination's family, which a TCP socket cannot become.
 * Only RDMA ids resolve (a TCP endpoint that minimise() made of one
 * resolves as the oracle's stand-ins do).
 */
static void add_resolves(struct seq *s, uint64_t i)
{
	uint64_t st = seed ^ (i * 0xbf58476d1ce4e5b9ULL) ^ 0x5e501fe;
	int k, e, n;

	rnd_next(&st);
	for (k = 0; k < s->nops; k++) {
		struct op *op = &s->ops[k];

		if (op->kind == OP_BIND && s->rdma[op->ep] && !s->v6[op->ep] &&
		    !rnd(&st, 3)) {
			op->kind = OP_RESOLVE;
			op->src = 1;
		}
	}
	for (n = rnd(&st, 3); n && s->nops < MAX_OPS; n--) {
		e = rnd(&st, s->neps);
		if (!s->rdma[e] || s->v6[e])
			continue;
		k = rnd(&st, s->nops + 1);
		memmove(&s->ops[k + 1], &s->ops[k],
			(s->nops - k) * sizeof(s->ops[0]));
		s->ops[k] = (struct op){ .kind = OP_RESOLVE, .ep = e };
		s->nops++;
	}
}

/* Sequence @i of the seed. */
static void generate(struct seq *s, uint64_t i)
{
	generate_ops(s, i);
	if (mode == M_RESOLVE)
		add_resolves(s, i);
}

static int make_addr(const struct op *op, int ns, const uint16_t ports[2],
		     struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	uint16_t port = op->port ? ports[op->port - 1] : 0;

	memset(ss, 0, sizeof(*ss));
	switch (op->addr) {
	case A_ANY4:
	case A_ADDR4:
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (op->addr == A_ADDR4)
			sin->sin_addr = addr4[ns];
		return sizeof(*sin);
	default:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (op->addr == A_MAPPED) {
			sin6->sin6_addr.s6_addr[10] = 0xff;
			sin6->sin6_addr.s6_addr[11] = 0xff;
			memcpy(&sin6->sin6_addr.s6_addr[12], &addr4[ns], 4);
		}
		return sizeof(*sin6);
	}
}

static int err(int ret)
{
	return ret ? errno : 0;
}

static void ep_close(struct live *l)
{
	if (l->id)
		rdma_destroy_id(l->id);
	if (l->fd >= 0)
		close(l->fd);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->v6set = -1;
}

/* Makes @ns the namespace that new ids and sockets are made in. */
static void enter_ns(int ns)
{
	if (mode == M_NETNS && setns(netns_fd[ns], CLONE_NEWNET)) {
		perror("setns");
		exit(2);
	}
}

static int ep_open(struct live *l, bool rdma, bool v6, int ns)
{
	int ret;

	enter_ns(ns);
	if (rdma) {
		ret = err(rdma_create_id(chan, &l->id, NULL, RDMA_PS_TCP));
	} else {
		l->fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
		ret = l->fd < 0 ? errno : 0;
	}
	enter_ns(0);
	return ret;
}

static int set_reuse(int fd, int val)
{
	return err(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &val, sizeof(val)));
}

/*
 * A stand-in's socket back to a new one, unbound, with the options the id
 * keeps: the id of a bind the module refused stays unbound.
 */
static void standin_renew(struct live *l, bool v6, int ns)
{
	struct live fresh = { .fd = -1, .v6set = l->v6set, .reuse = l->reuse };

	close(l->fd);
	*l = fresh;
	if (ep_open(l, false, v6, ns) ||
	    (l->v6set >= 0 && setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY,
					 &l->v6set, sizeof(l->v6set))) ||
	    (l->reuse && set_reuse(l->fd, 1))) {
		perror("rdma_fuzz: a stand-in's new socket");
		exit(2);
	}
}

/*
 * A stand-in's bind, by the documented rule (README, "What the module
 * does", step 4): without reuse, where TCP refuses an explicit port, bind
 * as SO_REUSEADDR would, apply TCP's listen rule (listen(), then
 * connect(AF_UNSPEC), which stops listening and keeps the port that the
 * bind locked) and clear SO_REUSEADDR.  Returns the outcome.
 */
static int standin_bind(struct run *r, struct live *l, bool v6, int ns,
			const struct sockaddr *sa, socklen_t len, bool port)
{
	const struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	int ret = err(bind(l->fd, sa, len));

	if (ret != EADDRINUSE || l->reuse || !port)
		return ret;
	ret = set_reuse(l->fd, 1);
	if (!ret)
		ret = err(bind(l->fd, sa, len));
	if (!ret)
		ret = err(listen(l->fd, BACKLOG));
	if (!ret)
		ret = err(connect(l->fd, &unspec, sizeof(unspec)));
	if (!ret)
		ret = set_reuse(l->fd, 0);
	if (ret) {
		standin_renew(l, v6, ns);
		return ret;
	}
	l->claimed = true;
	r->ruled++;
	return 0;
}

/*
 * A stand-in's listen.  One that took its port by the rule listens as an id
 * does: the rule made the port its alone, so it listens as if it had reuse
 * (TCP's listen rule lets a socket with reuse listen next to others with
 * reuse that do not listen, which are the only ones the rule let stay).
 */
static int standin_listen(struct live *l)
{
	int ret;

	if (!l->claimed || l->reuse)
		return err(listen(l->fd, BACKLOG));
	ret = set_reuse(l->fd, 1);
	if (!ret)
		ret = err(listen(l->fd, BACKLOG));
	set_reuse(l->fd, 0);
	return ret;
}

/*
 * -m user: would a stand-in that holds no port yet go past the cap?  If so,
 * counts the refusal.
 */
static bool past_cap(struct run *r, const struct live *live,
		     const struct live *l)
{
	unsigned long held = ballast;
	int e;

	if (mode != M_USER || l->bound)
		return false;
	for (e = 0; e < MAX_EPS; e++)
		held += r->standin[e] && live[e].bound;
	if (held < cap)
		return false;
	r->capped++;
	return true;
}

/* rdma_resolve_addr() to the peer, and its event: 0 if it resolved. */
static int id_resolve(struct rdma_cm_id *id, const struct sockaddr *src)
{
	struct rdma_cm_event *ev;
	int ret;

	ret = err(rdma_resolve_addr(id, (struct sockaddr *)src,
				    (struct sockaddr *)&peer, RESOLVE_MS));
	if (ret)
		return ret;
	if (rdma_get_cm_event(chan, &ev) || ev->id != id) {
		fprintf(stderr, "rdma_fuzz: no event for the resolve\n");
		exit(2);
	}
	if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED)
		ret = 0;
	else
		ret = ev->status < 0 ? -ev->status : EPROTO;
	rdma_ack_cm_event(ev);
	return ret;
}

/*
 * rdma_resolve_addr() as the rdma_cm answers it, on a TCP socket: an id
 * that listens or has resolved is refused with EINVAL; an unbound one binds
 * first, to @src or (NULL) to 0.0.0.0 and port 0, as a stand-in binds, and
 * that bind's refusal is the answer; then the address resolves (the peer is
 * reachable).
 */
static int sock_resolve(struct run *r, struct live *live, struct live *l,
			bool standin, int ns, const struct sockaddr *src,
			socklen_t len, bool port)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	int ret;

	if (l->listening || l->resolved)
		return EINVAL;
	if (!l->bound) {
		if (standin && past_cap(r, live, l))
			return EMFILE;
		if (!src)
			ret = err(bind(l->fd, (struct sockaddr *)&any,
				       sizeof(any)));
		else if (standin)
			ret = standin_bind(r, l, false, ns, src, len, port);
		else
			ret = err(bind(l->fd, src, len));
		if (ret)
			return ret;
		l->bound = true;
	}
	l->resolved = true;
	return 0;
}

/*
 * Runs @s with the endpoints RDMA ids where @r->kinds says so, TCP sockets
 * elsewhere, on the explicit ports @r->ports; stores each operation's
 * outcome (0 or errno) in @r->res.  Where @r->standin says so, the TCP
 * socket stands for an RDMA id: it binds by the documented rule and, in
 * -m user, counts against the cap.
 */
static void run(const struct seq *s, struct run *r)
{
	struct live live[MAX_EPS];
	struct sockaddr_storage ss;
	int e, k, one = 1, len;

	r->ruled = 0;
	r->capped = 0;
	for (e = 0; e < MAX_EPS; e++) {
		live[e].fd = -1;
		live[e].id = NULL;
		ep_close(&live[e]);
	}
	for (k = 0; k < s->nops; k++) {
		const struct op *op = &s->ops[k];
		struct live *l = &live[op->ep];
		bool rdma = r->kinds[op->ep], standin = r->standin[op->ep];
		bool v6 = s->v6[op->ep];
		int val = op->val, ns = s->ns[op->ep];
		int *res = &r->res[k];

		if (op->kind == OP_CLOSE) {
			/* Closing what is not open: nothing to do. */
			ep_close(l);
			*res = 0;
			continue;
		}
		if (!l->id && l->fd < 0) {
			*res = ep_open(l, rdma, v6, ns);
			if (*res)
				continue;
		}
		switch (op->kind) {
		case OP_REUSE:
			*res = rdma ?
				err(rdma_set_option(l->id, RDMA_OPTION_ID,
						    RDMA_OPTION_ID_REUSEADDR,
						    &one, sizeof(one))) :
				set_reuse(l->fd, 1);
			l->reuse |= !*res;
			break;
		case OP_V6ONLY:
			*res = rdma ?
				err(rdma_set_option(l->id, RDMA_OPTION_ID,
						    RDMA_OPTION_ID_AFONLY,
						    &val, sizeof(val))) :
				err(setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY,
					       &val, sizeof(val)));
			if (!*res && !l->bound)
				l->v6set = val;
			break;
		case OP_BIND:
			len = make_addr(op, ns, r->ports, &ss);
			if (rdma)
				*res = err(rdma_bind_addr(l->id,
							  (struct sockaddr *)&ss));
			else if (!standin)
				*res = err(bind(l->fd, (struct sockaddr *)&ss, len));
			else if (past_cap(r, live, l))
				*res = EMFILE;
			else
				*res = standin_bind(r, l, v6, ns,
						    (struct sockaddr *)&ss, len,
						    op->port);
			l->bound |= !*res;
			break;
		case OP_LISTEN:
			if (rdma)
				*res = err(rdma_listen(l->id, BACKLOG));
			else if (l->resolved)
				*res = EINVAL;	/* the id's state */
			else if (!standin)
				*res = err(listen(l->fd, BACKLOG));
			else if (past_cap(r, live, l))
				*res = EMFILE;	/* an unbound id binds port 0 */
			else
				*res = standin_listen(l);
			l->bound |= !*res;
			l->listening |= !*res;
			break;
		case OP_RESOLVE:
			len = op->src ? make_addr(op, ns, r->ports, &ss) : 0;
			*res = rdma ? id_resolve(l->id, op->src ?
						 (struct sockaddr *)&ss : NULL) :
				      sock_resolve(r, live, l, standin, ns,
						   op->src ?
						   (struct sockaddr *)&ss : NULL,
						   len, op->port);
			break;
		}
	}
	for (e = 0; e < MAX_EPS; e++)
		ep_close(&live[e]);
}

/* What an operation with outcome @res did to its endpoint. */
static void model_step(struct mep *m, const struct op *op, int res)
{
	struct mep *ep = &m[op->ep];

	if (!ep->open) {
		memset(ep, 0, sizeof(*ep));
		ep->open = true;
	}
	if (res)
		return;
	switch (op->kind) {
	case OP_REUSE:
		ep->reuse = true;
		ep->reuse_late |= ep->bound;
		break;
	case OP_BIND:
		ep->bound = true;
		ep->port = op->port;
		break;
	case OP_RESOLVE:
		if (!ep->bound) {
			ep->bound = true;
			ep->port = op->src ? op->port : 0;
		}
		break;
	case OP_LISTEN:
		if (!ep->bound) {
			/* auto-bound to a port of the host's choosing */
			ep->bound = true;
			ep->port = 0;
		}
		ep->listening = true;
		break;
	case OP_CLOSE:
		ep->open = false;
		break;
	}
}

/*
 * Semantic differences between an RDMA id and a TCP socket that have
 * nothing to do with ports: the RDMA outcome that stands for TCP's.
 *
 * - rdma_set_reuseaddr() on a listening id is refused (EINVAL): the
 *   rdma_cm clears reuse when an id listens.  SO_REUSEADDR on a listening
 *   socket succeeds, and changes nothing for the port: a listener
 *   conflicts with every other socket whatever its reuse.
 * - rdma_listen() on a listening id is refused (EINVAL, the id is no longer
 *   bound but listening); listen(2) on a listening socket only adjusts the
 *   backlog and returns 0.
 *
 * Not normalised because the outcomes agree: rdma_listen() on an unbound
 * id binds it to 0.0.0.0 and port 0 (even an id meant for IPv6), listen(2)
 * on an unbound socket to its family's wildcard and a port of the host's;
 * both are ports outside the explicit ones, so only ok/errno matters, as
 * for every port-0 bind (the ports chosen differ from run to run).
 * rdma_bind_addr() on a bound id and bind(2) on a bound socket both give
 * EINVAL; rdma_set_afonly() and IPV6_V6ONLY on a listener both EINVAL.
 */
static int normalise(const struct mep *m, const struct op *op, int res)
{
	const struct mep *ep = &m[op->ep];

	if (res != EINVAL || !ep->open || !ep->listening)
		return res;
	if (op->kind == OP_REUSE || op->kind == OP_LISTEN)
		return 0;
	return res;
}

struct verdict {
	int at;			/* first divergent operation, -1: none */
	int steps;		/* divergent operations */
	char cls[96];		/* the first one's class */
};

static const char *ename(int e)
{
	static char buf[4][16];
	static int n;
	const char *s;

	if (!e)
		return "ok";
	s = strerrorname_np(e);
	if (s)
		return s;
	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "errno%d", e);
	return buf[n];
}

/* Is an RDMA endpoint with reuse set after its bind on @op's port? */
static bool reuse_late_on_port(const struct seq *s, const bool *kinds,
			       const struct mep *m, const struct op *op)
{
	int port = op->kind == OP_BIND ? op->port : m[op->ep].port;
	int e;

	if (!port)
		return false;
	for (e = 0; e < s->neps; e++)
		if (kinds[e] && m[e].open && m[e].bound && m[e].reuse_late &&
		    m[e].port == port)
			return true;
	return false;
}

/*
 * Compares the outcomes of the two runs to the end of the sequence; the
 * first divergent operation gives the class.
 */
static void compare(const struct seq *s, const bool *kinds, const int *ra,
		    const int *rb, struct verdict *v)
{
	struct mep ma[MAX_EPS] = { 0 };
	int k;

	v->at = -1;
	v->steps = 0;
	v->cls[0] = 0;
	for (k = 0; k < s->nops; k++) {
		const struct op *op = &s->ops[k];
		int a = kinds[op->ep] ? normalise(ma, op, ra[k]) : ra[k];

		if (a != rb[k] && !v->steps++) {
			v->at = k;
			if (op->kind == OP_V6ONLY && kinds[op->ep] &&
			    ma[op->ep].open && ma[op->ep].bound &&
			    !a && rb[k] == EINVAL) {
				snprintf(v->cls, sizeof(v->cls),
					 "known: afonly set after bind");
			} else if ((op->kind == OP_BIND ||
				    op->kind == OP_LISTEN) &&
				   reuse_late_on_port(s, kinds, ma, op)) {
				snprintf(v->cls, sizeof(v->cls),
					 "known: reuse set after bind");
			} else {
				snprintf(v->cls, sizeof(v->cls),
					 "%s %s: a=%s b=%s", op_name[op->kind],
					 kinds[op->ep] ? "RDMA" : "TCP",
					 ename(a), ename(rb[k]));
			}
		}
		model_step(ma, op, ra[k]);
	}
}

static const char * const addr_name[] = {
	"0.0.0.0", "ADDR4", "[::]", "[::ffff:ADDR4]"
};

static void print_listing(const struct seq *s, const bool *kinds,
			  const int *ra, const int *rb, int at)
{
	static const char * const port_name[] = { "0", "P0", "P1" };
	char what[64];
	int e, k;

	printf("  endpoints:");
	for (e = 0; e < s->neps; e++)
		printf(" e%d=%s/%s%s", e, kinds[e] ? "RDMA" : "TCP",
		       s->v6[e] ? "v6" : "v4",
		       mode != M_NETNS ? "" : s->ns[e] ? "@-b" : "@here");
	printf("\n");
	for (k = 0; k < s->nops; k++) {
		const struct op *op = &s->ops[k];

		switch (op->kind) {
		case OP_BIND:
			snprintf(what, sizeof(what), "bind %s:%s",
				 addr_name[op->addr], port_name[op->port]);
			break;
		case OP_V6ONLY:
			snprintf(what, sizeof(what), "v6only %d", op->val);
			break;
		case OP_RESOLVE:
			snprintf(what, sizeof(what), "resolve from %s:%s",
				 op->src ? addr_name[op->addr] : "NULL",
				 op->src ? port_name[op->port] : "");
			if (!op->src)
				what[strlen(what) - 1] = 0;
			break;
		default:
			snprintf(what, sizeof(what), "%s", op_name[op->kind]);
		}
		printf("  #%-2d e%d %-26s a=%-14s b=%s%s\n", k, op->ep, what,
		       ename(ra[k]), ename(rb[k]),
		       k == at ? " <== first divergence" : "");
	}
}

static void repro_ports(uint16_t pa[2], uint16_t pb[2])
{
	uint16_t base = REPRO_BASE + (repro_slot++ % REPRO_SLOTS) * 4;

	pa[0] = base;
	pa[1] = base + 1;
	pb[0] = base + 2;
	pb[1] = base + 3;
}

/*
 * Runs @s as @kinds says, (a), and with TCP sockets that stand for its RDMA
 * ids, (b), on the ports @pa and @pb; compares the two.
 */
static void run_both(const struct seq *s, const bool *kinds,
		     const uint16_t pa[2], const uint16_t pb[2], int *ra,
		     int *rb, struct run *oracle, struct verdict *v)
{
	static const bool all_tcp[MAX_EPS];
	struct run a = { kinds, all_tcp, { pa[0], pa[1] }, ra };

	*oracle = (struct run){ all_tcp, kinds, { pb[0], pb[1] }, rb };
	run(s, &a);
	run(s, oracle);
	compare(s, kinds, ra, rb, v);
}

/* run_both() on ports of their own, for reruns. */
static void rerun(const struct seq *s, const bool *kinds, int *ra, int *rb,
		  struct verdict *v)
{
	uint16_t pa[2], pb[2];
	struct run oracle;

	repro_ports(pa, pb);
	run_both(s, kinds, pa, pb, ra, rb, &oracle, v);
}

/* Does @s still diverge in class @cls? */
static bool still(const struct seq *s, const bool *kinds, const char *cls)
{
	int ra[MAX_OPS], rb[MAX_OPS];
	struct verdict v;

	rerun(s, kinds, ra, rb, &v);
	return v.at >= 0 && !strcmp(v.cls, cls);
}

/*
 * Shrinks a divergent sequence: drops operations and turns RDMA endpoints
 * into TCP ones while the divergence stays in its class.
 */
static void minimise(const struct seq *orig, const bool *okinds,
		     const char *cls)
{
	int ra[MAX_OPS], rb[MAX_OPS];
	bool kinds[MAX_EPS], tk[MAX_EPS];
	struct seq s = *orig, t;
	struct verdict v;
	bool changed = true;
	int e, k, n;

	memcpy(kinds, okinds, sizeof(kinds));
	while (changed) {
		changed = false;
		for (k = s.nops - 1; k >= 0; k--) {
			t = s;
			memmove(&t.ops[k], &t.ops[k + 1],
				(t.nops - k - 1) * sizeof(t.ops[0]));
			t.nops--;
			if (t.nops && still(&t, kinds, cls)) {
				s = t;
				changed = true;
			}
		}
		for (e = 0; e < s.neps; e++) {
			if (!kinds[e])
				continue;
			for (k = n = 0; k < s.neps; k++)
				n += kinds[k];
			if (n < 2)
				break;
			memcpy(tk, kinds, sizeof(tk));
			tk[e] = false;
			if (still(&s, tk, cls)) {
				kinds[e] = false;
				changed = true;
			}
		}
	}
	rerun(&s, kinds, ra, rb, &v);
	printf("MINIMAL class=\"%s\" (%d ops)%s\n", cls, s.nops,
	       v.at >= 0 && !strcmp(v.cls, cls) ? "" : " (did not reproduce)");
	print_listing(&s, kinds, ra, rb, v.at);
}

struct class_count {
	char cls[96];
	unsigned long n;
};

static struct class_count classes[MAX_CLASSES];
static int nclasses;

/* Counts a divergence in its class; returns the count so far. */
static unsigned long count_class(const char *cls)
{
	int c;

	for (c = 0; c < nclasses; c++)
		if (!strcmp(classes[c].cls, cls))
			return ++classes[c].n;
	if (nclasses == MAX_CLASSES)
		return ULONG_MAX;
	snprintf(classes[nclasses].cls, sizeof(classes[0].cls), "%s", cls);
	classes[nclasses].n = 1;
	return classes[nclasses++].n;
}

/* Can an RDMA id bind ::ffff:ADDR4 in namespace @ns at all? */
static int probe_mapped(int ns)
{
	struct sockaddr_storage ss;
	struct live l = { .fd = -1 };
	struct op op = { .kind = OP_BIND, .addr = A_MAPPED };
	uint16_t ports[2] = { 0, 0 };
	int ret;

	ret = ep_open(&l, true, true, ns);
	if (ret)
		return ret;
	make_addr(&op, ns, ports, &ss);
	ret = err(rdma_bind_addr(l.id, (struct sockaddr *)&ss));
	rdma_destroy_id(l.id);
	return ret;
}

/* Reads one number from @path; exits if it cannot. */
static unsigned long read_ulong(const char *path, int field)
{
	unsigned long v[2];
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%lu %lu", &v[0], &v[1]) < field + 1) {
		fprintf(stderr, "rdma_fuzz: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	return v[field];
}

/* An RDMA id bound to 0.0.0.0:0, or NULL with errno set. */
static struct rdma_cm_id *bound_id(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id;

	if (rdma_create_id(chan, &id, NULL, RDMA_PS_TCP))
		return NULL;
	if (rdma_bind_addr(id, (struct sockaddr *)&sin)) {
		int e = errno;

		rdma_destroy_id(id);
		errno = e;
		return NULL;
	}
	return id;
}

/*
 * -m user: computes the cap as the module does (README, "The cap"), holds
 * port-0 ids until HEADROOM ports below it, and checks that the cap is
 * there: HEADROOM more ids bind, the next one gets EMFILE.  The held ids
 * are released at exit.
 */
static void setup_cap(void)
{
	struct rlimit rl = { USER_NOFILE, USER_NOFILE };
	struct rdma_cm_id *held[HEADROOM + 1];
	unsigned long share, low, high, per_ns, b;
	int k;

	/* The cap's total: soft and hard, so that nothing raises it. */
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("rdma_fuzz: -m user: RLIMIT_NOFILE of 64");
		exit(2);
	}
	share = read_ulong("/sys/module/rdma_tcp_port/parameters/user_share", 0);
	low = read_ulong("/proc/sys/net/ipv4/ip_local_port_range", 0);
	high = read_ulong("/proc/sys/net/ipv4/ip_local_port_range", 1);
	if (!share) {
		fprintf(stderr, "rdma_fuzz: -m user: user_share is 0, no cap\n");
		exit(2);
	}
	per_ns = (high - low + 1) * (share < 100 ? share : 100) / 100;
	per_ns = per_ns ? per_ns : 1;
	cap = per_ns < rl.rlim_cur ? per_ns : rl.rlim_cur;
	if (cap < HEADROOM) {
		fprintf(stderr, "rdma_fuzz: -m user: a cap of %lu\n", cap);
		exit(2);
	}
	for (b = 0; b < cap - HEADROOM; b++) {
		if (!bound_id()) {
			fprintf(stderr, "rdma_fuzz: -m user: id %lu of %lu held below the cap: %s\n",
				b + 1, cap - HEADROOM, ename(errno));
			exit(2);
		}
	}
	ballast = b;
	for (k = 0; k < HEADROOM + 1; k++) {
		held[k] = bound_id();
		if (!held[k] != (k == HEADROOM) ||
		    (!held[k] && errno != EMFILE)) {
			/* Exit 3: the cap is not where it should be. */
			printf("fuzz: user: cap %lu: id %lu binds: %s, want %s\n",
			       cap, ballast + k + 1,
			       held[k] ? "ok" : ename(errno),
			       k == HEADROOM ? "EMFILE" : "ok");
			exit(3);
		}
	}
	for (k = 0; k < HEADROOM; k++)
		rdma_destroy_id(held[k]);
	printf("fuzz: user: cap %lu ports (RLIMIT_NOFILE %lu; user_share %lu %% of %lu ports: %lu), %lu held, %d more bind, the next EMFILE\n",
	       cap, (unsigned long)rl.rlim_cur, share, high - low + 1, per_ns,
	       ballast, HEADROOM);
}

/* -b NETNS=ADDR4: opens both namespaces. */
static void setup_netns(const char *arg)
{
	char path[256];
	const char *eq = strchr(arg, '=');

	if (!eq || eq - arg >= (long)sizeof(path) ||
	    inet_pton(AF_INET, eq + 1, &addr4[1]) != 1) {
		fprintf(stderr, "rdma_fuzz: -b wants NETNS=ADDR4\n");
		exit(2);
	}
	snprintf(path, sizeof(path), "%.*s", (int)(eq - arg), arg);
	netns_fd[0] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	netns_fd[1] = open(path, O_RDONLY | O_CLOEXEC);
	if (netns_fd[0] < 0 || netns_fd[1] < 0) {
		perror(path);
		exit(2);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rdma_fuzz [-s SEED] [-n COUNT] [-i FIRST] [-a ADDR4] [-m root|user|netns|resolve]\n"
		"                 [-b NETNS=ADDR4] [-r PEER4] [-k] [-v] [-M] [-p] [-T]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const bool all_tcp[MAX_EPS];
	unsigned long n = 1000, first = 0, i, ops = 0, div = 0, steps = 0;
	unsigned long ruled = 0, ruled_binds = 0, capped = 0;
	unsigned long resolves = 0, resolved = 0;
	bool verbose = false, minim = true, print_all = false;
	const char *other_ns = NULL;
	char replay[400];
	time_t t0 = time(NULL);
	int opt, c, ret, ns;

	while ((opt = getopt(argc, argv, "s:n:i:a:m:b:r:kvMpT")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			first = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &addr4[0]) != 1)
				usage();
			have_addr4 = true;
			break;
		case 'm':
			for (mode = M_ROOT; mode <= M_RESOLVE; mode++)
				if (!strcmp(optarg, mode_name[mode]))
					break;
			if (mode > M_RESOLVE)
				usage();
			break;
		case 'r':
			peer.sin_family = AF_INET;
			if (inet_pton(AF_INET, optarg, &peer.sin_addr) != 1)
				usage();
			break;
		case 'b':
			other_ns = optarg;
			break;
		case 'k':
			avoid_known = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'M':
			minim = false;
			break;
		case 'p':
			print_all = true;
			break;
		case 'T':
			tcp_only = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (mode == M_NETNS) != !!other_ns ||
	    (mode == M_NETNS && !have_addr4) ||
	    (mode == M_RESOLVE) != !!peer.sin_family ||
	    (mode == M_USER && tcp_only))
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (other_ns)
		setup_netns(other_ns);
	snprintf(replay, sizeof(replay), "%s%s%s%s%s%s%s",
		 have_addr4 ? " -a " : "", have_addr4 ? inet_ntoa(addr4[0]) : "",
		 mode ? " -m " : "", mode ? mode_name[mode] : "",
		 other_ns ? " -b " : "", other_ns ? other_ns : "",
		 avoid_known ? " -k" : "");
	if (peer.sin_family)
		snprintf(replay + strlen(replay), sizeof(replay) - strlen(replay),
			 " -r %s", inet_ntoa(peer.sin_addr));
	if (tcp_only)
		strcat(replay, " -T");

	if (tcp_only) {
		rdma_mapped[0] = rdma_mapped[1] = true;
	} else {
		chan = rdma_create_event_channel();
		if (!chan) {
			perror("rdma_create_event_channel");
			return 2;
		}
		for (ns = 0; have_addr4 && ns <= (mode == M_NETNS); ns++) {
			ret = probe_mapped(ns);
			rdma_mapped[ns] = !ret;
			printf("fuzz: an RDMA id binding [::ffff:%s]: %s%s\n",
			       inet_ntoa(addr4[ns]), ename(ret),
			       ret ? ", v4-mapped binds for TCP endpoints only" :
				     "");
		}
		if (mode == M_USER)
			setup_cap();
	}

	for (i = first; i < first + n; i++) {
		uint16_t base = PORT_BASE + (i % PORT_SLOTS) * 4;
		uint16_t pa[2] = { base, base + 1 };
		uint16_t pb[2] = { base + 2, base + 3 };
		int ra[MAX_OPS], rb[MAX_OPS];
		const bool *kinds;
		struct run oracle;
		struct verdict v;
		unsigned long cnt;
		struct seq s;
		int k;

		if (n >= PROGRESS && i > first && !((i - first) % PROGRESS))
			printf("fuzz: progress %lu/%lu, %lu divergences, %lu by the rule, %ld s\n",
			       i - first, n, div, ruled,
			       (long)(time(NULL) - t0));
		generate(&s, i);
		kinds = tcp_only ? all_tcp : s.rdma;
		run_both(&s, kinds, pa, pb, ra, rb, &oracle, &v);
		ops += s.nops;
		ruled += !!oracle.ruled;
		ruled_binds += oracle.ruled;
		capped += oracle.capped;
		for (k = 0; k < s.nops; k++) {
			resolves += s.ops[k].kind == OP_RESOLVE;
			resolved += s.ops[k].kind == OP_RESOLVE && !ra[k];
		}
		if (print_all) {
			printf("SEQUENCE seed=%llu seq=%lu: %s\n",
			       (unsigned long long)seed, i,
			       v.at < 0 ? "same" : v.cls);
			print_listing(&s, kinds, ra, rb, v.at);
		}
		if (oracle.ruled && !print_all &&
		    (ruled <= LISTINGS || verbose)) {
			printf("RULE seed=%llu seq=%lu: the documented rule answered %u bind(s)%s\n",
			       (unsigned long long)seed, i, oracle.ruled,
			       v.at < 0 ? "" : ", and it diverges");
			print_listing(&s, kinds, ra, rb, v.at);
		}
		if (v.at < 0)
			continue;
		div++;
		steps += v.steps;
		cnt = count_class(v.cls);
		printf("DIVERGENCE seed=%llu seq=%lu class=\"%s\", %d of %d steps (replay: rdma_fuzz -s %llu -i %lu -n 1%s)\n",
		       (unsigned long long)seed, i, v.cls, v.steps, s.nops,
		       (unsigned long long)seed, i, replay);
		if (verbose || cnt <= LISTINGS) {
			printf("  ports: a P0=%u P1=%u, b P0=%u P1=%u\n",
			       pa[0], pa[1], pb[0], pb[1]);
			print_listing(&s, kinds, ra, rb, v.at);
		}
		if (minim && cnt == 1)
			minimise(&s, kinds, v.cls);
	}
	for (c = 0; c < nclasses; c++)
		printf("fuzz: class \"%s\": %lu\n", classes[c].cls,
		       classes[c].n);
	printf("fuzz: %s: %lu sequences, %lu steps, %lu divergences (%lu divergent steps), the documented rule answered in %lu (%lu binds), %lu refused at the cap, %lu resolves (%lu resolved), seed %llu\n",
	       mode_name[mode], n, ops, div, steps, ruled, ruled_binds, capped,
	       resolves, resolved, (unsigned long long)seed);
	if (chan)
		rdma_destroy_event_channel(chan);
	return div ? 1 : 0;
}
