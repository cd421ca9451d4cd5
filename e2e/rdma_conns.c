// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_conns: many concurrent RDMA_PS_TCP connections through librdmacm's
 * synchronous calls, held until killed.
 *
 *   rdma_conns -s <address> <port> <count>
 *	accept <count> connections, then print "accepted <count>" and hold
 *   rdma_conns -c <count> <address> <port> [<address> <port>]...
 *	open <count> connections, round robin over the destinations, then
 *	print "connected <count> over <n> local ports" and hold
 *
 * On a failed step it prints "<step> <n> <ERRNAME>" and exits with the errno.
 * All QPs of a process share one CQ: siw maps at most 143 queues into a
 * process (SIW_UOBJ_MAX_KEY), so each connection may only cost two (SQ, RQ).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define MAX_CONNS 1024

static struct ibv_qp_init_attr qp_attr = {
	.cap = { .max_send_wr = 1, .max_recv_wr = 1,
		 .max_send_sge = 1, .max_recv_sge = 1 },
	.qp_type = IBV_QPT_RC,
};

/* A QP on @id, on the process's one CQ (made with the first QP). */
static int add_qp(struct rdma_cm_id *id)
{
	static struct ibv_cq *cq;

	if (!cq)
		cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	if (!cq)
		return -1;
	qp_attr.send_cq = cq;
	qp_attr.recv_cq = cq;
	return rdma_create_qp(id, NULL, &qp_attr);
}

static int fail(const char *what, int n)
{
	int err = errno ? errno : EIO;

	printf("%s %d %s\n", what, n, strerrorname_np(err));
	return err;
}

static struct rdma_addrinfo *resolve(const char *addr, const char *port,
				     int passive)
{
	struct rdma_addrinfo hints = {
		.ai_flags = passive ? RAI_PASSIVE : 0,
		.ai_port_space = RDMA_PS_TCP,
	}, *res;

	return rdma_getaddrinfo(addr, port, &hints, &res) ? NULL : res;
}

static int serve(const char *addr, const char *port, int count)
{
	struct rdma_addrinfo *res = resolve(addr, port, 1);
	struct rdma_cm_id *listen_id, *id;
	int i;

	if (!res || rdma_create_ep(&listen_id, res, NULL, NULL))
		return fail("listen-ep", 0);
	if (rdma_listen(listen_id, 128))
		return fail("listen", 0);
	printf("listening\n");
	fflush(stdout);
	for (i = 0; i < count; i++) {
		if (rdma_get_request(listen_id, &id))
			return fail("request", i);
		if (add_qp(id))
			return fail("qp", i);
		if (rdma_accept(id, NULL))
			return fail("accept", i);
	}
	printf("accepted %d\n", count);
	fflush(stdout);
	pause();
	return 0;
}

static int connect_all(int count, char **dst, int ndst)
{
	static struct rdma_cm_id *ids[MAX_CONNS];
	static unsigned char seen[65536];
	int i, ports = 0;

	for (i = 0; i < count; i++) {
		struct rdma_addrinfo *res;
		struct sockaddr_in *src;
		int d = i % ndst;

		res = resolve(dst[2 * d], dst[2 * d + 1], 0);
		if (!res || rdma_create_ep(&ids[i], res, NULL, NULL))
			return fail("resolve", i);
		rdma_freeaddrinfo(res);
		if (add_qp(ids[i]))
			return fail("qp", i);
		if (rdma_connect(ids[i], NULL))
			return fail("connect", i);
		/* The port sits at the same offset for both families. */
		src = (struct sockaddr_in *)rdma_get_local_addr(ids[i]);
		if (!seen[ntohs(src->sin_port)]++)
			ports++;
	}
	printf("connected %d over %d local ports\n", count, ports);
	fflush(stdout);
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "-s"))
		return serve(argv[2], argv[3], atoi(argv[4]));
	if (argc >= 5 && argc % 2 && !strcmp(argv[1], "-c") &&
	    atoi(argv[2]) > 0 && atoi(argv[2]) <= MAX_CONNS)
		return connect_all(atoi(argv[2]), argv + 3, (argc - 3) / 2);
	fprintf(stderr, "usage: rdma_conns -s <addr> <port> <count>\n"
		"       rdma_conns -c <count> <addr> <port> [<addr> <port>]...\n");
	return EINVAL;
}
