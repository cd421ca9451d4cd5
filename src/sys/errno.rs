// SPDX-License-Identifier: GPL-2.0

//! Socket errnos that `kernel::error::code` of Linux 6.12 does not name.

use kernel::bindings;
use kernel::error::Error;

fn errno(e: u32) -> Error {
    // The constants are small positive errnos; from_errno() takes them negated.
    Error::from_errno(-(e as i32))
}

/// `EADDRINUSE`: the host stack holds the port for someone else.
pub(crate) fn eaddrinuse() -> Error {
    errno(bindings::EADDRINUSE)
}

/// `EAFNOSUPPORT`: not an IPv4 or IPv6 address.
pub(crate) fn eafnosupport() -> Error {
    errno(bindings::EAFNOSUPPORT)
}

/// `EOPNOTSUPP`: the id needs what the provider was told not to keep.
pub(crate) fn eopnotsupp() -> Error {
    errno(bindings::EOPNOTSUPP)
}
