// SPDX-License-Identifier: GPL-2.0

//! The current task, as the per-user cap sees it: its fsuid,
//! `RLIMIT_NOFILE` and whether it is a kernel thread (the kernel crate of
//! Linux 6.12 exposes none of them).

use kernel::bindings;

/// The current task's fsuid, in the initial user namespace: the uid that
/// `sock_alloc()` gives the sockets it creates.
pub(crate) fn current_fsuid() -> u32 {
    // SAFETY: `current` is the running task; its own `cred` stays valid
    // while it runs (`current_cred()` reads it without a lock).
    unsafe { (*(*bindings::get_current()).cred).fsuid.val }
}

/// Whether the current task is a kernel thread (a kthread or a workqueue's
/// worker): `current->flags & PF_KTHREAD`.
pub(crate) fn current_is_kthread() -> bool {
    // SAFETY: `current` is the running task; only it changes its own
    // `flags`, and `PF_KTHREAD` is set before a kernel thread first runs.
    let flags = unsafe { (*bindings::get_current()).flags };
    flags & bindings::PF_KTHREAD != 0
}

/// The current task's `RLIMIT_NOFILE` (soft).
pub(crate) fn current_nofile() -> u64 {
    // SAFETY: `current` is the running task and its `signal` stays valid
    // while it runs, as `rlimit()` assumes; the limit can change under us,
    // hence the volatile read (`READ_ONCE`).
    let nofile = unsafe {
        let signal = (*bindings::get_current()).signal;
        let rlim = &raw const (*signal).rlim[bindings::RLIMIT_NOFILE as usize];
        core::ptr::read_volatile(&raw const (*rlim).rlim_cur)
    };
    u64::try_from(nofile).unwrap_or(u64::MAX)
}

/// `printk_ratelimit()`: whether a message about a refused caller may be
/// logged now (a user at its cap retries in a loop).
pub(crate) fn ratelimit() -> bool {
    // SAFETY: any NUL-terminated string names the caller; it is only printed.
    unsafe { bindings::__printk_ratelimit(c"rdma_tcp_port".as_ptr().cast()) != 0 }
}
