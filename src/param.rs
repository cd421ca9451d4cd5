// SPDX-License-Identifier: GPL-2.0

//! The module's parameters.
//!
//! The `module!` macro of Linux 6.12 has no parameters, so this file lays
//! out what `module_param()` would: a `struct kernel_param` in the
//! `__param` section and the `parm`/`parmtype` strings in `.modinfo`.
//! Built in, both carry the `rdma_tcp_port.` prefix, as C's do.

use core::ffi::CStr;

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};
use kernel::ffi::c_int;

use kernel::bindings;
use kernel::error::code::EINVAL;
use kernel::error::from_result;

use crate::policy::{self, Reserve};

/// `idr`: also keep RDMA_PS_TCP ids in the rdma_cm's own port table.
///
/// On by default. IB and RoCE find their listeners in that table; with it
/// off the provider refuses ids bound to IB or RoCE devices (`EOPNOTSUPP`).
/// Read at every bind, so it can be changed at run time through sysfs.
pub(crate) static IDR: AtomicBool = AtomicBool::new(true);

/// Whether binds from now on keep the rdma_cm's table (`idr`).
pub(crate) fn idr() -> bool {
    IDR.load(Ordering::Relaxed)
}

/// Sets `idr`, returning its previous value (for the KUnit suite).
#[cfg(not(MODULE))]
pub(crate) fn set_idr(on: bool) -> bool {
    IDR.swap(on, Ordering::Relaxed)
}

/// `reserve`: which ids get a host port (`all`, `iwarp` or `none`, see
/// [`Reserve`]). Read at every bind, so it can be changed through sysfs.
static RESERVE: AtomicU8 = AtomicU8::new(0);

/// The `reserve` policy for binds from now on.
pub(crate) fn reserve() -> Reserve {
    Reserve::from_u8(RESERVE.load(Ordering::Relaxed))
}

/// Sets `reserve` from a parameter string: `EINVAL` for an unknown name.
pub(crate) fn set_reserve(val: &[u8]) -> kernel::error::Result {
    let r = Reserve::parse(val).ok_or(EINVAL)?;
    RESERVE.store(r.to_u8(), Ordering::Relaxed);
    Ok(())
}

/// `kernel_param_ops::set` for `reserve`.
///
/// # Safety
///
/// `val` is null or a NUL-terminated string, as the kernel passes it.
unsafe extern "C" fn reserve_set(val: *const u8, _kp: *const bindings::kernel_param) -> c_int {
    if val.is_null() {
        return EINVAL.to_errno();
    }
    // SAFETY: the kernel passes a NUL-terminated string.
    let val = unsafe { CStr::from_ptr(val.cast()) };
    from_result(|| {
        set_reserve(val.to_bytes())?;
        Ok(0)
    })
}

/// `kernel_param_ops::get` for `reserve`: the name and a newline.
///
/// # Safety
///
/// `buf` has room for a page, as the kernel gives sysfs readers.
unsafe extern "C" fn reserve_get(buf: *mut u8, _kp: *const bindings::kernel_param) -> c_int {
    let name = reserve().name().as_bytes();
    // SAFETY: the names are a few bytes, far less than the page at `buf`.
    unsafe {
        core::ptr::copy_nonoverlapping(name.as_ptr(), buf, name.len());
        *buf.add(name.len()) = b'\n';
    }
    (name.len() + 1) as c_int
}

/// `user_share`: the percentage of a namespace's ephemeral range that one
/// user without `CAP_NET_ADMIN` there may hold through RDMA ids (and never
/// more ports in all than its `RLIMIT_NOFILE`); 0 turns the cap off. Read
/// at every bind, so it can be changed at run time through sysfs.
static USER_SHARE: AtomicU32 = AtomicU32::new(5);

/// The `user_share` cap for binds from now on.
pub(crate) fn user_share() -> u32 {
    USER_SHARE.load(Ordering::Relaxed)
}

/// Sets `user_share` from a parameter string: `EINVAL` unless 0 to 100.
pub(crate) fn set_user_share(val: &[u8]) -> kernel::error::Result {
    let share = policy::parse_share(val).ok_or(EINVAL)?;
    USER_SHARE.store(share, Ordering::Relaxed);
    Ok(())
}

/// `kernel_param_ops::set` for `user_share`.
///
/// # Safety
///
/// `val` is null or a NUL-terminated string, as the kernel passes it.
unsafe extern "C" fn user_share_set(val: *const u8, _kp: *const bindings::kernel_param) -> c_int {
    if val.is_null() {
        return EINVAL.to_errno();
    }
    // SAFETY: the kernel passes a NUL-terminated string.
    let val = unsafe { CStr::from_ptr(val.cast()) };
    from_result(|| {
        set_user_share(val.to_bytes())?;
        Ok(0)
    })
}

/// `kernel_param_ops::get` for `user_share`: the number and a newline.
///
/// # Safety
///
/// `buf` has room for a page, as the kernel gives sysfs readers.
unsafe extern "C" fn user_share_get(buf: *mut u8, _kp: *const bindings::kernel_param) -> c_int {
    let share = user_share();
    let digits = [
        (share / 100) as u8,
        (share / 10 % 10) as u8,
        (share % 10) as u8,
    ];
    let skip = if share >= 100 {
        0
    } else if share >= 10 {
        1
    } else {
        2
    };
    let mut len = 0;
    for d in &digits[skip..] {
        // SAFETY: at most four bytes are written into the page at `buf`.
        unsafe { *buf.add(len) = b'0' + d };
        len += 1;
    }
    // SAFETY: as above.
    unsafe { *buf.add(len) = b'\n' };
    (len + 1) as c_int
}

static USER_SHARE_OPS: bindings::kernel_param_ops = bindings::kernel_param_ops {
    flags: 0,
    set: Some(user_share_set),
    get: Some(user_share_get),
    free: None,
};

static RESERVE_OPS: bindings::kernel_param_ops = bindings::kernel_param_ops {
    flags: 0,
    set: Some(reserve_set),
    get: Some(reserve_get),
    free: None,
};

// Declared as `module!` declares it. Without lockdep `struct module` holds
// an empty `struct lockdep_map`, which the lint calls not FFI-safe; only
// the symbol's address is taken here, never its contents.
#[cfg(MODULE)]
#[allow(improper_ctypes)]
extern "C" {
    static mut __this_module: kernel::types::Opaque<bindings::module>;
}

/// `THIS_MODULE`, usable in a static initializer.
pub(crate) const fn this_module() -> *mut bindings::module {
    #[cfg(MODULE)]
    {
        // Taking the address of an extern static needs no `unsafe`;
        // `Opaque<T>` has the layout of `T`.
        (&raw mut __this_module).cast()
    }
    #[cfg(not(MODULE))]
    {
        core::ptr::null_mut()
    }
}

#[repr(transparent)]
struct KernelParam(bindings::kernel_param);

// SAFETY: the kernel reads the descriptor only; the values behind it are
// atomics, written by the ops under the kernel's param lock.
unsafe impl Sync for KernelParam {}

#[cfg(MODULE)]
const IDR_NAME: &CStr = c"idr";
#[cfg(not(MODULE))]
const IDR_NAME: &CStr = c"rdma_tcp_port.idr";
#[cfg(MODULE)]
const RESERVE_NAME: &CStr = c"reserve";
#[cfg(not(MODULE))]
const RESERVE_NAME: &CStr = c"rdma_tcp_port.reserve";

#[link_section = "__param"]
#[used]
static IDR_PARAM: KernelParam = KernelParam(bindings::kernel_param {
    name: IDR_NAME.as_ptr().cast(),
    mod_: this_module(),
    ops: &raw const bindings::param_ops_bool,
    perm: 0o644,
    level: -1,
    flags: 0,
    __bindgen_anon_1: bindings::kernel_param__bindgen_ty_1 {
        arg: IDR.as_ptr().cast(),
    },
});

#[cfg(MODULE)]
const USER_SHARE_NAME: &CStr = c"user_share";
#[cfg(not(MODULE))]
const USER_SHARE_NAME: &CStr = c"rdma_tcp_port.user_share";

#[link_section = "__param"]
#[used]
static USER_SHARE_PARAM: KernelParam = KernelParam(bindings::kernel_param {
    name: USER_SHARE_NAME.as_ptr().cast(),
    mod_: this_module(),
    ops: &raw const USER_SHARE_OPS,
    perm: 0o644,
    level: -1,
    flags: 0,
    __bindgen_anon_1: bindings::kernel_param__bindgen_ty_1 {
        arg: core::ptr::null_mut(),
    },
});

#[link_section = "__param"]
#[used]
static RESERVE_PARAM: KernelParam = KernelParam(bindings::kernel_param {
    name: RESERVE_NAME.as_ptr().cast(),
    mod_: this_module(),
    ops: &raw const RESERVE_OPS,
    perm: 0o644,
    level: -1,
    flags: 0,
    __bindgen_anon_1: bindings::kernel_param__bindgen_ty_1 {
        arg: core::ptr::null_mut(),
    },
});

macro_rules! modinfo {
    ($name:ident, $loadable:literal, $builtin:literal) => {
        #[cfg(MODULE)]
        #[link_section = ".modinfo"]
        #[used]
        static $name: [u8; $loadable.len()] = *$loadable;
        #[cfg(not(MODULE))]
        #[link_section = ".modinfo"]
        #[used]
        static $name: [u8; $builtin.len()] = *$builtin;
    };
}

modinfo!(
    IDR_PARMTYPE,
    b"parmtype=idr:bool\0",
    b"rdma_tcp_port.parmtype=idr:bool\0"
);
modinfo!(
    IDR_PARM,
    b"parm=idr:Also keep RDMA_PS_TCP ids in the rdma_cm port table (IB/RoCE listeners need it) (default: Y)\0",
    b"rdma_tcp_port.parm=idr:Also keep RDMA_PS_TCP ids in the rdma_cm port table (IB/RoCE listeners need it) (default: Y)\0"
);
modinfo!(
    RESERVE_PARM,
    b"parm=reserve:Which RDMA_PS_TCP ids get a host TCP port: all, iwarp (ids that can meet host TCP) or none (default: all)\0",
    b"rdma_tcp_port.parm=reserve:Which RDMA_PS_TCP ids get a host TCP port: all, iwarp (ids that can meet host TCP) or none (default: all)\0"
);
modinfo!(
    USER_SHARE_PARMTYPE,
    b"parmtype=user_share:uint\0",
    b"rdma_tcp_port.parmtype=user_share:uint\0"
);
modinfo!(
    USER_SHARE_PARM,
    b"parm=user_share:Percent of a namespace's ephemeral port range one user without CAP_NET_ADMIN there may hold through RDMA ids, never more than its RLIMIT_NOFILE; 0: no cap (default: 5)\0",
    b"rdma_tcp_port.parm=user_share:Percent of a namespace's ephemeral port range one user without CAP_NET_ADMIN there may hold through RDMA ids, never more than its RLIMIT_NOFILE; 0: no cap (default: 5)\0"
);
// MODULE_IMPORT_NS(RDMA_CM_PORT): the rdma_cm exports the hook there.
modinfo!(
    IMPORT_NS,
    b"import_ns=RDMA_CM_PORT\0",
    b"rdma_tcp_port.import_ns=RDMA_CM_PORT\0"
);
