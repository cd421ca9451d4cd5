// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_fault: syzkaller-style fault injection (fail-nth) against the paths
 * where rdma_tcp_port takes, shares and releases an RDMA_PS_TCP port.
 *
 *   rdma_fault [-s <series functions>] <path> [<port> | <address>]
 *
 * For n = 1, 2, 3, ... the operation of <path> runs with the n-th fault
 * point of this task armed (/proc/self/task/<tid>/fail-nth), until it
 * completes without reaching it. The preconditions are set up outside the
 * fault window, and the window holds exactly one syscall: a write() of one
 * command to /dev/infiniband/rdma_cm (the ucma ABI, without librdmacm).
 * After every injected fault, while the id is still alive:
 *   - the write returned success or a plain errno;
 *   - a failed bind left the id unbound, and the TCP sockets allocated
 *     (/proc/net/sockstat) and the module's refcnt are back at their
 *     baseline (plus one for an id that is still bound);
 *   - an explicit port the id does not hold is free: a plain TCP socket
 *     binds it, and so does a second id;
 * then the id is destroyed and the counts and the port checked again.
 * At the end of the path, with every id gone, the port must also be free
 * in the rdma_cm's own table (module parameter reserve=none for one bind).
 *
 * Paths (all in the caller's network namespace):
 *   bind4-port0 bind6-port0		bind 0.0.0.0:0, [::]:0
 *   bind4-explicit bind6-explicit <port>	bind 0.0.0.0:<port>, [::]:<port>
 *   bind4-reuse <port>			REUSEADDR id binds next to another one
 *   bind4-noreuse-shared <port>	id without reuse, next to a REUSEADDR
 *					id that does not listen (second try)
 *   listen <port>			REUSEADDR id bound, rdma_listen()
 *   active-share <address>		two ids fill ip_local_port_range (two
 *					ports, set by the caller) with
 *					rdma_resolve_addr() to <address>:7001,
 *					7002; a third to :7003 shares a port
 *   release <port>			rdma_destroy_id() of a listening id
 *   fresh-bind4-port0, fresh-bind6-explicit <port>
 *					as bind4-port0 and bind6-explicit,
 *					each run in a network namespace of
 *					its own and with a file system uid
 *					the module has not seen: the module's
 *					books (its per-namespace port maps,
 *					its per-uid tally) are allocated
 *					inside the fault window
 *
 * Where each fault was injected: with fault injection's verbose=2 (set by
 * fault.sh), the kernel logs "FAULT_INJECTION: forcing a failure." and the
 * stack, which this tool reads from /dev/kmsg. The innermost frame that is
 * ours classifies the point: "module" in rdma_tcp_port.ko, "series" in a
 * function the C series adds (the -s file, one name per line; a series
 * function the compiler inlined shows as its caller), else "elsewhere".
 * An allocation made with __GFP_NOWARN fails without a log line: "unseen".
 * One "point <path> n=<n> <class> <site> <frame>" line per point: the
 * first frame above the allocator, and the frame of ours ("-" if none).
 *
 * Prints "fault <path>: <points> points (module M, series S, elsewhere E,
 * unseen U), errnos <list>, <leaks> leaks", one "leak ..." line per
 * violated check before it, and exits 1 if any check failed, 2 if the path
 * could not be set up or run.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#define MAX_NTH		2000
#define BACKLOG		1
#define MODULE_DIR	"/sys/module/rdma_tcp_port"
#define DST_PORT	7001	/* active ids: 7001, 7002 fill, 7003, 7004 share */
#define FRESH_UID	3000000	/* + n: the fsuid of run n of a fresh path */

enum op { OP_BIND, OP_LISTEN, OP_RESOLVE, OP_DESTROY };

struct path {
	const char *name;
	enum op op;
	int family;
	int explicit;	/* the id binds the port given on the command line */
	int reuse;	/* the id under test allows reuse */
	int holder;	/* a REUSEADDR id, not listening, holds the port first */
	int fresh;	/* each run in a new namespace, as a new fsuid */
};

static const struct path paths[] = {
	{ "bind4-port0", OP_BIND, AF_INET, 0, 0, 0 },
	{ "bind4-explicit", OP_BIND, AF_INET, 1, 0, 0 },
	{ "bind6-port0", OP_BIND, AF_INET6, 0, 0, 0 },
	{ "bind6-explicit", OP_BIND, AF_INET6, 1, 0, 0 },
	{ "bind4-reuse", OP_BIND, AF_INET, 1, 1, 1 },
	{ "bind4-noreuse-shared", OP_BIND, AF_INET, 1, 0, 1 },
	{ "listen", OP_LISTEN, AF_INET, 1, 1, 0 },
	{ "active-share", OP_RESOLVE, AF_INET, 0, 0, 0 },
	{ "release", OP_DESTROY, AF_INET, 1, 0, 0 },
	{ "fresh-bind4-port0", OP_BIND, AF_INET, 0, 0, 0, 1 },
	{ "fresh-bind6-explicit", OP_BIND, AF_INET6, 1, 0, 0, 1 },
};

/* One ucma command: the header and the largest command we send. */
struct cmd {
	struct rdma_ucm_cmd_hdr hdr;
	union {
		struct rdma_ucm_create_id create;
		struct rdma_ucm_destroy_id destroy;
		struct rdma_ucm_bind bind;
		struct rdma_ucm_listen listen;
		struct rdma_ucm_resolve_addr resolve;
		struct rdma_ucm_set_option opt;
		struct rdma_ucm_query query;
	} u;
};

static const struct path *path;
static unsigned int nth;	/* the fault point armed, 0 outside the loop */
static int cm_fd = -1, nth_fd, leaks, errors;
static char errnos[512];
static int kmsg_fd = -1;
static char **series_fns;
static unsigned int n_series;
enum class { C_MODULE, C_SERIES, C_ELSEWHERE, C_UNSEEN, C_NR };
static const char *const class_names[C_NR] = {
	"module", "series", "elsewhere", "unseen"
};
static unsigned int classes[C_NR];
static unsigned short port;
static struct sockaddr_storage dst;

static void leak(const char *fmt, ...)
{
	va_list ap;

	printf("leak %s n=%u: ", path->name, nth);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	leaks++;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("error %s n=%u: ", path ? path->name : "-", nth);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerrorname_np(errno) ?: "?");
	exit(2);
}

static const char *ename(int err)
{
	return err ? strerrorname_np(err) ?: "?" : "ok";
}

static void saw_errno(const char *name)
{
	char word[64];

	snprintf(word, sizeof(word), ",%s,", name);
	if (strstr(errnos, word))
		return;
	if (!errnos[0])
		strcat(errnos, ",");
	if (strlen(errnos) + strlen(name) + 2 < sizeof(errnos)) {
		strcat(errnos, name);
		strcat(errnos, ",");
	}
}

/* The first long after @key in the first line of @file starting with @line. */
static long read_num(const char *file, const char *line, const char *key)
{
	char buf[512], *p;
	long val = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		die("open %s", file);
	while (fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, line, strlen(line)))
			continue;
		p = key ? strstr(buf, key) : buf;
		if (p)
			val = strtol(p + (key ? strlen(key) : 0), NULL, 10);
		break;
	}
	fclose(f);
	return val;
}

static long tcp_alloc(void)
{
	return read_num("/proc/net/sockstat", "TCP:", " alloc ");
}

static long refcnt(void)
{
	return read_num(MODULE_DIR "/refcnt", "", NULL);
}

static void write_file(const char *file, const char *val)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write %s to %s", val, file);
	close(fd);
}

/* fail-nth: arm the n-th fault point of this task (0 disarms). */
static void arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		die("write fail-nth");
}

/* Was the armed fault injected? (fail-nth reads 0 then.) */
static int injected(void)
{
	char buf[16] = "";

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		die("read fail-nth");
	return atoi(buf) == 0;
}

static void prep(struct cmd *c, unsigned int cmd, size_t in, size_t out)
{
	memset(c, 0, sizeof(*c));
	c->hdr.cmd = cmd;
	c->hdr.in = in;
	c->hdr.out = out;
}

static size_t cmd_len(const struct cmd *c)
{
	return sizeof(c->hdr) + c->hdr.in;
}

/* The one syscall of a command: 0 or an errno. */
static int send_cmd(const struct cmd *c)
{
	ssize_t ret = write(cm_fd, c, cmd_len(c));

	if (ret < 0)
		return errno;
	return ret == (ssize_t)cmd_len(c) ? 0 : -1;
}

static void prep_create(struct cmd *c, struct rdma_ucm_create_id_resp *resp)
{
	prep(c, RDMA_USER_CM_CMD_CREATE_ID, sizeof(c->u.create), sizeof(*resp));
	c->u.create.response = (uintptr_t)resp;
	c->u.create.ps = RDMA_PS_TCP;
}

static void prep_destroy(struct cmd *c, __u32 id,
			 struct rdma_ucm_destroy_id_resp *resp)
{
	prep(c, RDMA_USER_CM_CMD_DESTROY_ID, sizeof(c->u.destroy), sizeof(*resp));
	c->u.destroy.response = (uintptr_t)resp;
	c->u.destroy.id = id;
}

static void set_addr(struct sockaddr_storage *ss, int family, unsigned short p)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(p);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(p);
}

static socklen_t addr_len(int family)
{
	return family == AF_INET ? sizeof(struct sockaddr_in) :
				   sizeof(struct sockaddr_in6);
}

/* bind to the wildcard address of @family, port @p. */
static void prep_bind(struct cmd *c, __u32 id, int family, unsigned short p)
{
	prep(c, RDMA_USER_CM_CMD_BIND, sizeof(c->u.bind), 0);
	c->u.bind.id = id;
	c->u.bind.addr_size = addr_len(family);
	set_addr((struct sockaddr_storage *)&c->u.bind.addr, family, p);
}

static void prep_listen(struct cmd *c, __u32 id)
{
	prep(c, RDMA_USER_CM_CMD_LISTEN, sizeof(c->u.listen), 0);
	c->u.listen.id = id;
	c->u.listen.backlog = BACKLOG;
}

/* rdma_resolve_addr() without a source: the id binds port 0 inside. */
static void prep_resolve(struct cmd *c, __u32 id, unsigned short dport)
{
	struct sockaddr_storage *d;

	prep(c, RDMA_USER_CM_CMD_RESOLVE_ADDR, sizeof(c->u.resolve), 0);
	c->u.resolve.id = id;
	c->u.resolve.timeout_ms = 2000;
	c->u.resolve.dst_size = addr_len(dst.ss_family);
	d = (struct sockaddr_storage *)&c->u.resolve.dst_addr;
	memcpy(d, &dst, sizeof(dst));
	((struct sockaddr_in *)d)->sin_port = htons(dport);
}

static int id_create(void)
{
	struct rdma_ucm_create_id_resp resp;
	struct cmd c;

	prep_create(&c, &resp);
	if (send_cmd(&c))
		die("create id");
	return resp.id;
}

static int id_destroy(__u32 id)
{
	struct rdma_ucm_destroy_id_resp resp;
	struct cmd c;

	prep_destroy(&c, id, &resp);
	return send_cmd(&c);
}

static int id_bind(__u32 id, int family, unsigned short p)
{
	struct cmd c;

	prep_bind(&c, id, family, p);
	return send_cmd(&c);
}

static int id_listen(__u32 id)
{
	struct cmd c;

	prep_listen(&c, id);
	return send_cmd(&c);
}

static int id_resolve(__u32 id, unsigned short dport)
{
	struct cmd c;

	prep_resolve(&c, id, dport);
	return send_cmd(&c);
}

static int id_reuse(__u32 id, int on)
{
	struct cmd c;

	prep(&c, RDMA_USER_CM_CMD_SET_OPTION, sizeof(c.u.opt), 0);
	c.u.opt.id = id;
	c.u.opt.level = RDMA_OPTION_ID;
	c.u.opt.optname = RDMA_OPTION_ID_REUSEADDR;
	c.u.opt.optval = (uintptr_t)&on;
	c.u.opt.optlen = sizeof(on);
	return send_cmd(&c);
}

/* The source port of an id, from the rdma_cm (QUERY ADDR). */
static int id_port(__u32 id)
{
	struct rdma_ucm_query_addr_resp resp;
	struct sockaddr_in *sin = (struct sockaddr_in *)&resp.src_addr;
	struct cmd c;

	prep(&c, RDMA_USER_CM_CMD_QUERY, sizeof(c.u.query), sizeof(resp));
	c.u.query.response = (uintptr_t)&resp;
	c.u.query.id = id;
	c.u.query.option = RDMA_USER_CM_QUERY_ADDR;
	if (send_cmd(&c))
		return -1;
	return ntohs(sin->sin_port);	/* same place in sockaddr_in6 */
}

/*
 * Is the id bound (any state but IDLE)? rdma_set_reuseaddr(0) succeeds
 * only on an IDLE id, where clearing reuse changes nothing we look at.
 */
static int id_bound(__u32 id)
{
	int err = id_reuse(id, 0);

	if (err && err != EINVAL)
		die("probe id state: %s", ename(err));
	return err == EINVAL;
}

/* Can a plain TCP socket (with SO_REUSEADDR if @reuse) bind the port? */
static int tcp_bind(int family, unsigned short p, int reuse)
{
	struct sockaddr_storage ss;
	int s = socket(family, SOCK_STREAM, 0), err = 0;

	if (s < 0)
		die("socket");
	if (reuse && setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse)))
		die("SO_REUSEADDR");
	set_addr(&ss, family, p);
	if (bind(s, (struct sockaddr *)&ss, addr_len(family)))
		err = errno;
	close(s);
	return err;
}

static void check_eq(const char *what, long got, long want)
{
	if (got != want)
		leak("%s %ld, want %ld", what, got, want);
}

/* As check_eq(), for counts that may take a moment to settle. */
static void settle_eq(const char *what, long (*get)(void), long want)
{
	int i;

	for (i = 0; i < 100 && get() != want; i++)
		usleep(20000);
	check_eq(what, get(), want);
}

/* A second id, as the one under test, must be able to take the port. */
static void check_second_id(const char *when)
{
	int id = id_create(), err;

	if (path->reuse)
		id_reuse(id, 1);
	if (path->op == OP_RESOLVE)
		err = id_resolve(id, DST_PORT + 3);
	else
		err = id_bind(id, path->family, path->explicit ? port : 0);
	if (err)
		leak("%s: a second id cannot take the port: %s", when, ename(err));
	if (id_destroy(id))
		die("destroy second id");
}

/* An explicit port that no id under test holds must be free. */
static void check_port_free(const char *when)
{
	int err = tcp_bind(path->family, port, path->holder);

	if (err)
		leak("%s: port %u not free for a TCP socket%s: %s", when, port,
		     path->holder ? " with SO_REUSEADDR" : "", ename(err));
}

/* The series' function names (-s), one per line. */
static void read_series(const char *file)
{
	char buf[128];
	FILE *f = fopen(file, "r");

	if (!f)
		die("open %s", file);
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (!buf[0])
			continue;
		series_fns = realloc(series_fns, (n_series + 1) * sizeof(*series_fns));
		if (!series_fns || !(series_fns[n_series++] = strdup(buf)))
			die("out of memory");
	}
	fclose(f);
}

static int is_series(const char *fn)
{
	unsigned int i;

	for (i = 0; i < n_series; i++)
		if (!strcmp(series_fns[i], fn))
			return 1;
	return 0;
}

/* The fault injection and allocator frames under the allocation's site. */
static int is_allocator(const char *fn)
{
	static const char *const prefixes[] = {
		"dump_stack", "should_fail", "__should_fail", "fail_dump",
		"slab_pre_alloc_hook", "slab_alloc", "__slab_alloc",
		"___slab_alloc", "kmem_cache_alloc", "__kmem_cache_alloc",
		"kmalloc", "__kmalloc", "__do_kmalloc", "kvmalloc",
		"__kvmalloc", "krealloc", "__krealloc", "alloc_pages",
		"__alloc_pages", "prepare_alloc_pages", "alloc_slab_page",
		"allocate_slab", "new_slab", "folio_alloc", "__folio_alloc",
		"alloc_frozen", "__alloc_frozen",
	};
	unsigned int i;

	/* The kernel crate's allocators: kernel::alloc::allocator::... */
	if (strstr(fn, "5alloc9allocator"))
		return 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(fn, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * The next record of the kernel log, its text in @msg; 0 when there is
 * none yet. A record the ring overwrote before we read it is skipped.
 */
static int kmsg_next(char *msg, size_t len)
{
	char rec[8192], *text;
	ssize_t n;

	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			die("read /dev/kmsg");
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		text[strcspn(text, "\n")] = '\0';
		snprintf(msg, len, "%s", text);
		return 1;
	}
}

/*
 * The stack of the fault injected in the last window, from the kernel log:
 * prints its point line and counts its class. @fired 0: only drain the log.
 */
static void classify(unsigned int n, int fired)
{
	char msg[512], site[128] = "-", ours[128] = "-", fn[128], *p, *mod;
	int found = 0, in_stack = 0, done = 0, cls = C_ELSEWHERE;

	while (kmsg_next(msg, sizeof(msg))) {
		if (!fired || done)
			continue;
		if (strstr(msg, "FAULT_INJECTION: forcing a failure.")) {
			found = 1;
			continue;
		}
		if (!found)
			continue;
		for (p = msg; isspace((unsigned char)*p); p++)
			;
		if (!strcmp(p, "<TASK>")) {
			in_stack = 1;
			continue;
		}
		if (!strcmp(p, "</TASK>")) {
			done = 1;
			continue;
		}
		/* A frame: "name+0x1/0x2 [module]"; "? " frames are guesses. */
		if (!in_stack || !strncmp(p, "? ", 2) || !strstr(p, "+0x"))
			continue;
		snprintf(fn, sizeof(fn), "%.*s", (int)strcspn(p, "+"), p);
		mod = strchr(p, '[');
		if (!strcmp(site, "-") && !is_allocator(fn))
			snprintf(site, sizeof(site), "%s", fn);
		if (strcmp(ours, "-"))
			continue;
		if (mod && !strncmp(mod, "[rdma_tcp_port", 14) &&
		    (mod[14] == ']' || mod[14] == ' '))
			cls = C_MODULE;
		else if (is_series(fn))
			cls = C_SERIES;
		else
			continue;
		snprintf(ours, sizeof(ours), "%s", fn);
	}
	if (!fired)
		return;
	if (!found || !done)
		cls = C_UNSEEN;
	classes[cls]++;
	printf("point %s n=%u %s %s %s\n", path->name, n, class_names[cls], site, ours);
}

/*
 * ucma takes commands only from the credentials that opened the file
 * (ib_safe_file_access()): open it again after every change of them.
 */
static void cm_open(void)
{
	if (cm_fd >= 0)
		close(cm_fd);
	cm_fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC);
	if (cm_fd < 0)
		die("open /dev/infiniband/rdma_cm");
}

static void set_fsuid(unsigned int uid)
{
	setfsuid(uid);
	if ((unsigned int)setfsuid(-1) != uid)
		die("setfsuid %u", uid);
	cm_open();
}

/*
 * Run @n of a fresh path: a new network namespace, the old ones kept
 * alive (so that no new one reuses an address the module keys its maps
 * by), and a new fsuid (the uid the module counts ports against).
 */
static void fresh_enter(unsigned int n)
{
	if (open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC) < 0 ||
	    unshare(CLONE_NEWNET))
		die("unshare a network namespace");
	set_fsuid(FRESH_UID + n);
}

/*
 * One run of the operation with the n-th fault point armed. Returns
 * whether the fault was injected.
 */
static int run_one(unsigned int n)
{
	struct rdma_ucm_destroy_id_resp dresp;
	long sock0, ref0;
	int id, ret, fired, bound;
	struct cmd c;

	if (path->fresh)
		fresh_enter(n);
	sock0 = tcp_alloc();
	ref0 = refcnt();
	id = id_create();
	if (path->reuse && id_reuse(id, 1))
		die("set reuse");
	if (path->op == OP_LISTEN || path->op == OP_DESTROY) {
		if (id_bind(id, path->family, port))
			die("bind %u", port);
		if (path->op == OP_DESTROY && id_listen(id))
			die("listen %u", port);
	}
	switch (path->op) {
	case OP_BIND:
		prep_bind(&c, id, path->family, path->explicit ? port : 0);
		break;
	case OP_LISTEN:
		prep_listen(&c, id);
		break;
	case OP_RESOLVE:
		prep_resolve(&c, id, DST_PORT + 2);
		break;
	case OP_DESTROY:
		prep_destroy(&c, id, &dresp);
		break;
	}

	/* The fault window: one syscall, its kernel log alone. */
	classify(0, 0);
	arm(n);
	ret = send_cmd(&c);
	fired = injected();
	if (!fired)
		arm(0);
	classify(n, fired);

	if (ret < 0)
		leak("write returned neither its length nor -1");
	else if (ret && (ret >= 512 || !strerrorname_np(ret)))
		leak("not a plain errno: %d", ret);
	if (!fired) {
		if (ret) {
			errors++;
			printf("error %s n=%u: fails without a fault: %s\n",
			       path->name, n, ename(ret));
		}
	} else {
		saw_errno(ename(ret > 0 ? ret : 0));
	}

	if (path->op == OP_DESTROY) {
		if (ret && id_destroy(id))
			die("destroy after a failed destroy");
	} else {
		bound = id_bound(id);
		if (ret && path->op == OP_BIND && bound)
			leak("failed bind left the id bound");
		if (!ret && !bound)
			leak("id not bound after the operation succeeded");
		/* A listener has siw's sockets as well. */
		if (ret || path->op != OP_LISTEN)
			check_eq("TCP sockets", tcp_alloc(), sock0 + bound);
		check_eq("module refcnt", refcnt(), ref0 + bound);
		if (!bound && path->explicit) {
			check_port_free("id alive");
			check_second_id("id alive");
		}
		if (!path->explicit)
			check_second_id("id alive");
		if (ret && path->op == OP_LISTEN && (ret = id_listen(id)))
			leak("listen again after the failure: %s", ename(ret));
		if (id_destroy(id))
			die("destroy");
	}
	settle_eq("TCP sockets after destroy", tcp_alloc, sock0);
	settle_eq("module refcnt after destroy", refcnt, ref0);
	if (path->explicit) {
		check_port_free("id destroyed");
		check_second_id("id destroyed");
	}
	if (path->fresh)
		set_fsuid(0);
	return fired;
}

/* With every id gone, the rdma_cm's own table must not know the port. */
static void check_table(void)
{
	char old[32] = "";
	FILE *f = fopen(MODULE_DIR "/parameters/reserve", "r");
	int id, err;

	if (!f || !fgets(old, sizeof(old), f))
		die("read reserve");
	fclose(f);
	write_file(MODULE_DIR "/parameters/reserve", "none");
	id = id_create();
	err = id_bind(id, path->family, port);
	id_destroy(id);
	write_file(MODULE_DIR "/parameters/reserve", old);
	if (err)
		leak("end: the rdma_cm's table refuses port %u: %s", port, ename(err));
}

int main(int argc, char **argv)
{
	unsigned int n, points = 0, i;
	int holder = -1, fill[2] = { -1, -1 }, err;
	long sock0, ref0;
	char buf[64];

	if (argc > 2 && !strcmp(argv[1], "-s")) {
		read_series(argv[2]);
		argc -= 2;
		argv += 2;
	}
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (argc > 1 && !strcmp(argv[1], paths[i].name))
			path = &paths[i];
	if (!path || (path->explicit && argc != 3) ||
	    (path->op == OP_RESOLVE && argc != 3)) {
		fprintf(stderr, "usage: rdma_fault [-s <series functions>] <path> [<port> | <address>]\npaths:");
		for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
			fprintf(stderr, " %s", paths[i].name);
		fprintf(stderr, "\n");
		return 2;
	}
	if (path->explicit)
		port = atoi(argv[2]);
	if (path->op == OP_RESOLVE) {
		set_addr(&dst, AF_INET, 0);
		if (inet_pton(AF_INET, argv[2],
			      &((struct sockaddr_in *)&dst)->sin_addr) != 1)
			die("bad address %s", argv[2]);
	}

	cm_open();
	snprintf(buf, sizeof(buf), "/proc/self/task/%d/fail-nth", gettid());
	nth_fd = open(buf, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		die("open %s (CONFIG_FAULT_INJECTION?)", buf);
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0 || lseek(kmsg_fd, 0, SEEK_END) < 0)
		die("open /dev/kmsg");

	sock0 = tcp_alloc();
	ref0 = refcnt();
	if (path->holder) {
		holder = id_create();
		if (id_reuse(holder, 1) || id_bind(holder, path->family, port))
			die("holder on port %u", port);
	}
	if (path->op == OP_RESOLVE) {
		for (i = 0; i < 2; i++) {
			fill[i] = id_create();
			if ((err = id_resolve(fill[i], DST_PORT + i)))
				die("active id %u: %s", i, ename(err));
		}
		if (id_port(fill[0]) == id_port(fill[1]))
			die("the active ids share port %d", id_port(fill[0]));
		if ((err = tcp_bind(AF_INET, 0, 0)) != EADDRINUSE)
			die("ip_local_port_range not full: %s", ename(err));
	}

	for (n = 1; n <= MAX_NTH; n++) {
		nth = n;
		if (!run_one(n))
			break;
		points++;
	}
	nth = 0;
	if (n > MAX_NTH) {
		errors++;
		printf("error %s: still injecting at n=%u\n", path->name, MAX_NTH);
	}

	if (holder >= 0)
		id_destroy(holder);
	for (i = 0; i < 2; i++)
		if (fill[i] >= 0)
			id_destroy(fill[i]);
	settle_eq("end: TCP sockets", tcp_alloc, sock0);
	settle_eq("end: module refcnt", refcnt, ref0);
	if (path->explicit) {
		if ((err = tcp_bind(path->family, port, 0)))
			leak("end: port %u not free: %s", port, ename(err));
		check_table();
	}

	errnos[strlen(errnos) ? strlen(errnos) - 1 : 0] = '\0';
	printf("fault %s: %u points (module %u, series %u, elsewhere %u, unseen %u), errnos %s, %d leaks\n",
	       path->name, points, classes[C_MODULE], classes[C_SERIES],
	       classes[C_ELSEWHERE], classes[C_UNSEEN], errnos[0] ? errnos + 1 : "-", leaks);
	return errors ? 2 : leaks ? 1 : 0;
}
