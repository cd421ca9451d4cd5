// SPDX-License-Identifier: GPL-2.0

//! What the KUnit suite (`kunit/`) calls, in test builds only
//! (`CONFIG_RDMA_TCP_PORT_KUNIT_TEST`, which builds the provider in): the
//! built-in provider taken away from the rdma_cm and given back through
//! its registration, and setters for the parameters, which the driver
//! exports with [`kunit_param_setter!`] for each [`ParamValue`].

use kernel::bindings;
use kernel::error::from_result;
use kernel::ffi::{c_char, c_int};

use super::param::{self, ParamValue};
use super::port_provider;

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

/// Sets the parameter whose value is `T` from the string `val` through the
/// `set` operation that a sysfs write calls: 0, or the error `T::set()`
/// gives.
///
/// # Safety
///
/// `val` is a NUL-terminated string.
pub(crate) unsafe fn set_str<T: ParamValue>(val: *const c_char) -> c_int {
    // SAFETY: the caller passes a NUL-terminated string; the operation does
    // not read its `kernel_param`.
    unsafe { param::set::<T>(val, core::ptr::null()) }
}

/// Sets the boolean parameter whose value is `T` to `on`, as writing `Y`
/// or `N` would.
pub(crate) fn set_bool<T: ParamValue>(on: bool) -> c_int {
    from_result(|| {
        T::set(Some(if on { b"Y" } else { b"N" }))?;
        Ok(0)
    })
}

/// Exports `$name` to the KUnit suite: it sets the parameter whose value is
/// the [`ParamValue`] `$value`, from a C string (`str`) or a C `bool`
/// (`bool`), and returns 0 or the negative errno.
macro_rules! kunit_param_setter {
    (str $value:ty => $name:ident) => {
        /// # Safety
        ///
        /// `val` is a NUL-terminated string.
        // `#[no_mangle]` is `unsafe_code` to the lint: the name is the C
        // suite's declaration in `kunit/rdma_tcp_port_kunit.h`.
        #[allow(unsafe_code)]
        #[no_mangle]
        pub(crate) unsafe extern "C" fn $name(
            val: *const ::kernel::ffi::c_char,
        ) -> ::kernel::ffi::c_int {
            // SAFETY: the caller passes a NUL-terminated string.
            unsafe { $crate::sys::kunit::set_str::<$value>(val) }
        }
    };
    (bool $value:ty => $name:ident) => {
        // As above, for `#[no_mangle]`.
        #[allow(unsafe_code)]
        #[no_mangle]
        pub(crate) extern "C" fn $name(on: bool) -> ::kernel::ffi::c_int {
            $crate::sys::kunit::set_bool::<$value>(on)
        }
    };
}
pub(crate) use kunit_param_setter;
