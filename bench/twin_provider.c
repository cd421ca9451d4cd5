// SPDX-License-Identifier: GPL-2.0
/*
 * A C baseline for `make bench` that does the module's work, not the RFC's:
 * on every path the benchmark takes (wildcard ids, explicit port and port 0,
 * passive side) it does what src/provider.rs does, step for step, so that
 * module / twin_c compares Rust with C on the same work, where module /
 * seed_c compares it with less work.  Per bind: the caller's fsuid and
 * RLIMIT_NOFILE, the per-user cap (user_share 5 %), one pass under one
 * mutex that counts the port against (uid, net) and (uid, all) and marks it
 * in the namespace's port map (for port 0: picks it there from a random
 * start, odd offsets first), then the socket's create and explicit bind
 * (reuse and listen-rule fallback as the module); at release one pass
 * under the mutex and sock_release().  Not there: the active side's port
 * sharing (only ids that rdma_resolve_addr() bound to port 0 reach it, and
 * the benchmark binds none), reserve=iwarp, the parameters.  Built only
 * into the benchmark kernel.
 */

#include <linux/cred.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/rbtree.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/inet_connection_sock.h>
#include <net/ip.h>
#include <net/sock.h>
#include <rdma/rdma_cm.h>

#include "twin_provider.h"

#define TWIN_WORDS	(65536 / 64)	/* u64 words in a map of all ports */
#define TWIN_SHARE	5		/* user_share's default */
#define TWIN_MAX_ZEROS	64		/* as limit.rs */
#define TWIN_MAX_IDLE	8		/* as ports.rs */

/* Ports held by (uid, net); net NULL: in all namespaces (limit.rs). */
struct twin_count {
	struct rb_node node;
	u32 uid;
	struct net *net;
	u32 n;
};

/* One namespace's port maps (ports.rs). */
struct twin_ports {
	struct rb_node node;
	struct net *net;
	u64 ours[TWIN_WORDS];
	u64 seen[TWIN_WORDS];
	bool seen_any;
	u32 users;
};

static DEFINE_MUTEX(twin_lock);
static struct rb_root twin_counts = RB_ROOT;	/* under twin_lock */
static struct rb_root twin_nets = RB_ROOT;	/* under twin_lock */
static unsigned int twin_zeros, twin_idle;	/* under twin_lock */

static int count_cmp(u32 uid, struct net *net, const struct twin_count *c)
{
	if (uid != c->uid)
		return uid < c->uid ? -1 : 1;
	if (net != c->net)
		return (unsigned long)net < (unsigned long)c->net ? -1 : 1;
	return 0;
}

/* One more port for (@uid, @net); the new count, or 0 without memory. */
static u32 count_add(u32 uid, struct net *net)
{
	struct rb_node **link = &twin_counts.rb_node, *parent = NULL;
	struct twin_count *c;
	int cmp;

	while (*link) {
		parent = *link;
		c = rb_entry(parent, struct twin_count, node);
		cmp = count_cmp(uid, net, c);
		if (!cmp) {
			if (!c->n)
				twin_zeros--;
			return ++c->n;
		}
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return 0;
	c->uid = uid;
	c->net = net;
	c->n = 1;
	rb_link_node(&c->node, parent, link);
	rb_insert_color(&c->node, &twin_counts);
	return 1;
}

static void count_sub(u32 uid, struct net *net)
{
	struct rb_node *node = twin_counts.rb_node, *next;
	struct twin_count *c;
	int cmp;

	while (node) {
		c = rb_entry(node, struct twin_count, node);
		cmp = count_cmp(uid, net, c);
		if (!cmp) {
			if (c->n && !--c->n)
				twin_zeros++;
			break;
		}
		node = cmp < 0 ? node->rb_left : node->rb_right;
	}
	if (twin_zeros <= TWIN_MAX_ZEROS)
		return;
	for (node = rb_first(&twin_counts); node; node = next) {
		next = rb_next(node);
		c = rb_entry(node, struct twin_count, node);
		if (!c->n) {
			rb_erase(node, &twin_counts);
			kfree(c);
		}
	}
	twin_zeros = 0;
}

static void uncharge(u32 uid, struct net *net)
{
	count_sub(uid, net);
	count_sub(uid, NULL);
}

/* The cap, as Tally::charge() with UserCap: count first, then check. */
static int charge(u32 uid, struct net *net, u64 nofile, u32 per_ns)
{
	u32 in_ns, total;

	in_ns = count_add(uid, net);
	if (!in_ns)
		return -ENOMEM;
	total = count_add(uid, NULL);
	if (!total) {
		count_sub(uid, net);
		return -ENOMEM;
	}
	if ((u64)(total - 1) < nofile && in_ns - 1 < per_ns)
		return 0;
	if (ns_capable_noaudit(net->user_ns, CAP_NET_ADMIN))
		return 0;
	uncharge(uid, net);
	return -EMFILE;
}

static struct twin_ports *ports_find(struct net *net)
{
	struct rb_node *node = twin_nets.rb_node;
	struct twin_ports *p;

	while (node) {
		p = rb_entry(node, struct twin_ports, node);
		if (net == p->net)
			return p;
		node = (unsigned long)net < (unsigned long)p->net ?
			node->rb_left : node->rb_right;
	}
	return NULL;
}

static struct twin_ports *ports_enter(struct net *net)
{
	struct rb_node **link = &twin_nets.rb_node, *parent = NULL;
	struct twin_ports *p;

	while (*link) {
		parent = *link;
		p = rb_entry(parent, struct twin_ports, node);
		if (net == p->net) {
			if (!p->users++)
				twin_idle--;
			return p;
		}
		link = (unsigned long)net < (unsigned long)p->net ?
			&parent->rb_left : &parent->rb_right;
	}
	p = kvzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	p->net = net;
	p->users = 1;
	rb_link_node(&p->node, parent, link);
	rb_insert_color(&p->node, &twin_nets);
	return p;
}

static void assign(u64 *map, u16 port, bool on)
{
	if (on)
		map[port / 64] |= 1ULL << (port % 64);
	else
		map[port / 64] &= ~(1ULL << (port % 64));
}

/* Ports.release_inner(): clears @port (if not 0) and counts a user less. */
static void ports_release(struct net *net, u16 port)
{
	struct rb_node *node, *next;
	struct twin_ports *p = ports_find(net);

	if (!p)
		return;
	if (port)
		assign(p->ours, port, false);
	if (!p->users || --p->users)
		return;
	if (++twin_idle <= TWIN_MAX_IDLE)
		return;
	for (node = rb_first(&twin_nets); node; node = next) {
		next = rb_next(node);
		p = rb_entry(node, struct twin_ports, node);
		if (!p->users) {
			rb_erase(node, &twin_nets);
			kvfree(p);
		}
	}
	twin_idle = 0;
}

static u64 reserved_word(struct net *net, unsigned int i)
{
	unsigned long *map = net->ipv4.sysctl_local_reserved_ports;

	return map ? READ_ONCE(map[i]) : 0;
}

/* ephemeral::scan(): the first port in @lo..@hi with @mask, not busy. */
static int scan(struct twin_ports *p, struct net *net, u32 lo, u32 hi,
		u64 mask)
{
	u32 w, first = lo / 64, last = hi / 64;
	u64 free;

	if (lo > hi)
		return -1;
	for (w = first; w <= last; w++) {
		free = ~(p->ours[w] | p->seen[w] | reserved_word(net, w)) & mask;
		if (w == first)
			free &= U64_MAX << (lo % 64);
		if (w == last)
			free &= U64_MAX >> (63 - hi % 64);
		if (free)
			return w * 64 + __ffs64(free);
	}
	return -1;
}

enum { PICK_FULL = -1, PICK_HOST = -2 };

/* NetPorts::pick(): a port, PICK_HOST or PICK_FULL. */
static int pick(struct twin_ports *p, struct net *net, u32 low, u32 high,
		u32 start)
{
	static const u64 masks[2] = { 0x5555555555555555ULL,
				      0xaaaaaaaaaaaaaaaaULL };
	u32 odd = (low + 1) % 2, i;
	int port;

	for (i = 0; i < 2; i++) {
		u64 mask = masks[i ? 1 - odd : odd];

		port = scan(p, net, start, high, mask);
		if (port < 0 && start > low)
			port = scan(p, net, low, start - 1, mask);
		if (port >= 0) {
			assign(p->ours, port, true);
			return port;
		}
	}
	return p->seen_any ? PICK_HOST : PICK_FULL;
}

/* What a bind asks the maps to mark (provider.rs's Want). */
enum want { WANT_PORT, WANT_PICK, WANT_HOST };

/* The claim of provider.rs: what was counted and marked for one bind. */
struct twin_claim {
	struct net *net;
	u32 uid;
	enum want want;
	int low, high, start;	/* WANT_PICK's range and first port */
	int mark;		/* a port, PICK_HOST or PICK_FULL */
};

static int claim_take(struct twin_claim *cl, u16 port)
{
	struct net *net = cl->net;
	u64 nofile = rlimit(RLIMIT_NOFILE);
	struct twin_ports *p;
	u32 range, per_ns;
	int lo, hi, ret;

	cl->uid = __kuid_val(current_fsuid());
	inet_get_local_port_range(net, &lo, &hi);
	range = hi - lo + 1;
	per_ns = max(range * TWIN_SHARE / 100, 1U);
	mutex_lock(&twin_lock);
	ret = charge(cl->uid, net, nofile, per_ns);
	if (ret)
		goto out;
	p = ports_enter(net);
	if (!p) {
		uncharge(cl->uid, net);
		ret = -ENOMEM;
		goto out;
	}
	switch (cl->want) {
	case WANT_PORT:
		assign(p->ours, port, true);
		assign(p->seen, port, false);
		cl->mark = port;
		break;
	case WANT_PICK:
		cl->mark = pick(p, net, cl->low, cl->high, cl->start);
		break;
	case WANT_HOST:
		cl->mark = PICK_HOST;
		break;
	}
out:
	mutex_unlock(&twin_lock);
	return ret;
}

static void claim_missed(struct twin_claim *cl, u16 port)
{
	struct twin_ports *p;

	mutex_lock(&twin_lock);
	p = ports_find(cl->net);
	cl->mark = PICK_FULL;
	if (p) {
		assign(p->ours, port, false);
		assign(p->seen, port, true);
		p->seen_any = true;
		cl->mark = pick(p, cl->net, cl->low, cl->high, cl->start);
	}
	mutex_unlock(&twin_lock);
}

static void claim_took(struct twin_claim *cl, u16 port, bool stale)
{
	struct twin_ports *p;

	if (cl->mark == port && !stale)
		return;
	mutex_lock(&twin_lock);
	p = ports_find(cl->net);
	if (p) {
		if (cl->mark > 0)
			assign(p->ours, cl->mark, false);
		if (stale && p->seen_any) {
			memset(p->seen, 0, sizeof(p->seen));
			p->seen_any = false;
		}
		assign(p->ours, port, true);
		assign(p->seen, port, false);
	}
	cl->mark = port;
	mutex_unlock(&twin_lock);
}

static void claim_drop(struct twin_claim *cl)
{
	mutex_lock(&twin_lock);
	uncharge(cl->uid, cl->net);
	ports_release(cl->net, cl->mark > 0 ? cl->mark : 0);
	mutex_unlock(&twin_lock);
}

/* sin_port and sin6_port are at the same offset (SockAddr::write_port). */
static void set_port(struct sockaddr_storage *ss, u16 port)
{
	((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* TcpSocket::new(): IPV6_V6ONLY from rdma_set_afonly(). */
static int new_socket(struct net *net, int family, bool afonly,
		      struct socket **sockp)
{
	int ret = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_TCP,
				   sockp);

	if (!ret && family == AF_INET6) {
		lock_sock((*sockp)->sk);
		(*sockp)->sk->sk_ipv6only = afonly;
		release_sock((*sockp)->sk);
	}
	return ret;
}

static int take(struct net *net, struct sockaddr_storage *ss, bool reuse,
		bool afonly, struct socket **sockp)
{
	int ret = new_socket(net, ss->ss_family, afonly, sockp);

	if (ret)
		return ret;
	if (reuse)
		sock_set_reuseaddr((*sockp)->sk);
	ret = kernel_bind(*sockp, (struct sockaddr *)ss,
			  rdma_addr_size((struct sockaddr *)ss));
	if (ret)
		sock_release(*sockp);
	return ret;
}

static int bind_ephemeral(struct twin_claim *cl, struct net *net,
			  struct sockaddr_storage *ss, bool reuse, bool afonly,
			  struct socket **sockp)
{
	struct socket *sock;
	int ret;

	if (cl->want != WANT_PICK)
		return take(net, ss, reuse, afonly, sockp);
	ret = new_socket(net, ss->ss_family, afonly, &sock);
	if (ret)
		return ret;
	for (;;) {
		if (cl->mark == PICK_FULL) {
			ret = -EADDRINUSE;
			break;
		}
		set_port(ss, cl->mark == PICK_HOST ? 0 : cl->mark);
		ret = kernel_bind(sock, (struct sockaddr *)ss,
				  rdma_addr_size((struct sockaddr *)ss));
		if (!ret && cl->mark == PICK_HOST)
			claim_took(cl, inet_sk(sock->sk)->inet_num, true);
		if (ret != -EADDRINUSE || cl->mark == PICK_HOST)
			break;
		claim_missed(cl, cl->mark);
	}
	if (ret) {
		sock_release(sock);
		return ret;
	}
	if (reuse)
		sock_set_reuseaddr(sock->sk);
	*sockp = sock;
	return 0;
}

static int twin_get_port(void *priv, struct rdma_cm_port_req *req,
			 struct socket **sockp)
{
	struct sockaddr *src = (struct sockaddr *)req->src;
	struct sockaddr_storage ss;
	struct twin_claim cl = { .net = req->net, .want = WANT_PORT };
	bool reuse = req->reuseaddr, afonly = req->afonly;
	u16 port;
	int ret;

	/* reserve=all, idr=1: policy::admit() lets every id through. */
	req->track = true;
	if (src->sa_family != AF_INET && src->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	memcpy(&ss, src, sizeof(ss));
	port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (!port) {
		inet_get_local_port_range(cl.net, &cl.low, &cl.high);
		cl.want = WANT_HOST;
		if (cl.low >= READ_ONCE(cl.net->ipv4.sysctl_ip_prot_sock)) {
			cl.want = WANT_PICK;
			cl.start = cl.low +
				   get_random_u32() % (cl.high - cl.low + 1);
		}
	}
	ret = claim_take(&cl, port);
	if (ret)
		return ret;
	if (!port) {
		ret = bind_ephemeral(&cl, cl.net, &ss, reuse, afonly, sockp);
	} else if (reuse) {
		ret = take(cl.net, &ss, true, afonly, sockp);
	} else {
		ret = take(cl.net, &ss, false, afonly, sockp);
		if (ret == -EADDRINUSE) {
			ret = take(cl.net, &ss, true, afonly, sockp);
			if (!ret) {
				ret = inet_csk_claim_port((*sockp)->sk);
				if (ret)
					sock_release(*sockp);
			}
		}
	}
	if (ret) {
		claim_drop(&cl);
		return ret;
	}
	port = inet_sk((*sockp)->sk)->inet_num;
	claim_took(&cl, port, false);
	set_port((struct sockaddr_storage *)src, port);
	return 0;
}

static void twin_release_port(void *priv, struct socket *sock)
{
	struct sock *sk = sock->sk;

	mutex_lock(&twin_lock);
	uncharge(__kuid_val(sk->sk_uid), sock_net(sk));
	ports_release(sock_net(sk), inet_sk(sk)->inet_num);
	mutex_unlock(&twin_lock);
	sock_release(sock);
}

static int twin_listen(void *priv, struct socket *sock)
{
	return inet_csk_claim_port(sock->sk);
}

static const struct rdma_cm_port_ops twin_port_ops = {
	.get_port = twin_get_port,
	.listen = twin_listen,
	.release_port = twin_release_port,
};

struct rdma_cm_port_provider twin_port_provider = {
	.ops = &twin_port_ops,
	.owner = THIS_MODULE,
};
