// SPDX-License-Identifier: GPL-2.0

// `deny`, not `forbid`: the statics that `module_param!` places in the
// `__param` and `.modinfo` sections count as `unsafe_code` to the lint,
// as do the `#[no_mangle]` setters of `kunit_param_setter!` (test builds),
// and the macros (`sys::param`, `sys::kunit`: the abstraction layer)
// allow them there.
#![deny(unsafe_code)]

//! The module's parameters, read at every bind, so each can be changed at
//! run time through `/sys/module/rdma_tcp_port/parameters/`. How they
//! reach the kernel is `sys::param`'s.

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};

use kernel::prelude::*;

use crate::policy::{self, Reserve};
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
use crate::sys::kunit::kunit_param_setter;
use crate::sys::param::{modinfo, module_param, ParamValue};

/// `idr`: also keep RDMA_PS_TCP ids in the rdma_cm's own port table.
///
/// On by default. IB and RoCE find their listeners in that table; with it
/// off the provider refuses ids bound to IB or RoCE devices (`EOPNOTSUPP`).
static IDR: AtomicBool = AtomicBool::new(true);

/// Whether binds from now on keep the rdma_cm's table (`idr`).
pub(crate) fn idr() -> bool {
    IDR.load(Ordering::Relaxed)
}

struct Idr;

impl ParamValue for Idr {
    fn set(val: Option<&[u8]>) -> Result {
        IDR.store(policy::parse_bool(val).ok_or(EINVAL)?, Ordering::Relaxed);
        Ok(())
    }

    fn get(buf: &mut [u8]) -> usize {
        write(buf, if idr() { b"Y\n" } else { b"N\n" })
    }
}

module_param!(
    Idr,
    "idr",
    "bool",
    "Also keep RDMA_PS_TCP ids in the rdma_cm port table (IB/RoCE listeners need it) (default: Y)"
);
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
kunit_param_setter!(bool Idr => rdma_tcp_port_kunit_set_idr);

/// `reserve`: which ids get a host port (`all`, `iwarp` or `none`, see
/// [`Reserve`]).
static RESERVE: AtomicU8 = AtomicU8::new(0);

/// The `reserve` policy for binds from now on.
pub(crate) fn reserve() -> Reserve {
    Reserve::from_u8(RESERVE.load(Ordering::Relaxed))
}

/// Sets `reserve` from a parameter string: `EINVAL` for an unknown name.
fn set_reserve(val: &[u8]) -> Result {
    let r = Reserve::parse(val).ok_or(EINVAL)?;
    RESERVE.store(r.to_u8(), Ordering::Relaxed);
    Ok(())
}

struct ReserveParam;

impl ParamValue for ReserveParam {
    fn set(val: Option<&[u8]>) -> Result {
        set_reserve(val.ok_or(EINVAL)?)
    }

    fn get(buf: &mut [u8]) -> usize {
        let len = write(buf, reserve().name().as_bytes());
        len + write(buf.get_mut(len..).unwrap_or_default(), b"\n")
    }
}

module_param!(
    ReserveParam,
    "reserve",
    "charp",
    "Which RDMA_PS_TCP ids get a host TCP port: all, iwarp (ids that can meet host TCP) or none (default: all)"
);
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
kunit_param_setter!(str ReserveParam => rdma_tcp_port_kunit_set_reserve);

/// `user_share`: the percentage of a namespace's ephemeral range that one
/// user without `CAP_NET_ADMIN` there may hold through RDMA ids (and never
/// more ports in all than its `RLIMIT_NOFILE`); 0 turns the cap off.
static USER_SHARE: AtomicU32 = AtomicU32::new(5);

/// The `user_share` cap for binds from now on.
pub(crate) fn user_share() -> u32 {
    USER_SHARE.load(Ordering::Relaxed)
}

/// Sets `user_share` from a parameter string: `EINVAL` unless 0 to 100.
fn set_user_share(val: &[u8]) -> Result {
    let share = policy::parse_share(val).ok_or(EINVAL)?;
    USER_SHARE.store(share, Ordering::Relaxed);
    Ok(())
}

struct UserShare;

impl ParamValue for UserShare {
    fn set(val: Option<&[u8]>) -> Result {
        set_user_share(val.ok_or(EINVAL)?)
    }

    fn get(buf: &mut [u8]) -> usize {
        policy::write_uint(buf, user_share())
    }
}

module_param!(
    UserShare,
    "user_share",
    "uint",
    "Percent of a namespace's ephemeral port range one uid without CAP_NET_ADMIN there may hold through RDMA ids, never more than its RLIMIT_NOFILE, nor than user.max_rdma_tcp_ports over all the uids it maps; 0: no cap (default: 5)"
);
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
kunit_param_setter!(str UserShare => rdma_tcp_port_kunit_set_user_share);

// MODULE_IMPORT_NS(RDMA_CM_PORT): the rdma_cm exports the hook there.
modinfo!("import_ns", "RDMA_CM_PORT");
// inc_ucount() and dec_ucount(): exported for this module (patch 21).
modinfo!("import_ns", "module:rdma_tcp_port");

/// Copies `s` to the start of `buf`, as much as fits; returns the length.
fn write(buf: &mut [u8], s: &[u8]) -> usize {
    let len = s.len().min(buf.len());
    buf[..len].copy_from_slice(&s[..len]);
    len
}
