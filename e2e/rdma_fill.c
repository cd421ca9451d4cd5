// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_fill: bind ids to <address> port 0 until one is refused (or <max> are
 * bound), say how many and why, and hold them until killed.
 *
 *   rdma_fill [-n max] [-p] [-x] [-l] [-s tcp|udp|ipoib|ib] <address>
 *	-p  print "progress <n>" every 100 ids (a memory cgroup may kill us)
 *	-x  exit at once instead of holding the ids
 *	-l  also rdma_listen() each id; a refused listen keeps the id bound
 *	-s  the ids' port space (default tcp, RDMA_PS_TCP)
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

int main(int argc, char **argv)
{
	struct addrinfo *ai, hints = { .ai_flags = AI_NUMERICHOST };
	struct rdma_event_channel *ch;
	int opt, n, max = 1 << 20, hold = 1, progress = 0, err = 0;
	int listen = 0, listened = 0, refused = 0, lerr = 0;
	enum rdma_port_space ps = RDMA_PS_TCP;
	struct rdma_cm_id *id;

	while ((opt = getopt(argc, argv, "n:pxls:")) != -1) {
		switch (opt) {
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
			"[-s tcp|udp|ipoib|ib] <address>\n");
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
		if (rdma_bind_addr(id, ai->ai_addr)) {
			err = errno;
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
