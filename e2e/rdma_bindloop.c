// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bindloop: create, bind and destroy RDMA_PS_TCP ids in a loop, for a
 * profile of the bind path (make bench-profile).
 *
 *   rdma_bindloop <address> <count> port0|explicit
 *
 * explicit binds port 20000 + i % 20000. Prints the mean time per id and
 * how many binds failed. Exit status: 0, or 1 if an id cannot be created.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_event_channel *ch;
	struct timespec a, b;
	int n, explicit, i, fails = 0;

	if (argc != 4 || inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: rdma_bindloop <IPv4 address> <count> port0|explicit\n");
		return 1;
	}
	n = atoi(argv[2]);
	explicit = !strcmp(argv[3], "explicit");
	ch = rdma_create_event_channel();
	if (!ch)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		struct rdma_cm_id *id;

		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			return 1;
		sin.sin_port = explicit ? htons(20000 + i % 20000) : 0;
		if (rdma_bind_addr(id, (struct sockaddr *)&sin))
			fails++;
		rdma_destroy_id(id);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: %d ids, %d failed, %.2f us/id\n", argv[3], n, fails,
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / (n ? n : 1));
	rdma_destroy_event_channel(ch);
	return 0;
}
