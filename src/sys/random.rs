// SPDX-License-Identifier: GPL-2.0

//! The kernel's random numbers (the kernel crate of Linux 6.12 has none).

use kernel::bindings;

/// A random `u32` (`get_random_u32()`).
pub(crate) fn random_u32() -> u32 {
    // SAFETY: get_random_u32() may be called from any context.
    unsafe { bindings::get_random_u32() }
}
