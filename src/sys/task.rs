// SPDX-License-Identifier: GPL-2.0

//! The current task, as the per-user cap sees it: its fsuid,
//! `RLIMIT_NOFILE` and whether it is a kernel thread (the kernel crate of
//! Linux 6.12 exposes none of them).

use kernel::bindings;

/// The running task's C struct, as the kernel crate's `current!()` gives
/// the task: 6.12's `Task` has no `as_ptr()`, and is `#[repr(transparent)]`
/// over the `task_struct`. Valid while the task runs, as it does for every
/// caller, which asks about itself.
pub(super) fn current_ptr() -> *mut bindings::task_struct {
    core::ptr::from_ref(kernel::current!()).cast_mut().cast()
}

/// The current task's fsuid, in the initial user namespace: the uid that
/// `sock_alloc()` gives the sockets it creates.
pub(crate) fn current_fsuid() -> u32 {
    // SAFETY: `current` is the running task; its own `cred` stays valid
    // while it runs (`current_cred()` reads it without a lock).
    unsafe { (*(*current_ptr()).cred).fsuid.val }
}

/// Whether the current task is a kernel thread (a kthread or a workqueue's
/// worker): `current->flags & PF_KTHREAD`.
pub(crate) fn current_is_kthread() -> bool {
    // SAFETY: `current` is the running task; only it changes its own
    // `flags`, and `PF_KTHREAD` is set before a kernel thread first runs.
    let flags = unsafe { (*current_ptr()).flags };
    flags & bindings::PF_KTHREAD != 0
}

/// The current task's `RLIMIT_NOFILE` (soft).
pub(crate) fn current_nofile() -> u64 {
    // SAFETY: `current` is the running task and its `signal` stays valid
    // while it runs, as `rlimit()` assumes; the limit can change under us,
    // hence the volatile read (`READ_ONCE`).
    let nofile = unsafe {
        let signal = (*current_ptr()).signal;
        let rlim = core::ptr::addr_of!((*signal).rlim[bindings::RLIMIT_NOFILE as usize]);
        core::ptr::read_volatile(core::ptr::addr_of!((*rlim).rlim_cur))
    };
    u64::try_from(nofile).unwrap_or(u64::MAX)
}
