/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the built-in Rust provider (src/rdma_tcp_port_main.rs) exports for the
 * KUnit suite only.
 */
#ifndef _RDMA_TCP_PORT_KUNIT_H
#define _RDMA_TCP_PORT_KUNIT_H

#include <rdma/rdma_cm.h>

/* The provider registered at boot, to take it away and bring it back. */
struct rdma_cm_port_provider *rdma_tcp_port_kunit_provider(void);
/* Set the module's idr parameter; returns its previous value. */
bool rdma_tcp_port_kunit_set_idr(bool on);
/* Set the module's reserve parameter ("all", "iwarp", "none"); 0 or -EINVAL. */
int rdma_tcp_port_kunit_set_reserve(const char *val);
/* Set the module's user_share parameter ("0" to "100"); 0 or -EINVAL. */
int rdma_tcp_port_kunit_set_user_share(const char *val);

#endif /* _RDMA_TCP_PORT_KUNIT_H */
