// SPDX-License-Identifier: GPL-2.0

//! A kernel TCP socket that holds a port in the host TCP stack.
//!
//! The socket is only ever bound: it never listens or connects, so it takes
//! part in the host's bind conflict rules without receiving any traffic.

use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;

use kernel::bindings;
use kernel::error::to_result;
use kernel::prelude::*;

use super::net::{Net, NetKey};
use super::ucount::PortCharge;

/// The address family of a TCP socket: one of the two that TCP serves,
/// so that every socket of this type is an inet one (`struct inet_sock`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `AF_INET`.
    Inet,
    /// `AF_INET6`.
    Inet6,
}

impl Family {
    fn raw(self) -> i32 {
        match self {
            Family::Inet => bindings::AF_INET as i32,
            Family::Inet6 => bindings::AF_INET6 as i32,
        }
    }
}

/// How the socket shares its port, as `sk_reuse`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reuse {
    /// `SK_NO_REUSE`: the port is exclusive.
    No,
    /// `SK_CAN_REUSE`: `SO_REUSEADDR`.
    Can,
    /// `SK_FORCE_REUSE`: join a port regardless of its other owners, as
    /// `TCP_REPAIR` does. Only for active-side ids that share a port with
    /// other active-side ids of this module under the 4-tuple rule.
    Force,
}

/// A socket address key: equal for the same socket while it lives.
pub(crate) type SockKey = usize;

/// A kernel TCP socket in a network namespace.
///
/// # Invariants
///
/// `sock` points to a socket created by `sock_create_kern()` and owned by
/// this value; it is released exactly once, when the value is dropped.
/// Its `sk_user_data` is null or a [`PortCharge`] handed to it by
/// [`TcpSocket::keep_charge`], given back on drop.
pub(crate) struct TcpSocket {
    sock: NonNull<bindings::socket>,
}

/// The socket lock (`lock_sock()`), released on drop.
struct SockLock<'a> {
    sk: *mut bindings::sock,
    _sock: PhantomData<&'a TcpSocket>,
}

impl SockLock<'_> {
    /// `sk_ipv6only`, which bind reads.
    fn set_ipv6only(&mut self, on: bool) {
        // SAFETY: `sk` is live while the socket is (borrowed for the guard's
        // life); the socket lock makes us the bitfield's only writer.
        unsafe { (*self.sk).__sk_common.set_skc_ipv6only(u8::from(on)) };
    }

    /// `sk_reuse`, which bind conflict checks read.
    fn set_reuse(&mut self, sk_reuse: u32) {
        // SAFETY: as in set_ipv6only(). The constants fit (0 to 2).
        unsafe { (*self.sk).__sk_common.set_skc_reuse(sk_reuse as u8) };
    }
}

impl Drop for SockLock<'_> {
    fn drop(&mut self) {
        // SAFETY: the lock was taken by `TcpSocket::lock()`.
        unsafe { bindings::release_sock(self.sk) };
    }
}

impl TcpSocket {
    /// A new TCP socket of `family` in `net`, not bound yet, with
    /// `v6only` for IPv6 (`IPV6_V6ONLY`).
    pub(crate) fn new(net: &Net<'_>, family: Family, v6only: bool) -> Result<Self> {
        let mut sock = core::ptr::null_mut();
        // SAFETY: `net` is live for as long as the socket (`Net` invariant);
        // `sock` is a valid out-pointer.
        to_result(unsafe {
            bindings::sock_create_kern(
                net.as_ptr(),
                family.raw(),
                bindings::sock_type_SOCK_STREAM as i32,
                bindings::IPPROTO_TCP as i32,
                &mut sock,
            )
        })?;
        // INVARIANT: sock_create_kern() succeeded and gave us the socket.
        let this = Self {
            sock: NonNull::new(sock).ok_or(ENOMEM)?,
        };
        if family == Family::Inet6 {
            // As ip6_sock_set_v6only(), which is inline: under the lock.
            this.lock().set_ipv6only(v6only);
        }
        Ok(this)
    }

    fn sk(&self) -> *mut bindings::sock {
        // SAFETY: by the type invariant `sock` is live; `sk` is set by
        // sock_create_kern() and stays until sock_release().
        unsafe { (*self.sock.as_ptr()).sk }
    }

    fn lock(&self) -> SockLock<'_> {
        let sk = self.sk();
        // SAFETY: `sk` is live; we may sleep (every caller is in process
        // context, as the rdma_cm calls the provider).
        unsafe { bindings::lock_sock_nested(sk, 0) };
        SockLock {
            sk,
            _sock: PhantomData,
        }
    }

    /// Sets how the socket shares its port (`SO_REUSEADDR`, which TCP also
    /// allows after bind).
    pub(crate) fn set_reuse(&self, reuse: Reuse) {
        let sk_reuse = match reuse {
            Reuse::Can => {
                // SAFETY: `sk` is the live `struct sock` of our socket.
                unsafe { bindings::sock_set_reuseaddr(self.sk()) };
                return;
            }
            Reuse::No => bindings::SK_NO_REUSE,
            Reuse::Force => bindings::SK_FORCE_REUSE,
        };
        // Under the lock, as sock_set_reuseaddr() sets `SK_CAN_REUSE`.
        self.lock().set_reuse(sk_reuse);
    }

    /// Binds the socket to the `struct sockaddr_in{,6}` in `addr`, whose
    /// length is the address length bind gets: the family's bind checks
    /// it (`EINVAL` if short). After `EADDRINUSE` the socket is still
    /// unbound and may try again.
    pub(crate) fn bind(&self, addr: &[u8]) -> Result {
        // kernel_bind() copies `len` bytes into a `struct sockaddr_storage`
        // of its own before the family's bind reads them ("net: prevent
        // address rewrite in kernel_bind()"): no more than that fits.
        let len = addr
            .len()
            .min(core::mem::size_of::<bindings::__kernel_sockaddr_storage>());
        // SAFETY: the socket is live; `addr` holds at least `len` bytes and
        // kernel_bind() only reads them, into its own copy.
        to_result(unsafe {
            bindings::kernel_bind(
                self.sock.as_ptr(),
                addr.as_ptr().cast_mut().cast(),
                len as i32,
            )
        })
    }

    /// The local port the host stack gave the socket; 0 before bind.
    pub(crate) fn port(&self) -> u16 {
        // SAFETY: `sk` is live; `inet_num` is written by bind, which only
        // the owner of this value calls.
        unsafe {
            (*self.sk())
                .__sk_common
                .__bindgen_anon_3
                .__bindgen_anon_1
                .skc_num
        }
    }

    /// Applies TCP's listen rule to the bound port (`inet_csk_claim_port()`):
    /// fails with `EADDRINUSE` if another socket on it listens or does not
    /// allow reuse, and from then on nobody may join the port.
    pub(crate) fn claim_port(&self) -> Result {
        // SAFETY: `sk` is the live `struct sock` of our socket, which only
        // its owner binds; the helper takes the socket lock itself.
        to_result(unsafe { bindings::inet_csk_claim_port(self.sk()) })
    }

    /// The uid the socket was created for: `sock_alloc()` gives a new
    /// socket the creating task's fsuid, and `sk_uid` keeps it.
    pub(crate) fn uid(&self) -> u32 {
        // SAFETY: `sk` is live; `sk_uid` is set once, at creation.
        unsafe { (*self.sk()).sk_uid.val }
    }

    /// The socket's namespace, as a key (`sock_net()`).
    pub(crate) fn net_key(&self) -> NetKey {
        // SAFETY: `sk` is live; a socket never changes namespace.
        unsafe { (*self.sk()).__sk_common.skc_net.net as NetKey }
    }

    /// The socket as a key, equal for the same socket while it lives.
    pub(crate) fn key(&self) -> SockKey {
        self.sock.as_ptr() as SockKey
    }

    /// Gives `charge` to the socket, to be given back when it is released:
    /// the rdma_cm keeps only the socket. `sk_user_data` is its owner's,
    /// and this socket, only ever bound, has no other user of it. `&mut`:
    /// only the socket's owner, before it hands the socket to the rdma_cm
    /// (a [`Borrowed`] one is lent as `&TcpSocket`).
    pub(crate) fn keep_charge(&mut self, charge: PortCharge) {
        let sk = self.sk();
        // SAFETY: `sk` is live; we own the socket (type invariant) and hold
        // it exclusively, so nobody else reads or writes its
        // `sk_user_data` meanwhile and a plain access is enough. A charge
        // kept already is dropped, not leaked.
        let old = unsafe {
            let old = PortCharge::from_raw((*sk).sk_user_data);
            (*sk).sk_user_data = charge.into_raw();
            old
        };
        drop(old);
    }

    /// Hands the socket to C code that keeps it (the rdma_cm, in the id).
    pub(super) fn into_raw(self) -> *mut bindings::socket {
        let sock = self.sock.as_ptr();
        core::mem::forget(self);
        sock
    }

    /// Takes back a socket given out by [`TcpSocket::into_raw`].
    ///
    /// # Safety
    ///
    /// `sock` came from `into_raw()` and is not used by anyone afterwards.
    pub(super) unsafe fn from_raw(sock: *mut bindings::socket) -> Option<Self> {
        // INVARIANT: the caller gives back the ownership that into_raw() gave.
        NonNull::new(sock).map(|sock| Self { sock })
    }

    /// Lends a socket given out by [`TcpSocket::into_raw`], which its owner
    /// keeps: the borrow does not release it.
    ///
    /// # Safety
    ///
    /// `sock` came from `into_raw()`, and its owner neither releases it nor
    /// hands it back for `'a`.
    pub(super) unsafe fn borrow<'a>(sock: *mut bindings::socket) -> Option<Borrowed<'a>> {
        // INVARIANT: the owner keeps the socket live for `'a`; ManuallyDrop
        // keeps the borrow from releasing it.
        NonNull::new(sock).map(|sock| Borrowed {
            sock: ManuallyDrop::new(Self { sock }),
            _owner: PhantomData,
        })
    }
}

/// A [`TcpSocket`] that C code owns, lent for one call.
pub(crate) struct Borrowed<'a> {
    sock: ManuallyDrop<TcpSocket>,
    _owner: PhantomData<&'a TcpSocket>,
}

impl core::ops::Deref for Borrowed<'_> {
    type Target = TcpSocket;

    fn deref(&self) -> &TcpSocket {
        &self.sock
    }
}

impl Drop for TcpSocket {
    fn drop(&mut self) {
        // SAFETY: `sk_user_data` is null or a charge (type invariant), taken
        // here once, before the socket goes.
        let charge = unsafe { PortCharge::from_raw((*self.sk()).sk_user_data) };
        // SAFETY: by the type invariant we own the socket and release it once.
        unsafe { bindings::sock_release(self.sock.as_ptr()) };
        // The port is free now: the user may take another.
        drop(charge);
    }
}
