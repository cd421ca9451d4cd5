// SPDX-License-Identifier: GPL-2.0

//! The network namespace of an id, as the rdma_cm hands it to the provider.

use core::marker::PhantomData;
use core::ptr::NonNull;

use kernel::bindings;

/// A `struct net` address, used only as a key.
pub(crate) type NetKey = usize;

/// The words of `ip_local_reserved_ports`: one bit for each of the 65536
/// ports, read a word at a time as a `u64` bitmap.
pub(crate) const RESERVED_PORT_WORDS: usize = 65536 / 64;
const _: () = assert!(core::mem::size_of::<kernel::ffi::c_ulong>() == 8);

/// A network namespace that outlives `'a`.
///
/// A copy is a second handle on the same namespace, under the same
/// guarantee.
///
/// # Invariants
///
/// `ptr` is a live `struct net` for `'a`, and for as long as any socket
/// created in it through this value (see [`Net::from_raw`]).
#[derive(Clone, Copy)]
pub(crate) struct Net<'a> {
    ptr: NonNull<bindings::net>,
    _borrow: PhantomData<&'a bindings::net>,
}

impl Net<'_> {
    /// # Safety
    ///
    /// `ptr` is NULL or a namespace that stays live for `'a` and as long as
    /// any socket created in it through the returned value: an rdma_cm id's,
    /// which holds a reference on it until its port is released.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::net) -> Option<Self> {
        // INVARIANT: the caller guarantees the lifetime.
        NonNull::new(ptr).map(|ptr| Self {
            ptr,
            _borrow: PhantomData,
        })
    }

    pub(crate) fn as_ptr(&self) -> *mut bindings::net {
        self.ptr.as_ptr()
    }

    /// The namespace as a key: equal for the same namespace while it lives.
    pub(crate) fn key(&self) -> NetKey {
        self.ptr.as_ptr() as NetKey
    }

    /// `ip_local_port_range`, as `inet_get_local_port_range()` reads it.
    pub(crate) fn local_port_range(&self) -> (u16, u16) {
        // SAFETY: the namespace is live (type invariant); the sysctl writes
        // the range as one word, read with `READ_ONCE` in C.
        let range = unsafe {
            core::ptr::read_volatile(core::ptr::addr_of!(
                (*self.as_ptr()).ipv4.ip_local_ports.range
            ))
        };
        (range as u16, (range >> 16) as u16)
    }

    /// `ip_unprivileged_port_start`: ports below it need
    /// `CAP_NET_BIND_SERVICE` for an explicit bind.
    pub(crate) fn unprivileged_port_start(&self) -> u32 {
        #[cfg(CONFIG_SYSCTL)]
        {
            // SAFETY: the namespace is live; read with `READ_ONCE` in C.
            let start = unsafe {
                core::ptr::read_volatile(core::ptr::addr_of!(
                    (*self.as_ptr()).ipv4.sysctl_ip_prot_sock
                ))
            };
            u32::try_from(start).unwrap_or(0)
        }
        #[cfg(not(CONFIG_SYSCTL))]
        {
            bindings::PROT_SOCK
        }
    }

    /// Word `i` (ports `64 * i` to `64 * i + 63`) of
    /// `ip_local_reserved_ports`, which no port-0 bind may take.
    pub(crate) fn reserved_ports(&self, i: usize) -> u64 {
        #[cfg(CONFIG_SYSCTL)]
        {
            // SAFETY: the namespace is live; its bitmap, when allocated,
            // has 65536 bits, which it keeps for the namespace's life. The
            // sysctl changes it in place, so the word is read as one, as
            // `test_bit()` does.
            unsafe {
                let map = (*self.as_ptr()).ipv4.sysctl_local_reserved_ports;
                if map.is_null() || i >= RESERVED_PORT_WORDS {
                    return 0;
                }
                // Lossless: `unsigned long` is 64 bits here (asserted above).
                core::ptr::read_volatile(map.add(i)) as u64
            }
        }
        #[cfg(not(CONFIG_SYSCTL))]
        {
            let _ = i;
            0
        }
    }

    /// Whether the current task has `CAP_NET_ADMIN` over the namespace.
    pub(crate) fn admin_capable(&self) -> bool {
        // SAFETY: the namespace is live, so is its owning user namespace.
        unsafe {
            bindings::ns_capable_noaudit((*self.as_ptr()).user_ns, bindings::CAP_NET_ADMIN as i32)
        }
    }

    /// Whether a port of an iWARP device has a net device here. Takes the
    /// rdma_cm's device list lock: asked only when the policy needs it.
    pub(crate) fn iwarp_in_net(&self) -> bool {
        // SAFETY: the namespace is live.
        unsafe { bindings::rdma_cm_iwarp_in_net(self.as_ptr()) }
    }
}
