/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RDMA_TCP_PORT_SEED_PROVIDER_H
#define _RDMA_TCP_PORT_SEED_PROVIDER_H

#include <rdma/rdma_cm.h>

/* The RFC's socket-per-id reservation in C (seed_provider.c). */
extern const struct rdma_cm_port_ops seed_port_ops;

#endif /* _RDMA_TCP_PORT_SEED_PROVIDER_H */
