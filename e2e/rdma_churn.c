// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_churn: RDMA_PS_TCP ids created, bound, listened on, resolved,
 * connected and destroyed in random order, for a stress run.
 *
 *   rdma_churn -t SECONDS -s SEED [-n SLOTS] [-r LO-HI] [-d DST] [-c PORT]
 *		[-x] ADDR...
 *	churn for SECONDS over SLOTS ids (8): bind to one of the ADDRs
 *	(IPv4 or IPv6) with port 0 or a port of LO-HI (6000-6009), with and
 *	without reuse; listen (bound or not); rdma_resolve_addr() towards DST
 *	(a random port, from a bound id or not);
 *	connect to DST:PORT (a "rdma_churn -S" there); destroy.  With -x the
 *	ids still live at the end are left to the kernel (exit without
 *	destroying them).  SIGTERM ends the run the same way, at once.
 *   rdma_churn -S -t SECONDS ADDR PORT
 *	server: listen on ADDR:PORT, accept (up to 32 connections at a time,
 *	reject beyond), tear down what disconnects, for SECONDS.
 *   rdma_churn -U MODULE
 *	delete_module(MODULE, O_NONBLOCK) once; print "ok" or the errno name.
 *
 * The churn prints one line at the end:
 *	churn creates N binds N listens N resolves N connects N destroys N
 *	held N unheld N fail bind N listen N resolve N connect N
 *	errors <op>:<ERRNO>=N...
 * where held/unheld count the port-0 binds whose port a TCP bind() found
 * taken on the host (the provider holds it) or free (the rdma_cm's own
 * table gave it).
 * Every failure is counted, none ends the run: the module may come and
 * go under it, and ports collide on purpose.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define MAX_SLOTS 64
#define MAX_ADDRS 8
#define MAX_ERRNO 134
#define MAX_SERVED 32
#define TIMEOUT_MS 2000

enum op { OP_CREATE, OP_BIND, OP_LISTEN, OP_RESOLVE, OP_CONNECT, OP_DESTROY, OP_N };
static const char *const op_name[OP_N] = {
	"create", "bind", "listen", "resolve", "connect", "destroy"
};
static unsigned long done[OP_N], failed[OP_N], errs[OP_N][MAX_ERRNO + 1];
static unsigned long held, unheld;

enum state { EMPTY, CREATED, BOUND, LISTENING, RESOLVED, CONNECTED };
static struct slot {
	struct rdma_cm_id *id;
	enum state state;
} slots[MAX_SLOTS];

static struct sockaddr_storage addrs[MAX_ADDRS];
static int naddrs, nslots = 8, lo_port = 6000, hi_port = 6009;
static struct sockaddr_storage dst;
static int have_dst, conn_port;

static const char *errname(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

static void print_counts(void)
{
	char buf[4096];
	int i, e, len;

	len = snprintf(buf, sizeof(buf),
		       "churn creates %lu binds %lu listens %lu resolves %lu connects %lu destroys %lu held %lu unheld %lu fail bind %lu listen %lu resolve %lu connect %lu errors",
		       done[OP_CREATE], done[OP_BIND], done[OP_LISTEN],
		       done[OP_RESOLVE], done[OP_CONNECT], done[OP_DESTROY],
		       held, unheld, failed[OP_BIND], failed[OP_LISTEN], failed[OP_RESOLVE],
		       failed[OP_CONNECT]);
	for (i = 0; i < OP_N; i++)
		for (e = 0; e <= MAX_ERRNO; e++)
			if (errs[i][e] && len < (int)sizeof(buf) - 64)
				len += snprintf(buf + len, sizeof(buf) - len,
						" %s:%s=%lu", op_name[i],
						errname(e), errs[i][e]);
	if (len < (int)sizeof(buf) - 1)
		buf[len++] = '\n';
	if (write(1, buf, len) < 0)
		_exit(1);
}

/* SIGTERM: report and leave the live ids to the kernel. */
static void on_term(int sig)
{
	(void)sig;
	print_counts();
	_exit(0);
}

static int account(enum op op, int ret)
{
	int err;

	if (!ret) {
		done[op]++;
		return 0;
	}
	err = errno ? errno : EIO;
	failed[op]++;
	errs[op][err > MAX_ERRNO ? 0 : err]++;
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo *ai, hints = { .ai_flags = AI_NUMERICHOST };

	if (getaddrinfo(s, NULL, &hints, &ai))
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* One CQ per device context, shared by all QPs of the process. */
static struct ibv_cq *cq_for(struct ibv_context *verbs)
{
	static struct { struct ibv_context *verbs; struct ibv_cq *cq; } cqs[16];
	int i;

	for (i = 0; i < 16 && cqs[i].verbs; i++)
		if (cqs[i].verbs == verbs)
			return cqs[i].cq;
	if (i == 16)
		return NULL;
	cqs[i].cq = ibv_create_cq(verbs, 16, NULL, NULL, 0);
	if (cqs[i].cq)
		cqs[i].verbs = verbs;
	return cqs[i].cq;
}

static int add_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	if (!id->verbs) {
		errno = ENODEV;
		return -1;
	}
	attr.send_cq = attr.recv_cq = cq_for(id->verbs);
	if (!attr.send_cq)
		return -1;
	return rdma_create_qp(id, NULL, &attr);
}

static void destroy(struct slot *s)
{
	if (s->state == CONNECTED && rand() % 2)
		rdma_disconnect(s->id);
	if (s->id->qp)
		rdma_destroy_qp(s->id);
	account(OP_DESTROY, rdma_destroy_id(s->id));
	s->id = NULL;
	s->state = EMPTY;
}

static void do_create(struct slot *s)
{
	int one = 1;

	errno = 0;
	if (account(OP_CREATE, rdma_create_id(NULL, &s->id, NULL, RDMA_PS_TCP)))
		return;
	s->state = CREATED;
	if (rand() % 2)
		rdma_set_option(s->id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR,
				&one, sizeof(one));
	if (rand() % 4 == 0)
		rdma_set_option(s->id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
				&one, sizeof(one));
}

/*
 * Does the host hold the port that a port-0 bind gave ID?  A TCP socket
 * without SO_REUSEADDR binds the id's address and port: EADDRINUSE where
 * the provider holds it, success where only the rdma_cm's table has it.
 */
static void probe_held(struct rdma_cm_id *id)
{
	struct sockaddr *sa = rdma_get_local_addr(id);
	socklen_t len = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
						   sizeof(struct sockaddr_in6);
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (!bind(fd, sa, len))
		unheld++;
	else if (errno == EADDRINUSE)
		held++;
	close(fd);
}

static void do_bind(struct slot *s)
{
	struct sockaddr_storage a = addrs[rand() % naddrs];
	int port = rand() % 2 ? 0 : lo_port + rand() % (hi_port - lo_port + 1);

	set_port(&a, port);
	errno = 0;
	if (account(OP_BIND, rdma_bind_addr(s->id, (struct sockaddr *)&a)))
		return;
	s->state = BOUND;
	if (!port)
		probe_held(s->id);
}

static void do_listen(struct slot *s)
{
	errno = 0;
	if (!account(OP_LISTEN, rdma_listen(s->id, 4)))
		s->state = LISTENING;
}

/* Resolve towards DST: the connect port if connecting, else any port. */
static void do_resolve(struct slot *s, int connecting)
{
	struct sockaddr_storage d = dst;

	set_port(&d, connecting ? conn_port : 1 + rand() % 65535);
	errno = 0;
	if (!account(OP_RESOLVE, rdma_resolve_addr(s->id, NULL,
				(struct sockaddr *)&d, TIMEOUT_MS)))
		s->state = RESOLVED;
}

static void do_connect(struct slot *s)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 1, .rnr_retry_count = 1,
	};
	int ret;

	errno = 0;
	ret = rdma_resolve_route(s->id, TIMEOUT_MS);
	if (!ret)
		ret = add_qp(s->id);
	if (!ret)
		ret = rdma_connect(s->id, &param);
	if (!account(OP_CONNECT, ret))
		s->state = CONNECTED;
	else
		destroy(s);
}

/* One random step on one random slot. */
static void step(void)
{
	struct slot *s = &slots[rand() % nslots];
	int r = rand() % 100;

	switch (s->state) {
	case EMPTY:
		do_create(s);
		break;
	case CREATED:
		if (r < 40)
			do_bind(s);
		else if (r < 48)
			do_listen(s);	/* binds a wildcard, port 0 */
		else if (r < 80 && have_dst)
			do_resolve(s, conn_port && r < 65);
		else
			destroy(s);
		break;
	case BOUND:
		if (r < 45)
			do_listen(s);
		else if (r < 60 && have_dst)
			do_resolve(s, 0);
		else
			destroy(s);
		break;
	case RESOLVED: {
		struct sockaddr *d = rdma_get_peer_addr(s->id);
		int port = ntohs(d->sa_family == AF_INET ?
				 ((struct sockaddr_in *)d)->sin_port :
				 ((struct sockaddr_in6 *)d)->sin6_port);

		if (conn_port && port == conn_port && r < 80)
			do_connect(s);
		else
			destroy(s);
		break;
	}
	case LISTENING:
	case CONNECTED:
		if (r < 50)
			destroy(s);
		break;
	}
}

static int churn(double seconds, int leave)
{
	double end = now() + seconds;
	int i;

	while (now() < end)
		step();
	for (i = 0; i < nslots && !leave; i++)
		if (slots[i].state != EMPTY)
			destroy(&slots[i]);
	print_counts();
	return 0;
}

static int serve(double seconds, const char *addr, int port)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
	};
	unsigned long requests = 0, accepted = 0, rejected = 0, gone = 0;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_storage a;
	struct rdma_cm_id *lid;
	double end = now() + seconds;
	int one = 1, served = 0;

	if (!ch || parse_addr(addr, &a) ||
	    rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP))
		return printf("server: setup %s\n", errname(errno)), 1;
	set_port(&a, port);
	rdma_set_option(lid, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR,
			&one, sizeof(one));
	/* The previous server's port may take a moment to go. */
	while (rdma_bind_addr(lid, (struct sockaddr *)&a) ||
	       rdma_listen(lid, 16)) {
		if (now() > end)
			return printf("server: listen %s\n", errname(errno)), 1;
		rdma_destroy_id(lid);
		usleep(200000);
		if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP))
			return printf("server: create %s\n", errname(errno)), 1;
		rdma_set_option(lid, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR,
				&one, sizeof(one));
	}
	printf("server: listening\n");
	fflush(stdout);
	while (now() < end) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct rdma_cm_event *ev;
		struct rdma_cm_id *id;
		int teardown = 0;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if (rdma_get_cm_event(ch, &ev))
			break;
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			requests++;
			if (served >= MAX_SERVED || add_qp(id) ||
			    rdma_accept(id, &param)) {
				if (!id->qp)
					rdma_reject(id, NULL, 0);
				rejected++;
				teardown = 1;
			} else {
				served++;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			accepted++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			if (id != lid) {
				gone++;
				served--;
				teardown = 1;
			}
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			end = 0;
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
		if (teardown) {
			if (id->qp)
				rdma_destroy_qp(id);
			rdma_destroy_id(id);
		}
	}
	printf("server: requests %lu accepted %lu rejected %lu gone %lu\n",
	       requests, accepted, rejected, gone);
	return 0;
}

static int unload(const char *name)
{
	int ret = syscall(SYS_delete_module, name, O_NONBLOCK);

	printf("%s\n", ret ? errname(errno) : "ok");
	return ret ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: rdma_churn -t SECONDS -s SEED [-n SLOTS] [-r LO-HI] [-d DST] [-c PORT] [-x] ADDR...\n"
		"       rdma_churn -S -t SECONDS ADDR PORT\n"
		"       rdma_churn -U MODULE\n");
	return EINVAL;
}

int main(int argc, char **argv)
{
	int opt, server = 0, leave = 0;
	unsigned int seed = getpid();
	double seconds = 10;

	while ((opt = getopt(argc, argv, "t:s:n:r:d:c:xSU:")) != -1) {
		switch (opt) {
		case 't':
			seconds = atof(optarg);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			nslots = atoi(optarg);
			if (nslots < 1 || nslots > MAX_SLOTS)
				return usage();
			break;
		case 'r':
			if (sscanf(optarg, "%d-%d", &lo_port, &hi_port) != 2 ||
			    lo_port < 1 || hi_port < lo_port || hi_port > 65535)
				return usage();
			break;
		case 'd':
			if (parse_addr(optarg, &dst))
				return usage();
			have_dst = 1;
			break;
		case 'c':
			conn_port = atoi(optarg);
			break;
		case 'x':
			leave = 1;
			break;
		case 'S':
			server = 1;
			break;
		case 'U':
			return unload(optarg);
		default:
			return usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (server)
		return argc - optind == 2 ?
		       serve(seconds, argv[optind], atoi(argv[optind + 1])) :
		       usage();
	for (; optind < argc && naddrs < MAX_ADDRS; optind++)
		if (parse_addr(argv[optind], &addrs[naddrs++]))
			return usage();
	if (!naddrs)
		return usage();
	srand(seed);
	signal(SIGTERM, on_term);
	return churn(seconds, leave);
}
