// SPDX-License-Identifier: GPL-2.0
/*
 * The C baseline for `make bench`: Steve Wise's 2007 RFC (a kernel TCP
 * socket bound to the id's address, kept until cma_release_port()),
 * forward-ported to Linux 6.12 as a provider behind the same hook as the
 * Rust module.  As in the RFC the rdma_cm's own table keeps the port too,
 * and the socket simply binds with the id's reuse setting.  Unlike the RFC
 * it reads back the port the host chose for port 0, which the RFC left to
 * the rdma_cm's table to pick again.  Built only into the benchmark kernel.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <net/sock.h>
#include <rdma/ib_addr.h>
#include <rdma/rdma_cm.h>

#include "seed_provider.h"

static int seed_get_port(void *priv, struct rdma_cm_port_req *req,
			 struct socket **sockp)
{
	struct sockaddr *src = (struct sockaddr *)req->src;
	struct sockaddr_storage ss;
	struct socket *sock;
	int ret;

	ret = sock_create_kern(req->net, src->sa_family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (ret)
		return ret;
	if (req->reuseaddr)
		sock_set_reuseaddr(sock->sk);
	ret = kernel_bind(sock, src, rdma_addr_size(src));
	if (!ret)
		ret = kernel_getsockname(sock, (struct sockaddr *)&ss);
	if (ret < 0) {
		sock_release(sock);
		return ret;
	}
	if (src->sa_family == AF_INET)
		((struct sockaddr_in *)src)->sin_port =
			((struct sockaddr_in *)&ss)->sin_port;
	else
		((struct sockaddr_in6 *)src)->sin6_port =
			((struct sockaddr_in6 *)&ss)->sin6_port;
	req->track = true;
	*sockp = sock;
	return 0;
}

/* The RFC made no listen-time check: no listen operation. */

static void seed_release_port(void *priv, struct socket *sock)
{
	sock_release(sock);
}

static const struct rdma_cm_port_ops seed_port_ops = {
	.get_port = seed_get_port,
	.release_port = seed_release_port,
};

struct rdma_cm_port_provider seed_port_provider = {
	.ops = &seed_port_ops,
	.owner = THIS_MODULE,
};
