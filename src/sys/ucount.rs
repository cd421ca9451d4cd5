// SPDX-License-Identifier: GPL-2.0

//! A held port counted against its user as the kernel counts a user's
//! objects across user namespaces: a ucount (`UCOUNT_RDMA_TCP_PORTS`,
//! limited by `/proc/sys/user/max_rdma_tcp_ports`, added by `patches/`).

use core::ptr::NonNull;

use kernel::bindings;
use kernel::ffi::c_void;

/// The ucount that held ports are charged to.
const PORTS: bindings::ucount_type = bindings::ucount_type_UCOUNT_RDMA_TCP_PORTS;

/// One port charged to a user in its user namespace and to the creator of
/// each user namespace above it, each within its namespace's limit, so
/// that every uid a user maps counts against that user at the top.
///
/// # Invariants
///
/// `ucounts` came from `inc_ucount(.., PORTS)`: this value owns the count
/// it took at each level and the reference it holds, both given back once,
/// on drop.
pub(crate) struct PortCharge {
    ucounts: NonNull<bindings::ucounts>,
}

impl PortCharge {
    /// Charges one port to the current task's fsuid in its user namespace:
    /// the credential that `sock_alloc()` gives the sockets it creates.
    /// `None` if that user, or the creator of a user namespace above it, is
    /// at its namespace's limit (or no memory was left to count it).
    pub(crate) fn current() -> Option<Self> {
        // SAFETY: `current` is the running task; its own `cred` stays valid
        // while it runs, and holds its user namespace for the call.
        let ucounts = unsafe {
            let cred = (*super::task::current_ptr()).cred;
            bindings::inc_ucount((*cred).user_ns, (*cred).fsuid, PORTS)
        };
        // INVARIANT: a non-NULL result carries the counts and the reference.
        NonNull::new(ucounts).map(|ucounts| Self { ucounts })
    }

    /// Hands the charge to C storage; [`PortCharge::from_raw`] takes it back.
    pub(super) fn into_raw(self) -> *mut c_void {
        let ucounts = self.ucounts.as_ptr();
        core::mem::forget(self);
        ucounts.cast()
    }

    /// Takes back a charge that [`PortCharge::into_raw`] gave out; `None`
    /// for a null pointer.
    ///
    /// # Safety
    ///
    /// `ptr` is null or came from `into_raw()`, and is not used afterwards.
    pub(super) unsafe fn from_raw(ptr: *mut c_void) -> Option<Self> {
        // INVARIANT: the caller gives back what into_raw() gave out.
        NonNull::new(ptr.cast()).map(|ucounts| Self { ucounts })
    }
}

impl Drop for PortCharge {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the counts and the reference are
        // ours, given back once, here.
        unsafe { bindings::dec_ucount(self.ucounts.as_ptr(), PORTS) };
    }
}
