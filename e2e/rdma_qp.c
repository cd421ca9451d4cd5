// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_qp: may one user attach another user's iWARP QP to its own
 * connection?  Three kinds of process, forked by this one (root):
 *
 *   peer  root, in the network namespace <peer netns>: listens on
 *         <peer addr>:7001 and accepts every connection with a QP of its
 *         own and a receive posted; connects to <addr>:7002 on command; says
 *         what each receive brought ("recv <payload>") and posts another;
 *   A     uid <uid A>, here: a QP of its own, made with rdma_create_qp()
 *         on an id resolved to the peer (so in INIT), then connects it,
 *         sends on it, disconnects, destroys it, as told;
 *   B     uid <uid B>, here: an id with no QP that connects or accepts
 *         naming a QP number, or an id with a QP of its own.
 *
 * Each case gets a new A and a new B; the answers are printed one per
 * line, "<case> <what> <answer>", for e2e/qp.sh to judge.  An answer is an
 * errno name (EACCES...), an event name (ESTABLISHED...), a QP state (INIT,
 * RTS...), "sent"/"error"/"none" for a send, "delivered"/"none" for what
 * the peer received, "ok"/"hung" for a destroy.  A process that does not
 * answer within its time is "hung" and left behind: a task in D state
 * cannot be reaped (the run is then a throwaway VM's, see e2e/qp.sh).
 *
 * Usage: rdma_qp <addr> <peer addr> <peer netns> <uid A> <uid B>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <rdma/rdma_cma.h>

#define PEER_PORT 7001
#define B_PORT 7002
#define MSG 64
#define TIMEOUT_MS 30000

static const char *addr, *peer_addr;

/* A child: its command pipe (to it) and answer pipe (from it). */
struct child {
	pid_t pid;
	FILE *cmd;
	int ans;
	char buf[4096];
	size_t len;
};

static void die(const char *what)
{
	fprintf(stderr, "rdma_qp: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Child side: one line to the parent. */
static int out_fd = -1;
static void answer(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (write(out_fd, line, n) != n)
		exit(1);
}

static const char *err_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "EUNKNOWN";
}

static struct sockaddr *sockaddr_of(const char *host, int port)
{
	static struct sockaddr_storage ss[4];
	static int next;
	struct addrinfo *ai, hints = { .ai_flags = AI_NUMERICHOST };
	char service[8];
	struct sockaddr *sa = (struct sockaddr *)&ss[next++ % 4];

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(host, service, &hints, &ai))
		die("getaddrinfo");
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return sa;
}

/* The next event on @ch within @ms: its type and id, or -1 (none). */
static int next_event(struct rdma_event_channel *ch, int ms, struct rdma_cm_id **id)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type;

	if (poll(&pfd, 1, ms) != 1 || rdma_get_cm_event(ch, &ev))
		return -1;
	type = ev->event;
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return type;
}

static const char *event_name(int type)
{
	static char name[64];
	const char *s;

	if (type < 0)
		return "none";
	s = rdma_event_str(type);
	/* "RDMA_CM_EVENT_ESTABLISHED" -> "ESTABLISHED" */
	snprintf(name, sizeof(name), "%s", strncmp(s, "RDMA_CM_EVENT_", 14) ? s : s + 14);
	return name;
}

/* A QP with a CQ of its own, a buffer registered for one send or receive. */
struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char buf[MSG];
};

static int make_qp(struct conn *c)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		return -1;
	c->cq = ibv_create_cq(c->id->verbs, 4, NULL, NULL, 0);
	if (!c->cq)
		return -1;
	c->mr = ibv_reg_mr(c->pd, c->buf, sizeof(c->buf), IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return -1;
	qa.send_cq = qa.recv_cq = c->cq;
	return rdma_create_qp(c->id, c->pd, &qa);
}

static int post_recv(struct conn *c)
{
	struct ibv_sge sge = { (uintptr_t)c->buf, sizeof(c->buf), c->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(c->buf, 0, sizeof(c->buf));
	return ibv_post_recv(c->id->qp, &wr, &bad);
}

/* Resolve @id's address and route to @dst, on @ch: 0, or an errno. */
static int resolve(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		   struct sockaddr *dst)
{
	int type;

	if (rdma_resolve_addr(id, NULL, dst, 5000))
		return errno;
	type = next_event(ch, TIMEOUT_MS, NULL);
	if (type != RDMA_CM_EVENT_ADDR_RESOLVED)
		return EHOSTUNREACH;
	if (rdma_resolve_route(id, 5000))
		return errno;
	type = next_event(ch, TIMEOUT_MS, NULL);
	return type == RDMA_CM_EVENT_ROUTE_RESOLVED ? 0 : EHOSTUNREACH;
}

/*
 * A new id on @ch in @c, resolved to the peer, with a QP of its own (in
 * INIT, as rdma_create_qp() leaves it): 0, or an errno.
 */
static int qp_to_peer(struct rdma_event_channel *ch, struct conn *c)
{
	int err;

	if (rdma_create_id(ch, &c->id, NULL, RDMA_PS_TCP))
		return errno;
	err = resolve(ch, c->id, sockaddr_of(peer_addr, PEER_PORT));
	if (!err && make_qp(c))
		err = errno;
	return err;
}

/*
 * rdma_connect() @id, naming QP @qpn: the errno it gives, or the event that
 * follows.
 */
static void connect_naming(struct rdma_event_channel *ch, struct rdma_cm_id *id,
			   unsigned int qpn)
{
	struct rdma_conn_param p = { .qp_num = qpn };

	if (rdma_connect(id, &p)) {
		answer("%s", err_name(errno));
		return;
	}
	answer("%s", event_name(next_event(ch, TIMEOUT_MS, NULL)));
}

/* A new id on @ch with no QP, resolved to the peer, connects naming @qpn. */
static void connect_new_id(struct rdma_event_channel *ch, unsigned int qpn)
{
	struct rdma_cm_id *id;
	int err;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		answer("%s", err_name(errno));
		return;
	}
	err = resolve(ch, id, sockaddr_of(peer_addr, PEER_PORT));
	if (err)
		answer("%s", err_name(err));
	else
		connect_naming(ch, id, qpn);
}

static const char *qp_state(struct ibv_qp *qp)
{
	static const char *names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return err_name(errno);
	return a.qp_state < 7 ? names[a.qp_state] : "UNKNOWN";
}

/* Send @payload on @c's QP: "sent", "error", "none", or the post's errno. */
static const char *send_on(struct conn *c, const char *payload)
{
	struct ibv_sge sge = { (uintptr_t)c->buf, MSG, c->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int i, ret;

	snprintf(c->buf, sizeof(c->buf), "%s", payload);
	ret = ibv_post_send(c->id->qp, &wr, &bad);
	if (ret)
		return err_name(abs(ret));
	for (i = 0; i < 50; i++) {
		ret = ibv_poll_cq(c->cq, 1, &wc);
		if (ret > 0)
			return wc.status == IBV_WC_SUCCESS ? "sent" : "error";
		usleep(100000);
	}
	return "none";
}

static void become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		die("setuid");
}

static char *read_cmd(FILE *in, char *line, size_t size)
{
	if (!fgets(line, size, in))
		exit(0);
	line[strcspn(line, "\n")] = 0;
	return line;
}

/*
 * A: "qp" makes its id and QP and answers the QP number and state; then
 * "state", "connect" (its own QP, to the peer), "send <payload>",
 * "again" (a second id of A's names A's QP), "disconnect", "destroy".
 */
static void run_a(FILE *in)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct conn c = { 0 };
	char line[128];
	struct timespec t0, t1;
	int err;

	if (!ch)
		die("A: event channel");
	for (;;) {
		read_cmd(in, line, sizeof(line));
		if (!strcmp(line, "qp")) {
			err = qp_to_peer(ch, &c);
			if (err)
				answer("%s", err_name(err));
			else
				answer("%u %s", c.id->qp->qp_num, qp_state(c.id->qp));
		} else if (!strcmp(line, "state")) {
			answer("%s", qp_state(c.id->qp));
		} else if (!strcmp(line, "connect")) {
			connect_naming(ch, c.id, c.id->qp->qp_num);
		} else if (!strncmp(line, "send ", 5)) {
			answer("%s", send_on(&c, line + 5));
		} else if (!strcmp(line, "again")) {
			connect_new_id(ch, c.id->qp->qp_num);
		} else if (!strcmp(line, "disconnect")) {
			if (rdma_disconnect(c.id))
				answer("%s", err_name(errno));
			else
				answer("%s", event_name(next_event(ch, TIMEOUT_MS, NULL)));
		} else if (!strcmp(line, "destroy")) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			rdma_destroy_qp(c.id);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			answer("ok %ld", (long)(t1.tv_sec - t0.tv_sec));
		}
	}
}

/*
 * B: "connect <qpn>" (a new id with no QP names QP <qpn>), "listen",
 * "accept <qpn>" (the next connect request on B's listener, accepted naming
 * QP <qpn>: the errno, or the event that follows), "own" (an id with a QP
 * of B's own connects), "send <payload>" (on that QP).
 */
static void run_b(FILE *in)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listener, *req;
	struct rdma_conn_param p = { 0 };
	struct conn own = { 0 };
	char line[128];
	int err, type;

	if (!ch)
		die("B: event channel");
	for (;;) {
		read_cmd(in, line, sizeof(line));
		if (!strncmp(line, "connect ", 8)) {
			connect_new_id(ch, strtoul(line + 8, NULL, 0));
		} else if (!strcmp(line, "listen")) {
			if (rdma_create_id(ch, &listener, NULL, RDMA_PS_TCP))
				die("B: create_id");
			if (rdma_bind_addr(listener, sockaddr_of(addr, B_PORT)) ||
			    rdma_listen(listener, 4))
				answer("%s", err_name(errno));
			else
				answer("ok");
		} else if (!strncmp(line, "accept ", 7)) {
			type = next_event(ch, TIMEOUT_MS, &req);
			if (type != RDMA_CM_EVENT_CONNECT_REQUEST) {
				answer("request %s", event_name(type));
				continue;
			}
			p.qp_num = strtoul(line + 7, NULL, 0);
			if (rdma_accept(req, &p)) {
				answer("%s", err_name(errno));
				rdma_reject(req, NULL, 0);
			} else {
				answer("%s", event_name(next_event(ch, TIMEOUT_MS, NULL)));
			}
		} else if (!strcmp(line, "own")) {
			err = qp_to_peer(ch, &own);
			if (err)
				answer("%s", err_name(err));
			else
				connect_naming(ch, own.id, own.id->qp->qp_num);
		} else if (!strncmp(line, "send ", 5)) {
			answer("%s", send_on(&own, line + 5));
		}
	}
}

/*
 * The peer: accepts every connection on its listener with a QP of its own
 * and one receive posted, and on "connect" connects to B's listener the
 * same way; every receive that completes is told as "recv <payload>", and
 * another is posted.
 */
#define PEER_CONNS 32
static void run_peer(FILE *in)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	static struct conn conns[PEER_CONNS];
	struct rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1 };
	struct rdma_cm_id *listener, *id;
	int n = 0, i, type;
	char line[128];
	struct ibv_wc wc;

	if (!ch || rdma_create_id(ch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, sockaddr_of(peer_addr, PEER_PORT)) ||
	    rdma_listen(listener, 8))
		die("peer: listen");
	fcntl(fileno(in), F_SETFL, O_NONBLOCK);
	answer("ready");
	for (;;) {
		if (fgets(line, sizeof(line), in)) {
			/* "connect": to B's listener, in the background. */
			if (n < PEER_CONNS && !rdma_create_id(ch, &conns[n].id, NULL, RDMA_PS_TCP) &&
			    !rdma_resolve_addr(conns[n].id, NULL, sockaddr_of(addr, B_PORT), 5000))
				n++;
		} else if (feof(in)) {
			exit(0);
		}
		clearerr(in);
		type = next_event(ch, 100, &id);
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST && n < PEER_CONNS) {
			conns[n].id = id;
			if (make_qp(&conns[n]) || post_recv(&conns[n]) || rdma_accept(id, &p))
				rdma_reject(id, NULL, 0);
			n++;
		} else if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_reject(id, NULL, 0);
		} else if (type == RDMA_CM_EVENT_ADDR_RESOLVED) {
			rdma_resolve_route(id, 5000);
		} else if (type == RDMA_CM_EVENT_ROUTE_RESOLVED) {
			for (i = 0; i < n && conns[i].id != id; i++)
				;
			if (i < n && !make_qp(&conns[i]) && !post_recv(&conns[i]))
				rdma_connect(id, &p);
		} else if (type == RDMA_CM_EVENT_DISCONNECTED) {
			rdma_disconnect(id);
		}
		for (i = 0; i < n; i++) {
			if (!conns[i].cq || ibv_poll_cq(conns[i].cq, 1, &wc) != 1)
				continue;
			if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV)
				continue;
			answer("recv %.*s", MSG - 1, conns[i].buf);
			post_recv(&conns[i]);
		}
	}
}

static struct child spawn(void (*role)(FILE *), const char *netns, uid_t uid)
{
	int cmd[2], ans[2], fd;
	struct child c = { 0 };

	if (pipe(cmd) || pipe(ans))
		die("pipe");
	fflush(stdout);
	c.pid = fork();
	if (c.pid < 0)
		die("fork");
	if (!c.pid) {
		/* Only its own pipes: the others' ends must close when they do. */
		for (fd = 3; fd < 256; fd++)
			if (fd != cmd[0] && fd != ans[1])
				close(fd);
		out_fd = ans[1];
		if (netns) {
			char path[128];

			snprintf(path, sizeof(path), "/run/netns/%s", netns);
			fd = open(path, O_RDONLY);
			if (fd < 0 || setns(fd, CLONE_NEWNET))
				die("setns");
		}
		if (uid)
			become(uid);
		role(fdopen(cmd[0], "r"));
		exit(0);
	}
	close(cmd[0]);
	close(ans[1]);
	c.cmd = fdopen(cmd[1], "w");
	c.ans = ans[0];
	return c;
}

/* The next line from @c within @ms, or NULL. */
static char *line_from(struct child *c, int ms)
{
	static char line[4096];
	struct pollfd pfd = { .fd = c->ans, .events = POLLIN };
	char *nl;
	ssize_t got;

	for (;;) {
		nl = memchr(c->buf, '\n', c->len);
		if (nl) {
			size_t n = nl - c->buf;

			memcpy(line, c->buf, n);
			line[n] = 0;
			memmove(c->buf, nl + 1, c->len - n - 1);
			c->len -= n + 1;
			return line;
		}
		if (poll(&pfd, 1, ms) != 1)
			return NULL;
		got = read(c->ans, c->buf + c->len, sizeof(c->buf) - c->len);
		if (got <= 0)
			return NULL;
		c->len += got;
	}
}

/* Ask @c, print "<label> <answer>" ("hung" if none comes): the answer. */
static char *ask(struct child *c, const char *label, const char *fmt, ...)
{
	va_list ap;
	char *a;

	va_start(ap, fmt);
	vfprintf(c->cmd, fmt, ap);
	va_end(ap);
	fputc('\n', c->cmd);
	fflush(c->cmd);
	a = line_from(c, TIMEOUT_MS + 10000);
	if (label)
		printf("%s %s\n", label, a ? a : "hung");
	fflush(stdout);
	return a;
}

/* Did the peer receive @payload within 5 s? "delivered" or "none". */
static struct child peer;
static void peer_got(const char *label, const char *payload)
{
	char *l, want[MSG + 8];
	struct timespec t0, t;

	snprintf(want, sizeof(want), "recv %s", payload);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		l = line_from(&peer, 500);
		if (l && !strcmp(l, want)) {
			printf("%s delivered\n", label);
			fflush(stdout);
			return;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 5);
	printf("%s none\n", label);
	fflush(stdout);
}

/*
 * End a case's children: closing their command pipes ends them; one that
 * does not end in 20 s is left behind (a task in D state cannot be killed).
 */
static void end(struct child *c)
{
	int i;

	fclose(c->cmd);
	close(c->ans);
	for (i = 0; i < 200; i++) {
		if (waitpid(c->pid, NULL, WNOHANG) == c->pid)
			return;
		usleep(100000);
	}
	kill(c->pid, SIGKILL);
	printf("exit-hung pid %d\n", c->pid);
	fflush(stdout);
}

/*
 * A case's users: a new A, which makes its QP (answered as "<name> qp"),
 * and a new B; the QP's number in @qpn ("0" if A made none).
 */
static uid_t uid_a, uid_b;
static void start_case(const char *name, struct child *a, struct child *b,
		       char qpn[16])
{
	char label[32], *qp;

	*a = spawn(run_a, NULL, uid_a);
	*b = spawn(run_b, NULL, uid_b);
	snprintf(label, sizeof(label), "%s qp", name);
	qp = ask(a, label, "qp");
	snprintf(qpn, 16, "%u", qp ? (unsigned int)strtoul(qp, NULL, 0) : 0);
}

/*
 * End a case in which B named A's QP: A's QP's state, and whether A's send
 * reaches the peer ("<name> state", "<name> send", "<name> data").
 */
static void end_case(const char *name, struct child *a, struct child *b)
{
	char label[32], payload[32];

	snprintf(label, sizeof(label), "%s state", name);
	ask(a, label, "state");
	snprintf(label, sizeof(label), "%s send", name);
	snprintf(payload, sizeof(payload), "A-%s", name);
	ask(a, label, "send %s", payload);
	snprintf(label, sizeof(label), "%s data", name);
	peer_got(label, payload);
	end(b);
	end(a);
}

int main(int argc, char **argv)
{
	struct child a, b;
	char qpn[16];

	if (argc != 6) {
		fprintf(stderr, "usage: rdma_qp <addr> <peer addr> <peer netns> <uid A> <uid B>\n");
		return 2;
	}
	addr = argv[1];
	peer_addr = argv[2];
	uid_a = strtoul(argv[4], NULL, 0);
	uid_b = strtoul(argv[5], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);

	peer = spawn(run_peer, argv[3], 0);
	if (!line_from(&peer, TIMEOUT_MS))
		die("peer did not start");

	/* A QP number that does not exist (siw numbers from 1 up). */
	b = spawn(run_b, NULL, uid_b);
	ask(&b, "nosuch connect", "connect 0xfffffe");
	end(&b);

	/* 1. B connects naming A's QP, which A has not connected. */
	start_case("connect", &a, &b, qpn);
	ask(&b, "connect attach", "connect %s", qpn);
	end_case("connect", &a, &b);

	/* 2. B accepts the peer's connection naming A's QP. */
	start_case("accept", &a, &b, qpn);
	ask(&b, "accept listen", "listen");
	fprintf(peer.cmd, "connect\n");
	fflush(peer.cmd);
	ask(&b, "accept attach", "accept %s", qpn);
	end_case("accept", &a, &b);

	/* 3. B names A's QP while A's connection is up; then A's own second id. */
	start_case("victim", &a, &b, qpn);
	ask(&a, "victim connect", "connect");
	ask(&a, "victim send-before", "send A-before");
	peer_got("victim data-before", "A-before");
	ask(&b, "victim attach", "connect %s", qpn);
	ask(&a, "victim again", "again");
	ask(&a, "victim state", "state");
	ask(&a, "victim send-after", "send A-after");
	peer_got("victim data-after", "A-after");
	ask(&a, "victim disconnect", "disconnect");
	ask(&a, "victim destroy", "destroy");
	end(&b);
	end(&a);

	/* 4. B with a QP of its own. */
	b = spawn(run_b, NULL, uid_b);
	ask(&b, "own connect", "own");
	ask(&b, "own send", "send B-own");
	peer_got("own data", "B-own");
	end(&b);

	end(&peer);
	return 0;
}
