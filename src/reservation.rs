// SPDX-License-Identifier: GPL-2.0

//! A port held in the host TCP stack by a kernel TCP socket.
//!
//! The socket is only ever bound: it never listens or connects, so it takes
//! part in the host's bind conflict rules without receiving any traffic.

use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;

use kernel::bindings;
use kernel::error::to_result;
use kernel::prelude::*;

use crate::errno;
use crate::net::{Net, NetKey};
use crate::policy::{SockAddr, AF_INET6};

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

impl Reuse {
    fn as_sk_reuse(self) -> u8 {
        // The constants are 0, 1 and 2 (`include/net/sock.h`).
        match self {
            Reuse::No => bindings::SK_NO_REUSE as u8,
            Reuse::Can => bindings::SK_CAN_REUSE as u8,
            Reuse::Force => bindings::SK_FORCE_REUSE as u8,
        }
    }
}

/// A kernel TCP socket bound to the port it holds.
///
/// # Invariants
///
/// `sock` points to a socket created by `sock_create_kern()` and owned by
/// this value; it is released exactly once, when the value is dropped.
pub(crate) struct Reservation {
    sock: NonNull<bindings::socket>,
}

impl Reservation {
    /// A new TCP socket of `family` in `net`, not bound yet, with
    /// `v6only` for IPv6 (`IPV6_V6ONLY`).
    pub(crate) fn new(net: &Net<'_>, family: u16, v6only: bool) -> Result<Self> {
        let mut sock = core::ptr::null_mut();
        // SAFETY: `net` is live for as long as the socket (`Net` invariant).
        to_result(unsafe {
            bindings::sock_create_kern(
                net.as_ptr(),
                i32::from(family),
                bindings::sock_type_SOCK_STREAM as i32,
                bindings::IPPROTO_TCP as i32,
                &mut sock,
            )
        })?;
        // INVARIANT: sock_create_kern() succeeded and gave us the socket.
        let this = Self {
            sock: NonNull::new(sock).ok_or(ENOMEM)?,
        };
        if family == AF_INET6 {
            let sk = this.sk();
            // SAFETY: `sk` is the live `struct sock` of our socket; under
            // lock_sock(), as in ip6_sock_set_v6only().
            unsafe {
                bindings::lock_sock_nested(sk, 0);
                (*sk).__sk_common.set_skc_ipv6only(u8::from(v6only));
                bindings::release_sock(sk);
            }
        }
        Ok(this)
    }

    /// Takes `addr` (port 0: a port of the host's choosing) in `net`, as a
    /// TCP socket with `reuse` and, for IPv6, `v6only` would.
    ///
    /// Errors are the host's own: `EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`...
    pub(crate) fn take(
        net: &Net<'_>,
        addr: &SockAddr,
        raw: &[u8],
        reuse: Reuse,
        v6only: bool,
    ) -> Result<Self> {
        let this = Self::new(net, addr.family, v6only)?;
        // A new socket starts with SK_NO_REUSE.
        if reuse != Reuse::No {
            this.set_reuse(reuse);
        }
        this.bind(addr, raw)?;
        Ok(this)
    }

    /// Sets how the socket shares its port (`SO_REUSEADDR`, which TCP also
    /// allows after bind).
    pub(crate) fn set_reuse(&self, reuse: Reuse) {
        let sk = self.sk();
        if reuse == Reuse::Can {
            // SAFETY: `sk` is the live `struct sock` of our socket.
            unsafe { bindings::sock_set_reuseaddr(sk) };
            return;
        }
        // SAFETY: `sk` is live; under lock_sock(), as sock_set_reuseaddr()
        // sets `SK_CAN_REUSE`, for the values it has no setter for.
        unsafe {
            bindings::lock_sock_nested(sk, 0);
            (*sk).__sk_common.set_skc_reuse(reuse.as_sk_reuse());
            bindings::release_sock(sk);
        }
    }

    /// Binds the socket to `addr`, whose `struct sockaddr_in{,6}` is `raw`.
    /// After `EADDRINUSE` the socket is still unbound and may try again.
    pub(crate) fn bind(&self, addr: &SockAddr, raw: &[u8]) -> Result {
        let len = addr.sockaddr_len().min(raw.len());
        // SAFETY: `raw` holds at least `len` bytes; kernel_bind() only
        // reads them.
        to_result(unsafe {
            bindings::kernel_bind(
                self.sock.as_ptr(),
                raw.as_ptr().cast_mut().cast(),
                len as i32,
            )
        })
    }

    fn sk(&self) -> *mut bindings::sock {
        // SAFETY: by the type invariant `sock` is live; `sk` is set by
        // sock_create_kern() and stays until sock_release().
        unsafe { (*self.sock.as_ptr()).sk }
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

    /// Applies TCP's listen rule: taking the port fails if another socket
    /// on it listens or does not allow reuse, and from then on nobody may
    /// join the port, as if this socket listened. For an id without reuse
    /// that shares its port with other sockets, right after its bind; for
    /// one with reuse when it starts listening.
    pub(crate) fn make_exclusive(&self) -> Result {
        let port = self.port();
        let sk = self.sk();
        // SAFETY: `sk` is live. Under lock_sock() we run the protocol's
        // get_port() on the bound port again in the TCP_LISTEN state, which
        // is the check inet_csk_listen_start() makes, and which also clears
        // the bind bucket's fast-reuse state. The socket is in no lookup
        // table, so the transient state is seen by bind conflict checks
        // only. Clearing `sk_reuse` afterwards keeps the port exclusive.
        unsafe {
            bindings::lock_sock_nested(sk, 0);
            let state = (*sk).__sk_common.skc_state;
            (*sk).__sk_common.skc_state = bindings::TCP_LISTEN as u8;
            let ret = match (*(*sk).__sk_common.skc_prot).get_port {
                Some(get_port) => get_port(sk, port),
                None => -(bindings::EOPNOTSUPP as i32),
            };
            (*sk).__sk_common.skc_state = state;
            if ret == 0 {
                (*sk).__sk_common.set_skc_reuse(Reuse::No.as_sk_reuse());
            }
            bindings::release_sock(sk);
            if ret != 0 {
                return Err(errno::eaddrinuse());
            }
        }
        Ok(())
    }

    /// The uid the port is counted against: `sock_alloc()` gives a new
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

    /// Hands the socket to the rdma_cm, which keeps it in the id.
    pub(crate) fn into_raw(self) -> *mut bindings::socket {
        let sock = self.sock.as_ptr();
        core::mem::forget(self);
        sock
    }

    /// Takes back a socket given out by [`Reservation::into_raw`].
    ///
    /// # Safety
    ///
    /// `sock` came from `into_raw()` and is not used by anyone afterwards.
    pub(crate) unsafe fn from_raw(sock: *mut bindings::socket) -> Option<Self> {
        // INVARIANT: the caller gives back the ownership that into_raw() gave.
        NonNull::new(sock).map(|sock| Self { sock })
    }

    /// Lends a socket given out by [`Reservation::into_raw`], which its
    /// owner keeps: the borrow does not release it.
    ///
    /// # Safety
    ///
    /// `sock` came from `into_raw()`, and its owner neither releases it nor
    /// hands it back for `'a`.
    pub(crate) unsafe fn borrow<'a>(sock: *mut bindings::socket) -> Option<Borrowed<'a>> {
        // INVARIANT: the owner keeps the socket live for `'a`; ManuallyDrop
        // keeps the borrow from releasing it.
        NonNull::new(sock).map(|sock| Borrowed {
            res: ManuallyDrop::new(Self { sock }),
            _owner: PhantomData,
        })
    }

    /// The socket pointer, as the rdma_cm stores it.
    pub(crate) fn as_ptr(&self) -> *mut bindings::socket {
        self.sock.as_ptr()
    }
}

/// A [`Reservation`] that the rdma_cm owns, lent for one call.
pub(crate) struct Borrowed<'a> {
    res: ManuallyDrop<Reservation>,
    _owner: PhantomData<&'a Reservation>,
}

impl core::ops::Deref for Borrowed<'_> {
    type Target = Reservation;

    fn deref(&self) -> &Reservation {
        &self.res
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // SAFETY: by the type invariant we own the socket and release it once.
        unsafe { bindings::sock_release(self.sock.as_ptr()) };
    }
}
