// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_fill: bind ids to <address> port 0 until one is refused (or <max> are
 * bound), say how many and why, and hold them until killed.
 *
 *   rdma_fill [-n max] [-p] [-x] [-l] [-s tcp|udp|ipoib|ib] [-r dst] <address>
 *	-p  print "progress <n>" every 100 ids (a memory cgroup may kill us)
 *	-x  exit at once instead of holding the ids
 *	-l  also rdma_listen() each id; a refused listen keeps the id bound
 *	-s  the ids' port space (default tcp, RDMA_PS_TCP)
 *	-r  instead of binding, rdma_resolve_addr() from <address> to <dst>
 *	    (port 9): the implicit bind of an active-side id; counted as bound
 *	    once its address is resolved
 *
 * Prints "bound <n> <ERRNAME>" ("ok" if <max> was reached), with -l then
 * "listened <n> refused <m> <ERRNAME>" (the last refusal's, "-" if none),
 * then "holding".  Exit status: 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include "port_space.h"

/* rdma_resolve_addr() @id to @dst, and wait for its event: 0 or an errno. */
static int resolve(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		   struct sockaddr *src, struct sockaddr *dst)
{
	struct rdma_cm_event *ev;
	int err;

	if (rdma_resolve_addr(id, src, dst, 2000))
		return errno;
	if (rdma_get_cm_event(ch, &ev))
		return errno;
	err = ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ? 0 :
	      ev->status < 0 ? -ev->status : EHOSTUNREACH;
	rdma_ack_cm_event(ev);
	return err;
}

int main(int argc, char **argv)
{
	struct addrinfo *ai, *dst = NULL, hints = { .ai_flags = AI_NUMERICHOST };
	struct rdma_event_channel *ch;
	int opt, n, max = 1 << 20, hold = 1, progress = 0, err = 0;
	int listen = 0, listened = 0, refused = 0, lerr = 0;
	enum rdma_port_space ps = RDMA_PS_TCP;
	struct rdma_cm_id *id;

	while ((opt = getopt(argc, argv, "n:pxls:r:")) != -1) {
		switch (opt) {
		case 'r':
			if (getaddrinfo(optarg, "9", &hints, &dst))
				return EINVAL;
			break;
		case 'l':
			listen = 1;
			break;
		case 's':
			if (port_space(optarg, &ps))
				return EINVAL;
			break;
		case 'p':
			progress = 1;
			break;
		case 'n':
			max = atoi(optarg);
			break;
		case 'x':
			hold = 0;
			break;
		default:
			return EINVAL;
		}
	}
	if (argc - optind != 1 ||
	    getaddrinfo(argv[optind], "0", &hints, &ai)) {
		fprintf(stderr, "usage: rdma_fill [-n max] [-p] [-x] [-l] "
			"[-s tcp|udp|ipoib|ib] [-r dst] <address>\n");
		return EINVAL;
	}
	ch = rdma_create_event_channel();
	if (!ch) {
		printf("bound 0 %s\n", strerrorname_np(errno));
		return 0;
	}
	for (n = 0; n < max; n++) {
		if (rdma_create_id(ch, &id, NULL, ps)) {
			err = errno;
			break;
		}
		err = dst ? resolve(ch, id, ai->ai_addr, dst->ai_addr) :
		      rdma_bind_addr(id, ai->ai_addr) ? errno : 0;
		if (err) {
			rdma_destroy_id(id);
			break;
		}
		if (listen && rdma_listen(id, 8)) {
			lerr = errno;
			refused++;
		} else if (listen) {
			listened++;
		}
		if (progress && (n + 1) % 100 == 0) {
			printf("progress %d\n", n + 1);
			fflush(stdout);
		}
	}
	printf("bound %d %s\n", n, err ? strerrorname_np(err) : "ok");
	if (listen)
		printf("listened %d refused %d %s\n", listened, refused,
		       lerr ? strerrorname_np(lerr) : "-");
	fflush(stdout);
	if (hold) {
		printf("holding\n");
		fflush(stdout);
		pause();
	}
	return 0;
}
