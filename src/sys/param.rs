// SPDX-License-Identifier: GPL-2.0

//! Module parameters, a stopgap: the `module!` macro of Linux 6.12 has no
//! parameters (they arrive in 6.19), so this file lays out what
//! `module_param_cb()` would: a `struct kernel_param` in the `__param`
//! section and the `parm`/`parmtype` strings in `.modinfo`. Built in, both
//! carry the `rdma_tcp_port.` prefix, as C's do. A parameter is a type
//! that implements [`ParamValue`], declared with [`module_param!`].

use kernel::bindings;
use kernel::error::from_result;
use kernel::ffi::{c_char, c_int};
use kernel::prelude::*;

/// A parameter's value, read and written as text (sysfs, the command line).
pub(crate) trait ParamValue {
    /// Parses and stores `val` (`None`: the name alone, as `idr` with no
    /// `=`); `EINVAL` if it is not a valid value.
    fn set(val: Option<&[u8]>) -> Result;
    /// Writes the value and a newline into `buf`; returns the length.
    fn get(buf: &mut [u8]) -> usize;
}

/// `struct kernel_param_ops` for a [`ParamValue`].
#[repr(transparent)]
pub(crate) struct ParamOps(bindings::kernel_param_ops);

// SAFETY: the kernel only reads the table; its functions may run anywhere.
unsafe impl Sync for ParamOps {}

impl ParamOps {
    pub(crate) const fn new<T: ParamValue>() -> Self {
        Self(bindings::kernel_param_ops {
            flags: 0,
            set: Some(set::<T>),
            get: Some(get::<T>),
            free: None,
        })
    }
}

/// # Safety
///
/// `val` is null or a NUL-terminated string, as the kernel passes it.
pub(super) unsafe extern "C" fn set<T: ParamValue>(
    val: *const c_char,
    _kp: *const bindings::kernel_param,
) -> c_int {
    // SAFETY: the kernel passes null or a NUL-terminated string.
    let val = (!val.is_null()).then(|| unsafe { core::ffi::CStr::from_ptr(val.cast()) });
    from_result(|| {
        T::set(val.map(|v| v.to_bytes()))?;
        Ok(0)
    })
}

/// # Safety
///
/// `buf` is a page, as the kernel gives parameter readers
/// (`param_attr_show()`).
unsafe extern "C" fn get<T: ParamValue>(
    buf: *mut c_char,
    _kp: *const bindings::kernel_param,
) -> c_int {
    // SAFETY: the kernel passes a page of its own for the call.
    let buf = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), bindings::PAGE_SIZE) };
    let len = T::get(buf).min(buf.len());
    // Lossless: at most a page.
    len as c_int
}

// Declared as `module!` declares it. Without lockdep `struct module` holds
// an empty `struct lockdep_map`, which the lint calls not FFI-safe; only
// the symbol's address is taken here, never its contents.
#[cfg(MODULE)]
#[allow(improper_ctypes)]
extern "C" {
    static mut __this_module: kernel::types::Opaque<bindings::module>;
}

/// `THIS_MODULE`, usable in a static initializer (`kernel_param::mod`,
/// which pins the module while sysfs uses the parameter).
const fn this_module() -> *mut bindings::module {
    #[cfg(MODULE)]
    {
        // Taking the address of an extern static needs no `unsafe`;
        // `Opaque<T>` has the layout of `T`.
        core::ptr::addr_of_mut!(__this_module).cast()
    }
    #[cfg(not(MODULE))]
    {
        core::ptr::null_mut()
    }
}

/// A `struct kernel_param`, for the `__param` section.
#[repr(transparent)]
pub(crate) struct KernelParam(bindings::kernel_param);

// SAFETY: the kernel reads the descriptor only; the values behind it are
// the [`ParamValue`]'s, which synchronise themselves.
unsafe impl Sync for KernelParam {}

impl KernelParam {
    /// The parameter `name` (with the prefix when built in), mode 0644.
    pub(crate) const fn new(name: &'static core::ffi::CStr, ops: &'static ParamOps) -> Self {
        Self(bindings::kernel_param {
            name: name.as_ptr().cast(),
            mod_: this_module(),
            ops: &ops.0,
            perm: 0o644,
            level: -1,
            flags: 0,
            __bindgen_anon_1: bindings::kernel_param__bindgen_ty_1 {
                arg: core::ptr::null_mut(),
            },
        })
    }
}

/// The bytes of `s`, as an array for a `.modinfo` entry.
pub(crate) const fn bytes<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    let mut a = [0u8; N];
    let mut i = 0;
    while i < N {
        a[i] = b[i];
        i += 1;
    }
    a
}

/// A `.modinfo` entry `key=value` (with the prefix when built in).
macro_rules! modinfo {
    ($key:literal, $value:expr) => {
        const _: () = {
            #[cfg(MODULE)]
            const S: &str = concat!($key, "=", $value, "\0");
            #[cfg(not(MODULE))]
            const S: &str = concat!("rdma_tcp_port.", $key, "=", $value, "\0");
            // Placing a static in a section is `unsafe_code` to the lint:
            // the section's reader (modpost, the module loader) relies on
            // its layout, which these NUL-terminated strings follow.
            #[allow(unsafe_code)]
            #[link_section = ".modinfo"]
            #[used]
            static INFO: [u8; S.len()] = $crate::sys::param::bytes(S);
        };
    };
}
pub(crate) use modinfo;

/// Declares the parameter `$name` of C type `$type`, whose value is the
/// [`ParamValue`] `$value`, with its description.
macro_rules! module_param {
    ($value:ty, $name:literal, $type:literal, $desc:literal) => {
        const _: () = {
            use $crate::sys::param::{KernelParam, ParamOps};
            static OPS: ParamOps = ParamOps::new::<$value>();
            #[cfg(MODULE)]
            const NAME: &str = concat!($name, "\0");
            #[cfg(not(MODULE))]
            const NAME: &str = concat!("rdma_tcp_port.", $name, "\0");
            const CNAME: &core::ffi::CStr =
                match core::ffi::CStr::from_bytes_with_nul(NAME.as_bytes()) {
                    Ok(name) => name,
                    Err(_) => panic!("parameter name"),
                };
            // As for `.modinfo`: `__param` holds `struct kernel_param`s,
            // and `KernelParam` is one (`repr(transparent)`).
            #[allow(unsafe_code)]
            #[link_section = "__param"]
            #[used]
            static PARAM: KernelParam = KernelParam::new(CNAME, &OPS);
        };
        $crate::sys::param::modinfo!("parmtype", concat!($name, ":", $type));
        $crate::sys::param::modinfo!("parm", concat!($name, ":", $desc));
    };
}
pub(crate) use module_param;
