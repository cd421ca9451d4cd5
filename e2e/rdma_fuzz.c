// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_fuzz: a seeded differential fuzzer for RDMA_PS_TCP ports.
 *
 *   rdma_fuzz -s SEED -n COUNT [-i FIRST] [-a ADDR4] [-k] [-v] [-M] [-p] [-T]
 *	-s  seed (default 1)
 *	-n  number of sequences (default 1000)
 *	-i  index of the first sequence (default 0): "-s S -i I -n 1" replays
 *	    sequence I of seed S alone
 *	-a  an IPv4 address an RDMA device owns (10.77.0.1 in the VM's srv
 *	    namespace); without it, only wildcard addresses are bound
 *	-k  do not generate what triggers the two known divergences (reuse or
 *	    v6only set after an endpoint's bind or listen)
 *	-v  print the full listing of every divergence (default: the first
 *	    LISTINGS of each class; the DIVERGENCE line of every one), and
 *	    of every sequence the documented rule allows (default: the first
 *	    LISTINGS)
 *	-M  do not minimise the first divergence of each class
 *	-p  print the listing of every sequence, divergent or not
 *	-T  run (a) with TCP sockets only: checks the harness, needs no RDMA
 *
 * Sequence i is generated from (SEED, i) alone with splitmix64: up to 4
 * endpoints, 4-12 operations among set reuse, set v6only, bind, listen and
 * close.  It runs twice: (a) with every endpoint an RDMA id or a TCP socket
 * as the sequence says (at least one RDMA id), (b) with every endpoint a TCP
 * socket, the oracle.  The outcome of each operation (0 or errno) must be
 * the same in both runs, but for the documented rule (README, "Why an id
 * without reuse may still bind as SO_REUSEADDR"): an RDMA id without reuse
 * that binds an explicit port where every other overlapping socket allows
 * reuse and none listens succeeds where TCP says EADDRINUSE.  Such a
 * sequence counts as allowed and is not compared further: the id now holds
 * the port as a listener would, so later operations on the port may differ.
 *
 * Each run uses its own pair of explicit ports, fresh for every sequence
 * (20000-27999, four per sequence), so that what one run leaves behind
 * (siw's listening sockets on an RDMA listener's port) cannot disturb the
 * next.  Exit status: 1 if any divergence that the rule does not allow.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
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

enum op_kind { OP_REUSE, OP_V6ONLY, OP_BIND, OP_LISTEN, OP_CLOSE };
static const char * const op_name[] = {
	"reuse", "v6only", "bind", "listen", "close"
};

enum addr { A_ANY4, A_ADDR4, A_ANY6, A_MAPPED };

struct op {
	uint8_t kind;
	uint8_t ep;
	uint8_t addr;		/* OP_BIND */
	uint8_t port;		/* OP_BIND: 0 (any), 1 (P0) or 2 (P1) */
	uint8_t val;		/* OP_V6ONLY */
};

struct seq {
	int neps;
	bool v6[MAX_EPS];	/* the endpoint's family */
	bool rdma[MAX_EPS];	/* an RDMA id in run (a) */
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
	bool v6only;		/* as bound */
	int v6set;		/* -1: never set, else the value */
	uint8_t addr;
	int port;		/* 1 or 2: P0 or P1; 0: a port of the host's */
};

struct live {
	int fd;
	struct rdma_cm_id *id;
};

static struct rdma_event_channel *chan;
static struct in_addr addr4;
static bool have_addr4;
static bool rdma_mapped;	/* an RDMA id can bind ::ffff:ADDR4 */
static bool avoid_known;
static bool tcp_only;
static bool bindv6only;
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
	return have_addr4 && s->v6[e] && (!s->rdma[e] || rdma_mapped);
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
 * Sequence @i of the seed.  Operations go where they can matter: binds
 * mostly to endpoints not bound yet, listens and closes mostly to bound
 * ones, as far as the operations (not their outcomes) tell.
 */
static void generate(struct seq *s, uint64_t i)
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

static int make_addr(const struct op *op, const uint16_t ports[2],
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
			sin->sin_addr = addr4;
		return sizeof(*sin);
	default:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (op->addr == A_MAPPED) {
			sin6->sin6_addr.s6_addr[10] = 0xff;
			sin6->sin6_addr.s6_addr[11] = 0xff;
			memcpy(&sin6->sin6_addr.s6_addr[12], &addr4, 4);
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
	l->id = NULL;
	l->fd = -1;
}

static int ep_open(struct live *l, bool rdma, bool v6)
{
	if (rdma)
		return err(rdma_create_id(chan, &l->id, NULL, RDMA_PS_TCP));
	l->fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	return l->fd < 0 ? errno : 0;
}

/*
 * Runs @s with the endpoints RDMA ids where @kinds says so, TCP sockets
 * elsewhere, on the explicit ports @ports; stores each operation's outcome
 * (0 or errno) in @res.
 */
static void run(const struct seq *s, const bool *kinds, const uint16_t ports[2],
		int *res)
{
	struct live live[MAX_EPS];
	struct sockaddr_storage ss;
	int e, k, one = 1, len;

	for (e = 0; e < MAX_EPS; e++) {
		live[e].fd = -1;
		live[e].id = NULL;
	}
	for (k = 0; k < s->nops; k++) {
		const struct op *op = &s->ops[k];
		struct live *l = &live[op->ep];
		bool rdma = kinds[op->ep];
		int val = op->val;

		if (op->kind == OP_CLOSE) {
			/* Closing what is not open: nothing to do. */
			ep_close(l);
			res[k] = 0;
			continue;
		}
		if (!l->id && l->fd < 0) {
			res[k] = ep_open(l, rdma, s->v6[op->ep]);
			if (res[k])
				continue;
		}
		switch (op->kind) {
		case OP_REUSE:
			res[k] = rdma ?
				err(rdma_set_option(l->id, RDMA_OPTION_ID,
						    RDMA_OPTION_ID_REUSEADDR,
						    &one, sizeof(one))) :
				err(setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR,
					       &one, sizeof(one)));
			break;
		case OP_V6ONLY:
			res[k] = rdma ?
				err(rdma_set_option(l->id, RDMA_OPTION_ID,
						    RDMA_OPTION_ID_AFONLY,
						    &val, sizeof(val))) :
				err(setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY,
					       &val, sizeof(val)));
			break;
		case OP_BIND:
			len = make_addr(op, ports, &ss);
			res[k] = rdma ?
				err(rdma_bind_addr(l->id, (struct sockaddr *)&ss)) :
				err(bind(l->fd, (struct sockaddr *)&ss, len));
			break;
		case OP_LISTEN:
			res[k] = rdma ? err(rdma_listen(l->id, BACKLOG)) :
					err(listen(l->fd, BACKLOG));
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
		ep->v6set = -1;
		ep->open = true;
	}
	if (res)
		return;
	switch (op->kind) {
	case OP_REUSE:
		ep->reuse = true;
		ep->reuse_late |= ep->bound;
		break;
	case OP_V6ONLY:
		if (!ep->bound)
			ep->v6set = op->val;
		break;
	case OP_BIND:
		ep->bound = true;
		ep->addr = op->addr;
		ep->port = op->port;
		ep->v6only = ep->v6set < 0 ? bindv6only : ep->v6set;
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

/* Which IPv4 address (1: any, 2: ADDR4) and IPv6 one (1: any) @m covers. */
static void coverage(const struct mep *m, int *v4, int *v6)
{
	*v4 = *v6 = 0;
	switch (m->addr) {
	case A_ANY4:
		*v4 = 1;
		break;
	case A_ADDR4:
	case A_MAPPED:
		*v4 = 2;
		break;
	case A_ANY6:
		*v6 = 1;
		if (!m->v6only)
			*v4 = 1;
		break;
	}
}

/* Do two bound endpoints share an explicit port, addresses overlapping? */
static bool overlap(const struct mep *a, const struct mep *b)
{
	int a4, a6, b4, b6;

	if (!a->bound || !b->bound || !a->port || a->port != b->port)
		return false;
	coverage(a, &a4, &a6);
	coverage(b, &b4, &b6);
	return (a4 && b4 && (a4 == 1 || b4 == 1 || a4 == b4)) || (a6 && b6);
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
	bool allowed;
	char cls[96];
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

/*
 * The documented rule: an RDMA id without reuse binds an explicit port on
 * which every other overlapping endpoint allows reuse and none listens.
 */
static bool documented_rule(const struct seq *s, const bool *kinds,
			    const struct mep *m, const struct op *op,
			    int a, int b)
{
	struct mep me = m[op->ep];
	int e, others = 0;

	if (!me.open) {
		memset(&me, 0, sizeof(me));
		me.v6set = -1;
	}
	if (op->kind != OP_BIND || !kinds[op->ep] || a || b != EADDRINUSE ||
	    !op->port || me.reuse)
		return false;
	me.bound = true;
	me.addr = op->addr;
	me.port = op->port;
	me.v6only = me.v6set < 0 ? bindv6only : me.v6set;
	for (e = 0; e < s->neps; e++) {
		if (e == op->ep || !m[e].open || !overlap(&me, &m[e]))
			continue;
		if (!m[e].reuse || m[e].listening)
			return false;
		others++;
	}
	return others > 0;
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

static void compare(const struct seq *s, const bool *kinds, const int *ra,
		    const int *rb, struct verdict *v)
{
	struct mep ma[MAX_EPS] = { 0 }, mb[MAX_EPS] = { 0 };
	int k;

	v->at = -1;
	v->allowed = false;
	v->cls[0] = 0;
	for (k = 0; k < s->nops; k++) {
		const struct op *op = &s->ops[k];
		int a = kinds[op->ep] ? normalise(ma, op, ra[k]) : ra[k];

		if (a != rb[k]) {
			v->at = k;
			if (documented_rule(s, kinds, mb, op, a, rb[k])) {
				v->allowed = true;
				snprintf(v->cls, sizeof(v->cls), "allowed");
			} else if (op->kind == OP_V6ONLY && kinds[op->ep] &&
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
			return;
		}
		model_step(ma, op, ra[k]);
		model_step(mb, op, rb[k]);
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
		printf(" e%d=%s/%s", e, kinds[e] ? "RDMA" : "TCP",
		       s->v6[e] ? "v6" : "v4");
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

static void run_both(const struct seq *s, const bool *kinds, int *ra, int *rb,
		     struct verdict *v)
{
	static const bool all_tcp[MAX_EPS];
	uint16_t pa[2], pb[2];

	repro_ports(pa, pb);
	run(s, kinds, pa, ra);
	run(s, all_tcp, pb, rb);
	compare(s, kinds, ra, rb, v);
}

/* Does @s still diverge, not allowed, in class @cls? */
static bool still(const struct seq *s, const bool *kinds, const char *cls)
{
	int ra[MAX_OPS], rb[MAX_OPS];
	struct verdict v;

	run_both(s, kinds, ra, rb, &v);
	return v.at >= 0 && !v.allowed && !strcmp(v.cls, cls);
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
	run_both(&s, kinds, ra, rb, &v);
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

/* Can an RDMA id bind ::ffff:ADDR4 at all? */
static int probe_mapped(void)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	struct op op = { .kind = OP_BIND, .addr = A_MAPPED };
	uint16_t ports[2] = { 0, 0 };
	int ret;

	if (rdma_create_id(chan, &id, NULL, RDMA_PS_TCP))
		return errno;
	make_addr(&op, ports, &ss);
	ret = err(rdma_bind_addr(id, (struct sockaddr *)&ss));
	rdma_destroy_id(id);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rdma_fuzz [-s SEED] [-n COUNT] [-i FIRST] [-a ADDR4] [-k] [-v] [-M] [-p] [-T]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const bool all_tcp[MAX_EPS];
	unsigned long n = 1000, first = 0, i, ops = 0, div = 0, allowed = 0;
	bool verbose = false, minim = true, print_all = false;
	time_t t0 = time(NULL);
	int opt, c, ret;
	FILE *f;

	while ((opt = getopt(argc, argv, "s:n:i:a:kvMpT")) != -1) {
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
			if (inet_pton(AF_INET, optarg, &addr4) != 1)
				usage();
			have_addr4 = true;
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
	if (optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	f = fopen("/proc/sys/net/ipv6/bindv6only", "r");
	if (f) {
		bindv6only = fgetc(f) == '1';
		fclose(f);
	}
	if (tcp_only) {
		rdma_mapped = true;
	} else {
		chan = rdma_create_event_channel();
		if (!chan) {
			perror("rdma_create_event_channel");
			return 2;
		}
		if (have_addr4) {
			ret = probe_mapped();
			rdma_mapped = !ret;
			printf("fuzz: an RDMA id binding [::ffff:%s]: %s%s\n",
			       inet_ntoa(addr4), ename(ret),
			       ret ? ", v4-mapped binds for TCP endpoints only" :
				     "");
		}
	}

	for (i = first; i < first + n; i++) {
		uint16_t base = PORT_BASE + (i % PORT_SLOTS) * 4;
		uint16_t pa[2] = { base, base + 1 };
		uint16_t pb[2] = { base + 2, base + 3 };
		int ra[MAX_OPS], rb[MAX_OPS];
		const bool *kinds;
		struct verdict v;
		unsigned long cnt;
		struct seq s;

		if (n >= PROGRESS && i > first && !((i - first) % PROGRESS))
			printf("fuzz: progress %lu/%lu, %lu divergences, %lu allowed, %ld s\n",
			       i - first, n, div, allowed,
			       (long)(time(NULL) - t0));
		generate(&s, i);
		kinds = tcp_only ? all_tcp : s.rdma;
		run(&s, kinds, pa, ra);
		run(&s, all_tcp, pb, rb);
		ops += s.nops;
		compare(&s, kinds, ra, rb, &v);
		if (print_all) {
			printf("SEQUENCE seed=%llu seq=%lu: %s\n",
			       (unsigned long long)seed, i,
			       v.at < 0 ? "same" : v.cls);
			print_listing(&s, kinds, ra, rb, v.at);
		}
		if (v.at < 0)
			continue;
		if (v.allowed) {
			if (++allowed <= LISTINGS || verbose) {
				printf("ALLOWED seed=%llu seq=%lu: the documented rule\n",
				       (unsigned long long)seed, i);
				print_listing(&s, kinds, ra, rb, v.at);
			}
			continue;
		}
		div++;
		cnt = count_class(v.cls);
		printf("DIVERGENCE seed=%llu seq=%lu class=\"%s\" (replay: rdma_fuzz -s %llu -i %lu -n 1%s%s%s%s)\n",
		       (unsigned long long)seed, i, v.cls,
		       (unsigned long long)seed, i, have_addr4 ? " -a " : "",
		       have_addr4 ? inet_ntoa(addr4) : "",
		       avoid_known ? " -k" : "", tcp_only ? " -T" : "");
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
	printf("fuzz: %lu sequences, %lu operations, %lu divergences, %lu allowed by the documented rule, seed %llu\n",
	       n, ops, div, allowed, (unsigned long long)seed);
	if (chan)
		rdma_destroy_event_channel(chan);
	return div ? 1 : 0;
}
