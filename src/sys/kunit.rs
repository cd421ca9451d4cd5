// SPDX-License-Identifier: GPL-2.0

//! What the KUnit suite (`kunit/`) calls, in test builds only
//! (`CONFIG_RDMA_TCP_PORT_KUNIT_TEST`, which builds the provider in): the
//! built-in provider taken away from the rdma_cm and given back through
//! its registration, and setters for the parameters.

use kernel::bindings;
use kernel::error::from_result;
use kernel::ffi::{c_char, c_int};
use kernel::prelude::*;

use super::port_provider;
use crate::param;

/// The built-in provider, whose operations a KUnit provider may call in
/// its place; the suite registers and unregisters it only through
/// `rdma_tcp_port_kunit_register()` and `_unregister()`.
#[no_mangle]
pub(crate) extern "C" fn rdma_tcp_port_kunit_provider() -> *const bindings::rdma_cm_port_provider {
    port_provider::built_in()
}

/// Takes the built-in provider away from the rdma_cm, until
/// `rdma_tcp_port_kunit_register()`.
#[no_mangle]
pub(crate) extern "C" fn rdma_tcp_port_kunit_unregister() {
    port_provider::unregister_built_in();
}

/// Gives the built-in provider back to the rdma_cm: 0, or `-EBUSY` while a
/// provider (it, or one of the suite's) is registered.
#[no_mangle]
pub(crate) extern "C" fn rdma_tcp_port_kunit_register() -> c_int {
    from_result(|| {
        port_provider::register_built_in()?;
        Ok(0)
    })
}

/// Sets the `idr` parameter, returns the old value.
#[no_mangle]
pub(crate) extern "C" fn rdma_tcp_port_kunit_set_idr(on: bool) -> bool {
    param::set_idr(on)
}

/// Sets a parameter with `set` from its string form `val`, as sysfs would:
/// 0, or the error `set` gives.
///
/// # Safety
///
/// `val` is a NUL-terminated string.
unsafe fn set_from_c(val: *const c_char, set: fn(&[u8]) -> Result) -> c_int {
    // SAFETY: the caller passes a NUL-terminated string.
    let val = unsafe { core::ffi::CStr::from_ptr(val.cast()) };
    from_result(|| {
        set(val.to_bytes())?;
        Ok(0)
    })
}

/// Sets `reserve` from its string form, as sysfs would; 0 or `-EINVAL`.
///
/// # Safety
///
/// `val` is a NUL-terminated string.
#[no_mangle]
pub(crate) unsafe extern "C" fn rdma_tcp_port_kunit_set_reserve(val: *const c_char) -> c_int {
    // SAFETY: the caller passes a NUL-terminated string.
    unsafe { set_from_c(val, param::set_reserve) }
}

/// Sets `user_share` from its string form, as sysfs would; 0 or `-EINVAL`.
///
/// # Safety
///
/// `val` is a NUL-terminated string.
#[no_mangle]
pub(crate) unsafe extern "C" fn rdma_tcp_port_kunit_set_user_share(val: *const c_char) -> c_int {
    // SAFETY: the caller passes a NUL-terminated string.
    unsafe { set_from_c(val, param::set_user_share) }
}
