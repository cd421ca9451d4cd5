// SPDX-License-Identifier: GPL-2.0

//! Who asks for a port: the task calling `rdma_bind_addr()` or
//! `rdma_resolve_addr()`, as the per-user cap sees it.

use kernel::bindings;

use crate::net::Net;
use crate::policy::UserCap;

/// The identity and limits of the current task.
pub(crate) struct Caller {
    /// The file system uid, in the initial user namespace: the uid that
    /// `sock_alloc()` gives the reservation's socket, and that the cap
    /// counts its port against.
    pub(crate) uid: u32,
    /// `RLIMIT_NOFILE` (soft): how many sockets this task could hold.
    nofile: u64,
}

impl Caller {
    /// The current task.
    pub(crate) fn current() -> Self {
        // SAFETY: `current` is the running task, valid for the whole call.
        let task = unsafe { bindings::get_current() };
        // SAFETY: a task's own `cred` and `signal` stay valid while it runs
        // (`current_cred()` and `rlimit()` read them without locks); the
        // limit can change under us, hence the volatile read (`READ_ONCE`).
        unsafe {
            let uid = (*(*task).cred).fsuid.val;
            let rlim = &raw const (*(*task).signal).rlim[bindings::RLIMIT_NOFILE as usize];
            let nofile = core::ptr::read_volatile(&raw const (*rlim).rlim_cur);
            Self {
                uid,
                nofile: u64::try_from(nofile).unwrap_or(u64::MAX),
            }
        }
    }

    /// The cap on this caller's ports in `net` at `share` percent, or
    /// `None` if it has none: `CAP_NET_ADMIN` over the namespace (which
    /// includes kernel threads, such as those of nvmet or NFS/RDMA) lets a
    /// caller set the namespace's port range itself, so it is not capped in
    /// that port space.
    pub(crate) fn cap_in(&self, net: &Net<'_>, share: u32) -> Option<UserCap> {
        if share == 0 || net.admin_capable() {
            return None;
        }
        let (low, high) = net.local_port_range();
        UserCap::new(self.nofile, low, high, share)
    }
}

/// `printk_ratelimit()`: whether a message about a refused caller may be
/// logged now (a user at its cap retries in a loop).
pub(crate) fn ratelimit() -> bool {
    // SAFETY: any NUL-terminated string names the caller; it is only printed.
    unsafe { bindings::__printk_ratelimit(c"rdma_tcp_port".as_ptr().cast()) != 0 }
}
