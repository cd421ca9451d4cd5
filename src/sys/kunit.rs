// SPDX-License-Identifier: GPL-2.0

//! What the built-in KUnit suite (`kunit/`) calls: the provider's C
//! registration, which the suite unregisters and registers again, and
//! setters for the parameters. Built in only, never in the module.

use core::sync::atomic::{AtomicPtr, Ordering};

use kernel::bindings;
use kernel::ffi::{c_char, c_int};
use kernel::prelude::*;

use crate::param;

/// The built-in provider's registration, which lives as long as the kernel.
static PROVIDER: AtomicPtr<bindings::rdma_cm_port_provider> = AtomicPtr::new(core::ptr::null_mut());

/// Publishes the built-in provider's registration for the suite.
pub(crate) fn publish(raw: *mut bindings::rdma_cm_port_provider) {
    PROVIDER.store(raw, Ordering::Release);
}

/// The provider this kernel registered at boot, or NULL.
#[no_mangle]
pub(crate) extern "C" fn rdma_tcp_port_kunit_provider() -> *mut bindings::rdma_cm_port_provider {
    PROVIDER.load(Ordering::Acquire)
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
    kernel::error::from_result(|| {
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
