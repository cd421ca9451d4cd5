// SPDX-License-Identifier: GPL-2.0

//! The rdma_cm's RDMA_PS_TCP port provider hook (`<rdma/rdma_cm.h>`, added
//! by `patches/`): a trait for the provider, an adapter that builds the C
//! operations from it, and the registration that carries the owner module
//! and the context the operations get back.

use core::marker::PhantomData;
use core::mem::size_of;
use core::mem::ManuallyDrop;
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
use core::ptr;
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
use core::sync::atomic::{AtomicPtr, Ordering};

use kernel::bindings;
use kernel::build_error;
use kernel::error::{from_result, to_result, VTABLE_DEFAULT_ERROR};
use kernel::ffi::{c_int, c_void};
use kernel::prelude::*;
use kernel::types::Opaque;

use super::net::Net;
use super::socket::TcpSocket;

/// Size of the `struct sockaddr_storage` of an id's addresses.
pub(crate) const SS_LEN: usize = size_of::<bindings::__kernel_sockaddr_storage>();

/// An RDMA_PS_TCP id asking for its port (`struct rdma_cm_port_req`).
pub(crate) struct PortRequest<'a> {
    req: &'a mut bindings::rdma_cm_port_req,
    net: Net<'a>,
    src: &'a mut [u8],
    dst: &'a [u8],
}

impl<'a> PortRequest<'a> {
    /// # Safety
    ///
    /// `req` is a request the rdma_cm passes to `get_port`, valid and ours
    /// alone for `'a`: its `net` is the id's namespace, which the id keeps
    /// alive until the port is released; `src` and `dst` point to the id's
    /// addresses, which nobody else touches while the id is being bound.
    unsafe fn from_raw(req: *mut bindings::rdma_cm_port_req) -> Option<Self> {
        // SAFETY: the caller passes a valid, exclusive request.
        let req = unsafe { req.as_mut() }?;
        // SAFETY: the id holds a reference on its namespace until the port
        // taken here is released, so the namespace outlives the socket.
        let net = unsafe { Net::from_raw(req.net) }?;
        if req.src.is_null() || req.dst.is_null() {
            return None;
        }
        // SAFETY: `src` is the id's `sockaddr_storage`, ours for `'a`.
        let src = unsafe { core::slice::from_raw_parts_mut(req.src.cast::<u8>(), SS_LEN) };
        // SAFETY: as above, read only.
        let dst = unsafe { core::slice::from_raw_parts(req.dst.cast::<u8>(), SS_LEN) };
        Some(Self { req, net, src, dst })
    }

    /// The id's network namespace.
    pub(crate) fn net(&self) -> Net<'a> {
        self.net
    }

    /// The id's source address, a `struct sockaddr_storage`.
    pub(crate) fn src(&self) -> &[u8] {
        self.src
    }

    /// The id's source address, to write the port taken into it.
    pub(crate) fn src_mut(&mut self) -> &mut [u8] {
        self.src
    }

    /// The id's destination: a wildcard unless `rdma_resolve_addr()` bound it.
    pub(crate) fn dst(&self) -> &[u8] {
        self.dst
    }

    /// The id allows address reuse (`rdma_set_reuseaddr()`).
    pub(crate) fn reuseaddr(&self) -> bool {
        self.req.reuseaddr
    }

    /// The id is restricted to its address family (`rdma_set_afonly()`).
    pub(crate) fn afonly(&self) -> bool {
        self.req.afonly
    }

    /// The id is bound to an RDMA device.
    pub(crate) fn dev_bound(&self) -> bool {
        self.req.dev_bound
    }

    /// The device the id is bound to is iWARP.
    pub(crate) fn iwarp(&self) -> bool {
        self.req.iwarp
    }

    /// Keep the id in the rdma_cm's own port table as well.
    pub(crate) fn set_track(&mut self, on: bool) {
        self.req.track = on;
    }
}

/// An RDMA_PS_TCP port provider (`struct rdma_cm_port_ops`).
#[vtable]
pub(crate) trait PortProvider: Send + Sync + Sized {
    /// Takes the id's port, or an ephemeral one when its port is zero, and
    /// writes it into the request; `Ok(None)` leaves the id to the
    /// rdma_cm's own table.
    fn get_port(&self, req: &mut PortRequest<'_>) -> Result<Option<TcpSocket>>;

    /// The id of `sock` starts listening and stops allowing reuse: holds
    /// the port exclusively or fails. Only for ids that allowed reuse.
    fn listen(&self, _sock: &TcpSocket) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// The id lets go of the port that `sock` holds.
    fn release_port(&self, sock: TcpSocket);
}

/// Builds the C operations of a [`PortProvider`].
struct Adapter<T: PortProvider>(PhantomData<T>);

impl<T: PortProvider> Adapter<T> {
    const OPS: bindings::rdma_cm_port_ops = bindings::rdma_cm_port_ops {
        get_port: Some(Self::get_port),
        listen: if T::HAS_LISTEN {
            Some(Self::listen)
        } else {
            None
        },
        release_port: Some(Self::release_port),
    };

    /// # Safety
    ///
    /// `priv_` is the context of a live [`Registration<T>`]; the rdma_cm
    /// passes a valid request and a valid `sock` out-pointer.
    unsafe extern "C" fn get_port(
        priv_: *mut c_void,
        req: *mut bindings::rdma_cm_port_req,
        sock: *mut *mut bindings::socket,
    ) -> c_int {
        from_result(|| {
            // SAFETY: the rdma_cm passes back the context it was registered
            // with: the registration's `T`, which is freed only once no
            // operation can run any more (`Registration` invariant).
            let provider = unsafe { &*priv_.cast::<T>() };
            // SAFETY: the rdma_cm passes a request it gives us for this call.
            let mut req = unsafe { PortRequest::from_raw(req) }.ok_or(EINVAL)?;
            let held = provider.get_port(&mut req)?;
            // SAFETY: `sock` is a valid out-pointer; the rdma_cm owns the
            // socket from now on and hands it back to release_port().
            unsafe { *sock = held.map_or(core::ptr::null_mut(), TcpSocket::into_raw) };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// As for `get_port`; `sock` is a socket `get_port` gave the rdma_cm,
    /// which keeps it for the call.
    unsafe extern "C" fn listen(priv_: *mut c_void, sock: *mut bindings::socket) -> c_int {
        from_result(|| {
            // SAFETY: as in get_port().
            let provider = unsafe { &*priv_.cast::<T>() };
            // SAFETY: the rdma_cm keeps `sock` for the call.
            let sock = unsafe { TcpSocket::borrow(sock) }.ok_or(EINVAL)?;
            provider.listen(&sock)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// As for `get_port`; `sock` is a socket `get_port` gave the rdma_cm,
    /// handed back for good.
    unsafe extern "C" fn release_port(priv_: *mut c_void, sock: *mut bindings::socket) {
        // SAFETY: as in get_port().
        let provider = unsafe { &*priv_.cast::<T>() };
        // SAFETY: the rdma_cm gives the socket back and forgets it.
        if let Some(sock) = unsafe { TcpSocket::from_raw(sock) } {
            provider.release_port(sock);
        }
    }
}

#[pin_data]
struct Inner<T: PortProvider> {
    #[pin]
    provider: T,
    #[pin]
    raw: Opaque<bindings::rdma_cm_port_provider>,
}

/// A registered port provider; dropping it unregisters the provider.
///
/// # Invariants
///
/// `inner.raw` is registered with the rdma_cm, with `inner.provider` as its
/// context, from `new()` until drop, but while the KUnit suite has taken it
/// away (test builds, from [`unregister_built_in`] to [`register_built_in`]);
/// `inner` is freed only when no operation can run any more (see `Drop`),
/// else it is left allocated.
pub(crate) struct Registration<T: PortProvider> {
    inner: ManuallyDrop<Pin<KBox<Inner<T>>>>,
    module: &'static ThisModule,
}

// SAFETY: the C registration is read by the rdma_cm under its own locks and
// RCU, and written only by `new()` before it is registered; the provider
// itself is `Send + Sync`. So the registration may move to, and be shared
// with, any thread (the module's instance is, by `kernel::Module`).
unsafe impl<T: PortProvider> Send for Registration<T> {}

// SAFETY: as for `Send`: `&Registration` changes nothing (test builds may
// publish its address, which the rdma_cm's own locks then guard).
unsafe impl<T: PortProvider> Sync for Registration<T> {}

impl<T: PortProvider> Registration<T> {
    /// Registers `provider` for `module`, whose every held port pins it.
    pub(crate) fn new(
        module: &'static ThisModule,
        provider: impl PinInit<T, Error>,
    ) -> Result<Self> {
        let inner = KBox::pin_init(
            try_pin_init!(Inner {
                provider <- provider,
                raw: Opaque::uninit(),
            }),
            // Once, at load: the module's own, charged to no user.
            GFP_KERNEL,
        )?;
        let raw = inner.raw.get();
        let ctx: *const T = &inner.provider;
        // SAFETY: `raw` is ours and pinned; the ops table is a constant
        // promoted to a static.
        unsafe {
            raw.write(bindings::rdma_cm_port_provider {
                ops: &Adapter::<T>::OPS,
                owner: module.as_ptr(),
                priv_: ctx.cast_mut().cast(),
            })
        };
        // SAFETY: `raw` and the context it names stay pinned at their
        // address until drop, which unregisters first.
        to_result(unsafe { bindings::rdma_cm_register_port_provider(raw) })?;
        // INVARIANT: registered above.
        Ok(Self {
            inner: ManuallyDrop::new(inner),
            module,
        })
    }
}

/// Test builds: the built-in provider's C registration, which the KUnit
/// suite takes away from the rdma_cm and brings back; NULL until
/// [`Registration::publish_built_in`].
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
static BUILT_IN: AtomicPtr<bindings::rdma_cm_port_provider> = AtomicPtr::new(ptr::null_mut());

#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
impl<T: PortProvider> Registration<T> {
    /// Test builds: lets the KUnit suite take this provider away from the
    /// rdma_cm and bring it back. Only a built-in registration is
    /// published: having no module to count its users with, it is never
    /// freed (see `idle()`), so it outlives any use the suite makes of it.
    pub(crate) fn publish_built_in(&self) {
        if self.module.as_ptr().is_null() {
            BUILT_IN.store(self.inner.raw.get(), Ordering::Release);
        }
    }
}

/// Test builds: the built-in provider's C registration, whose operations a
/// KUnit provider may call in its place (NULL if none was published).
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
pub(crate) fn built_in() -> *const bindings::rdma_cm_port_provider {
    BUILT_IN.load(Ordering::Acquire)
}

/// Test builds: takes the built-in provider away from the rdma_cm: ids
/// bound from now on take the rdma_cm's own ports, and the ports it holds
/// stay held, until [`register_built_in`].
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
pub(crate) fn unregister_built_in() {
    let raw = BUILT_IN.load(Ordering::Acquire);
    if !raw.is_null() {
        // SAFETY: a published registration is never freed; unregistering
        // one that is not registered changes nothing.
        unsafe { bindings::rdma_cm_unregister_port_provider(raw) };
    }
}

/// Test builds: gives the built-in provider back to the rdma_cm: `EBUSY`
/// while a provider (it, or one of the suite's) is registered, `ENODEV` if
/// none was published.
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
pub(crate) fn register_built_in() -> Result {
    let raw = BUILT_IN.load(Ordering::Acquire);
    if raw.is_null() {
        return Err(ENODEV);
    }
    // SAFETY: a published registration, and the context it names, are
    // never freed: they stay pinned at their address for the rdma_cm.
    to_result(unsafe { bindings::rdma_cm_register_port_provider(raw) })
}

impl<T: PortProvider> Registration<T> {
    /// Whether no operation can run any more once unregistered: every
    /// port held and every call in flight holds a reference on the module
    /// (the rdma_cm takes it under RCU, which unregistering waits for), so
    /// none can when the module has none, as when it unloads. A built-in
    /// provider has no module to count with.
    fn idle(&self) -> bool {
        let module = self.module.as_ptr();
        if module.is_null() {
            return false;
        }
        #[cfg(CONFIG_MODULE_UNLOAD)]
        {
            // SAFETY: `module` is this module, live while its code runs.
            unsafe { bindings::module_refcount(module) <= 0 }
        }
        // Without unloading, a module's references are not counted.
        #[cfg(not(CONFIG_MODULE_UNLOAD))]
        false
    }
}

impl<T: PortProvider> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: registered by new(); unregistering a provider that the
        // KUnit suite has taken away changes nothing. No new call starts
        // once this returns.
        unsafe { bindings::rdma_cm_unregister_port_provider(self.inner.raw.get()) };
        if self.idle() {
            // SAFETY: no operation can run (see `idle()`), and `inner` is
            // dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.inner) };
        } else {
            // Held ports would call into a freed provider: leave it.
            pr_warn!("port provider unregistered while in use: its memory stays\n");
        }
    }
}
