// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! Who asks for a port: the task calling `rdma_bind_addr()` or
//! `rdma_resolve_addr()`, as the per-user cap sees it.

#[cfg(doc)]
use crate::policy::Reserve;
use crate::policy::UserCap;
use crate::sys::net::Net;
use crate::sys::task;

/// The identity and limits of the current task.
pub(crate) struct Caller {
    /// The file system uid, in the initial user namespace: the uid that
    /// `sock_alloc()` gives the reservation's socket, and that the cap
    /// counts its port against.
    pub(crate) uid: u32,
    /// `RLIMIT_NOFILE` (soft): how many sockets this task could hold.
    nofile: u64,
    /// A kernel thread (a kthread, a workqueue's worker): it acts for no
    /// user, whoever's request queued its work, so it runs as root with
    /// every capability, and no cap bounds it (see [`Reserve::covers`]).
    pub(crate) kthread: bool,
}

impl Caller {
    /// The current task.
    pub(crate) fn current() -> Self {
        Self {
            uid: task::current_fsuid(),
            nofile: task::current_nofile(),
            kthread: task::current_is_kthread(),
        }
    }

    /// The cap on this caller's ports in `net` at `share` percent, or
    /// `None` if `share` is 0; it applies unless [`Caller::exempt_in`].
    pub(crate) fn cap_in(&self, net: &Net<'_>, share: u32) -> Option<UserCap> {
        if share == 0 {
            return None;
        }
        let (low, high) = net.local_port_range();
        UserCap::new(self.nofile, low, high, share)
    }

    /// Whether the cap does not apply in `net`: `CAP_NET_ADMIN` over the
    /// namespace (which includes kernel threads, such as those of nvmet or
    /// NFS/RDMA) lets a caller set the namespace's port range itself, so it
    /// is not capped in that port space (`ns_capable_noaudit()`: a capped
    /// caller asks at every bind, and a denial is no event to log).
    pub(crate) fn exempt_in(&self, net: &Net<'_>) -> bool {
        net.admin_capable()
    }
}
