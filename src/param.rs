// SPDX-License-Identifier: GPL-2.0

//! The module's parameters.
//!
//! The `module!` macro of Linux 6.12 has no parameters, so this file lays
//! out what `module_param()` would: a `struct kernel_param` in the
//! `__param` section and the `parm`/`parmtype` strings in `.modinfo`.
//! Built in, both carry the `rdma_tcp_port.` prefix, as C's do.

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::bindings;

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

#[cfg(MODULE)]
extern "C" {
    static mut __this_module: bindings::module;
}

/// `THIS_MODULE`, usable in a static initializer.
pub(crate) const fn this_module() -> *mut bindings::module {
    #[cfg(MODULE)]
    {
        // Taking the address of an extern static needs no `unsafe`.
        &raw mut __this_module
    }
    #[cfg(not(MODULE))]
    {
        core::ptr::null_mut()
    }
}

#[repr(transparent)]
struct KernelParam(bindings::kernel_param);

// SAFETY: the kernel reads the descriptor only; the value it points to is an
// `AtomicBool`, written by `param_ops_bool` under the kernel's param lock.
unsafe impl Sync for KernelParam {}

#[cfg(MODULE)]
const IDR_NAME: &core::ffi::CStr = c"idr";
#[cfg(not(MODULE))]
const IDR_NAME: &core::ffi::CStr = c"rdma_tcp_port.idr";

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
// MODULE_IMPORT_NS(RDMA_CM_PORT): the rdma_cm exports the hook there.
modinfo!(
    IMPORT_NS,
    b"import_ns=RDMA_CM_PORT\0",
    b"rdma_tcp_port.import_ns=RDMA_CM_PORT\0"
);
