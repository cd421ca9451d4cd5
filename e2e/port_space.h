/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The port space a tool's -s option names: tcp, udp, ipoib or ib.
 */
#ifndef E2E_PORT_SPACE_H
#define E2E_PORT_SPACE_H

#include <string.h>
#include <rdma/rdma_cma.h>

/* Sets *@ps to the port space @name names: 0, or -1 for no such name. */
static inline int port_space(const char *name, enum rdma_port_space *ps)
{
	static const struct {
		const char *name;
		enum rdma_port_space ps;
	} spaces[] = {
		{ "tcp", RDMA_PS_TCP }, { "udp", RDMA_PS_UDP },
		{ "ipoib", RDMA_PS_IPOIB }, { "ib", RDMA_PS_IB },
	};
	unsigned int i;

	for (i = 0; i < sizeof(spaces) / sizeof(spaces[0]); i++) {
		if (!strcmp(name, spaces[i].name)) {
			*ps = spaces[i].ps;
			return 0;
		}
	}
	return -1;
}

#endif
