/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RDMA_TCP_PORT_SEED_PROVIDER_H
#define _RDMA_TCP_PORT_SEED_PROVIDER_H

#include <rdma/rdma_cm.h>

/* The RFC's socket-per-id reservation in C (seed_provider.c). */
extern struct rdma_cm_port_provider seed_port_provider;

#endif /* _RDMA_TCP_PORT_SEED_PROVIDER_H */
