// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_hold: take an RDMA_PS_TCP port through librdmacm, say how each step
 * went, and hold the port until killed (or exit at once with -x).
 *
 *   rdma_hold [-l] [-r] [-x] <address> <port>
 *	-l  also rdma_listen()
 *	-r  rdma_set_option(REUSEADDR) first
 *	-x  exit after the steps instead of holding the port
 *
 * Prints one line per step: "bind ok", "bind EADDRINUSE", "listen ok"...
 * Exit status: 0 if every step worked, else the errno of the failed step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

static int step(const char *what, int ret)
{
	int err = ret ? errno : 0;

	printf("%s %s\n", what, err ? strerrorname_np(err) : "ok");
	fflush(stdout);
	return err;
}

int main(int argc, char **argv)
{
	int opt, listen = 0, reuse = 0, hold = 1, err, one = 1;
	struct addrinfo *ai, hints = { .ai_flags = AI_NUMERICHOST };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	while ((opt = getopt(argc, argv, "lrx")) != -1) {
		switch (opt) {
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
		fprintf(stderr, "usage: rdma_hold [-l] [-r] [-x] <address> <port>\n");
		return EINVAL;
	}
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return step("create", -1);
	if (reuse && (err = step("reuseaddr", rdma_set_option(id, RDMA_OPTION_ID,
				RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)))))
		return err;
	if ((err = step("bind", rdma_bind_addr(id, ai->ai_addr))))
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
