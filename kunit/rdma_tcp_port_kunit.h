/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the built-in Rust provider exports for the KUnit suite, in test builds
 * only (CONFIG_RDMA_TCP_PORT_KUNIT_TEST; src/sys/kunit.rs, and src/param.rs
 * for the parameters).
 */
#ifndef _RDMA_TCP_PORT_KUNIT_H
#define _RDMA_TCP_PORT_KUNIT_H

#include <rdma/rdma_cm.h>

/* The provider registered at boot, whose operations a test provider may call. */
const struct rdma_cm_port_provider *rdma_tcp_port_kunit_provider(void);
/* Take that provider away from the rdma_cm, until it is registered again. */
void rdma_tcp_port_kunit_unregister(void);
/* Register it again: 0, or -EBUSY while a provider is registered. */
int rdma_tcp_port_kunit_register(void);
/* Set the module's idr parameter, as writing Y or N would; 0. */
int rdma_tcp_port_kunit_set_idr(bool on);
/* Set the module's reserve parameter ("all", "iwarp", "none"); 0 or -EINVAL. */
int rdma_tcp_port_kunit_set_reserve(const char *val);
/* Set the module's user_share parameter ("0" to "100"); 0 or -EINVAL. */
int rdma_tcp_port_kunit_set_user_share(const char *val);

#endif /* _RDMA_TCP_PORT_KUNIT_H */
