/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RDMA_TCP_PORT_TWIN_PROVIDER_H
#define _RDMA_TCP_PORT_TWIN_PROVIDER_H

#include <rdma/rdma_cm.h>

/* The module's work on the benchmark's paths, in C (twin_provider.c). */
extern struct rdma_cm_port_provider twin_port_provider;

#endif /* _RDMA_TCP_PORT_TWIN_PROVIDER_H */
