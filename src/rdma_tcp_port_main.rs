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
//! Layers, one file each:
//! - `provider`: the `struct rdma_cm_port_ops` callbacks (C boundary);
//! - `reservation`: a port held by a kernel TCP socket (socket layer);
//! - `net`: the id's network namespace (its port range and sysctls);
//! - `ports`: the ports held per namespace, for the ephemeral search;
//! - `ephemeral`: that search, pure, also unit-tested on the host;
//! - `active`: active-side ports shared under the 4-tuple rule;
//! - `limit`: the ports each user holds, and the cap on them;
//! - `caller`: the task asking for a port (uid, `RLIMIT_NOFILE`);
//! - `policy`: pure decisions, also unit-tested on the host;
//! - `param`: the module parameters.

use kernel::prelude::*;

mod active;
mod caller;
pub mod ephemeral;
mod errno;
mod limit;
mod net;
mod param;
pub mod policy;
mod ports;
mod provider;
mod reservation;

module! {
    type: RdmaTcpPort,
    name: "rdma_tcp_port",
    author: "rdma_tcp_port developers",
    description: "Hold rdma_cm RDMA_PS_TCP ports in the host TCP port space",
    license: "GPL",
}

struct RdmaTcpPort {
    _provider: provider::Provider,
}

impl kernel::Module for RdmaTcpPort {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let provider = provider::Provider::register()?;
        pr_info!(
            "RDMA_PS_TCP ports now come from the host TCP stack (reserve={}, idr={}, user_share={})\n",
            param::reserve().name(),
            param::idr(),
            param::user_share()
        );
        Ok(Self {
            _provider: provider,
        })
    }
}

/// For the built-in KUnit suite: the ops this module registers.
#[cfg(not(MODULE))]
#[no_mangle]
pub extern "C" fn rdma_tcp_port_kunit_ops() -> *const kernel::bindings::rdma_cm_port_ops {
    provider::OPS.as_ptr()
}

/// For the built-in KUnit suite: sets the `idr` parameter, returns the old value.
#[cfg(not(MODULE))]
#[no_mangle]
pub extern "C" fn rdma_tcp_port_kunit_set_idr(on: bool) -> bool {
    param::set_idr(on)
}

/// For the built-in KUnit suite: sets the `reserve` parameter from its
/// string form, as sysfs would; 0 or `-EINVAL`.
///
/// # Safety
///
/// `val` is a NUL-terminated string.
#[cfg(not(MODULE))]
#[no_mangle]
pub unsafe extern "C" fn rdma_tcp_port_kunit_set_reserve(val: *const kernel::ffi::c_char) -> i32 {
    // SAFETY: the caller passes a NUL-terminated string.
    let val = unsafe { core::ffi::CStr::from_ptr(val.cast()) };
    kernel::error::from_result(|| {
        param::set_reserve(val.to_bytes())?;
        Ok(0)
    })
}

/// For the built-in KUnit suite: sets the `user_share` parameter from its
/// string form, as sysfs would; 0 or `-EINVAL`.
///
/// # Safety
///
/// `val` is a NUL-terminated string.
#[cfg(not(MODULE))]
#[no_mangle]
pub unsafe extern "C" fn rdma_tcp_port_kunit_set_user_share(
    val: *const kernel::ffi::c_char,
) -> i32 {
    // SAFETY: the caller passes a NUL-terminated string.
    let val = unsafe { core::ffi::CStr::from_ptr(val.cast()) };
    kernel::error::from_result(|| {
        param::set_user_share(val.to_bytes())?;
        Ok(0)
    })
}
