// SPDX-License-Identifier: GPL-2.0

//! rdma_tcp_port: RDMA_PS_TCP ports held in the host TCP port space.
//!
//! On iWARP the RNIC speaks TCP on the host's addresses, yet the rdma_cm
//! hands out RDMA_PS_TCP ports from a table of its own, so an RDMA service
//! and a sockets service can end up on one port and receive each other's
//! connections. This module takes each RDMA_PS_TCP port from the host TCP
//! stack instead, with a bound kernel socket that the rdma_cm keeps in the
//! id until `cma_release_port()` (Steve Wise's 2007 RFC, done as a
//! provider behind the hook that `patches/` adds to the rdma_cm).
//!
//! Layers: the driver, safe Rust, in this directory:
//! - `provider`: the port provider, the rdma_cm's callbacks as a trait;
//! - `ports`: the ports held per namespace, for the ephemeral search;
//! - `ephemeral`: that search, pure, also unit-tested on the host;
//! - `active`: active-side ports shared under the 4-tuple rule;
//! - `limit`: the ports each user holds, and the cap on them;
//! - `caller`: the task asking for a port (uid, `RLIMIT_NOFILE`);
//! - `policy`: pure decisions, also unit-tested on the host;
//! - `param`: the module parameters;
//!
//! and under it `sys/`, the abstraction layer over the C objects (the
//! rdma_cm's hook, a kernel TCP socket, a namespace, the task), which holds
//! every `unsafe` block.

use kernel::prelude::*;

mod active;
mod caller;
pub mod ephemeral;
mod limit;
mod param;
pub mod policy;
mod ports;
mod provider;
mod sys;

module! {
    type: RdmaTcpPort,
    name: "rdma_tcp_port",
    author: "rdma_tcp_port developers",
    description: "Hold rdma_cm RDMA_PS_TCP ports in the host TCP port space",
    license: "GPL",
}

// MODULE_VERSION(), which 6.12's `module!` lacks: the project's version,
// as in the workspace's Cargo.toml.
sys::param::modinfo!("version", "0.1.0");

struct RdmaTcpPort {
    _provider: sys::port_provider::Registration<provider::Provider>,
}

impl kernel::Module for RdmaTcpPort {
    fn init(module: &'static ThisModule) -> Result<Self> {
        let registration =
            sys::port_provider::Registration::new(module, provider::Provider::new())?;
        #[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
        registration.publish_built_in();
        pr_info!(
            concat!(
                "RDMA_PS_TCP ports now come from the host TCP stack ",
                "(reserve={}, idr={}, user_share={})\n"
            ),
            param::reserve().name(),
            param::idr(),
            param::user_share()
        );
        Ok(Self {
            _provider: registration,
        })
    }
}
