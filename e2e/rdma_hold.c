// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_hold: take a port (RDMA_PS_TCP unless -s) through librdmacm, or connect
 * (-c), say how each step went, and hold the port until killed (or exit at
 * once with -x).
 *
 *   rdma_hold [-l] [-r] [-x] [-s tcp|udp|ipoib|ib] [-c] <address> <port>
 *	-l  also rdma_listen()
 *	-r  rdma_set_option(REUSEADDR) first
 *	-x  exit after the steps instead of holding the port
 *	-s  the id's port space (default tcp)
 *	-c  instead of binding, connect to <address> <port>: resolve the
 *	    address and the route, make an RC QP on the device with verbs,
 *	    rdma_connect() with its number, then print the next event
 *	    ("event <name>", or "event none" after 10 s)
 *
 * Prints one line per step: "bind ok", "bind EADDRINUSE", "listen ok"...
 * Exit status: 0 if every step worked, else the errno of the failed step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include "port_space.h"

static int step(const char *what, int ret)
{
	int err = ret ? errno : 0;

	printf("%s %s\n", what, err ? strerrorname_np(err) : "ok");
	fflush(stdout);
	return err;
}

/*
 * The type of the next event on @ch, within 10 s, and its @status: or -1
 * with errno set.
 */
static int next_event(struct rdma_event_channel *ch, int *status)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int got;

	if (poll(&pfd, 1, 10000) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (rdma_get_cm_event(ch, &ev))
		return -1;
	got = ev->event;
	*status = ev->status;
	rdma_ack_cm_event(ev);
	return got;
}

/* The next event on @ch is @want: 0, else -1 with errno set. */
static int await(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	int status, got = next_event(ch, &status);

	if (got < 0)
		return -1;
	if (got == (int)want)
		return 0;
	errno = status < 0 ? -status : EPROTO;
	return -1;
}

/*
 * Connect @id to @dst, say how each step went.  The QP is made with verbs,
 * not rdma_create_qp(), which would make one of the port space's type: an
 * RC QP is what an iWARP driver connects, whatever the id's port space.
 */
static int connect_to(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		      struct sockaddr *dst)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param param = { 0 };
	struct ibv_pd *pd;
	struct ibv_qp *qp = NULL;
	int err, got, status;

	if ((err = step("resolve_addr", rdma_resolve_addr(id, NULL, dst, 2000) ||
			await(ch, RDMA_CM_EVENT_ADDR_RESOLVED))))
		return err;
	if ((err = step("resolve_route", rdma_resolve_route(id, 2000) ||
			await(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))))
		return err;
	pd = ibv_alloc_pd(id->verbs);
	qa.send_cq = qa.recv_cq = ibv_create_cq(id->verbs, 2, NULL, NULL, 0);
	if (pd && qa.send_cq)
		qp = ibv_create_qp(pd, &qa);
	if ((err = step("qp", qp ? 0 : -1)))
		return err;
	param.qp_num = qp->qp_num;
	if ((err = step("connect", rdma_connect(id, &param))))
		return err;
	got = next_event(ch, &status);
	printf("event %s\n", got < 0 ? "none" : rdma_event_str(got));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, listen = 0, reuse = 0, hold = 1, err, one = 1, conn = 0;
	enum rdma_port_space ps = RDMA_PS_TCP;
	struct addrinfo *ai, hints = { .ai_flags = AI_NUMERICHOST };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	while ((opt = getopt(argc, argv, "lrxs:c")) != -1) {
		switch (opt) {
		case 'c':
			conn = 1;
			break;
		case 's':
			if (port_space(optarg, &ps))
				return EINVAL;
			break;
		case 'l':
			listen = 1;
			break;
		case 'r':
			reuse = 1;
			break;
		case 'x':
			hold = 0;
			break;
		default:
			return EINVAL;
		}
	}
	if (argc - optind != 2 ||
	    getaddrinfo(argv[optind], argv[optind + 1], &hints, &ai)) {
		fprintf(stderr, "usage: rdma_hold [-l] [-r] [-x] "
			"[-s tcp|udp|ipoib|ib] [-c] <address> <port>\n");
		return EINVAL;
	}
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, ps))
		return step("create", -1);
	if (conn && (err = connect_to(ch, id, ai->ai_addr)))
		return err;
	if (reuse && (err = step("reuseaddr", rdma_set_option(id, RDMA_OPTION_ID,
				RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)))))
		return err;
	if (!conn && (err = step("bind", rdma_bind_addr(id, ai->ai_addr))))
		return err;
	if (listen && (err = step("listen", rdma_listen(id, 8))))
		return err;
	if (hold) {
		printf("holding\n");
		fflush(stdout);
		pause();
	}
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	freeaddrinfo(ai);
	return 0;
}
