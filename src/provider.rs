// SPDX-License-Identifier: GPL-2.0

//! The `struct rdma_cm_port_ops` this module registers with the rdma_cm:
//! the C side of the hook calls these three functions for every
//! RDMA_PS_TCP id of the AF_INET and AF_INET6 families.

use core::mem::size_of;
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use kernel::bindings;
use kernel::error::from_result;
use kernel::ffi::c_int;
use kernel::prelude::*;
use kernel::sync::Mutex;

use crate::active::ActivePorts;
use crate::caller::{self, Caller};
use crate::errno;
use crate::limit::Tally;
use crate::net::Net;
use crate::param;
use crate::policy::{self, SockAddr, Tuple};
use crate::ports::{self, Ports};
use crate::reservation::{Reservation, Reuse};

/// The ops table; `owner` makes every held port pin this module.
#[repr(transparent)]
pub(crate) struct Ops(bindings::rdma_cm_port_ops);

// SAFETY: the rdma_cm only reads the table; its functions may run anywhere.
unsafe impl Sync for Ops {}

impl Ops {
    pub(crate) fn as_ptr(&self) -> *const bindings::rdma_cm_port_ops {
        &self.0
    }
}

pub(crate) static OPS: Ops = Ops(bindings::rdma_cm_port_ops {
    owner: param::this_module(),
    get_port: Some(get_port),
    listen: Some(listen),
    release_port: Some(release_port),
});

/// What the callbacks share, owned by the module instance (see `Provider`).
#[pin_data]
struct Shared {
    /// Active-side ports shared under the 4-tuple rule.
    #[pin]
    active: Mutex<ActivePorts>,
    /// The ports held, per user and per namespace: one lock, taken once
    /// before a bind and once at release.
    #[pin]
    books: Mutex<Books>,
}

/// The ports held, as the bind path counts them.
struct Books {
    /// Per user, and the cap on them.
    tally: Tally,
    /// Per namespace, for the ephemeral search.
    ports: Ports,
}

static SHARED: AtomicPtr<Shared> = AtomicPtr::new(core::ptr::null_mut());

/// Whether the active-side table holds any socket, stored under its lock
/// after every change, so that releasing one of the many sockets that were
/// never in the table does not take that lock. A socket in the table keeps
/// this true from its insertion, which precedes its release, to its removal.
static ACTIVE_IN_USE: AtomicBool = AtomicBool::new(false);

/// Records `tuple`'s socket in the locked active-side table.
fn record_active(table: &mut ActivePorts, net: usize, sock: usize, tuple: Tuple) -> Result {
    let ret = table.insert(net, sock, tuple);
    ACTIVE_IN_USE.store(!table.is_empty(), Ordering::Release);
    ret
}

fn shared() -> Result<&'static Shared> {
    let shared = SHARED.load(Ordering::Acquire);
    // SAFETY: `SHARED` is non-null only between Provider::register() and
    // Provider's drop, which happens after the ops are unregistered and,
    // since each held port pins the module, after the last port is released.
    unsafe { shared.as_ref() }.ok_or(ENODEV)
}

fn active() -> Result<&'static Mutex<ActivePorts>> {
    shared().map(|s| &s.active)
}

/// The registered provider; dropping it unregisters the ops.
pub(crate) struct Provider {
    /// Owns what `SHARED` points to.
    _shared: Pin<KBox<Shared>>,
}

impl Provider {
    pub(crate) fn register() -> Result<Self> {
        let shared = KBox::pin_init(
            pin_init!(Shared {
                active <- kernel::new_mutex!(ActivePorts::new(), "rdma_tcp_port_active"),
                books <- kernel::new_mutex!(
                    Books {
                        tally: Tally::new(),
                        ports: Ports::new(),
                    },
                    "rdma_tcp_port_books"
                ),
            }),
            GFP_KERNEL,
        )?;
        let ptr: *const Shared = &*shared;
        SHARED.store(ptr.cast_mut(), Ordering::Release);
        // SAFETY: `OPS` is a static whose functions stay valid while the
        // ops are registered: the module unregisters them before unloading.
        let ret = unsafe { bindings::rdma_cm_register_port_ops(OPS.as_ptr()) };
        if let Err(e) = kernel::error::to_result(ret) {
            SHARED.store(core::ptr::null_mut(), Ordering::Release);
            return Err(e);
        }
        Ok(Self { _shared: shared })
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        // SAFETY: the ops were registered by register().
        unsafe { bindings::rdma_cm_unregister_port_ops(OPS.as_ptr()) };
        SHARED.store(core::ptr::null_mut(), Ordering::Release);
    }
}

const SS_LEN: usize = size_of::<bindings::__kernel_sockaddr_storage>();

/// A port being taken, counted against the user and in its namespace's
/// port map until [`Claim::keep`]: dropped before that, both counts are
/// undone and the port it took, if any, is marked free again.
struct Claim<'a> {
    books: &'static Mutex<Books>,
    net: &'a Net<'a>,
    uid: u32,
    port: Option<u16>,
}

impl<'a> Claim<'a> {
    /// Counts a port in `net` for the current task, within its cap; an
    /// explicit `port` is marked as taken at once, in the same pass.
    fn take(net: &'a Net<'a>, port: Option<u16>) -> Result<Self> {
        let books = &shared()?.books;
        let caller = Caller::current();
        let cap = caller.cap_in(net, param::user_share());
        let mut b = books.lock();
        let charged = b.tally.charge(caller.uid, net.key(), cap);
        if let (Err(e), Some(cap)) = (&charged, cap) {
            if *e == EMFILE && caller::ratelimit() {
                pr_info!(
                    "uid {} refused a port (EMFILE): at its cap of {} in this namespace (user_share) or {} in all (RLIMIT_NOFILE)\n",
                    caller.uid,
                    cap.per_ns,
                    cap.total
                );
            }
        }
        charged?;
        if let Err(e) = b.ports.enter(net.key()) {
            b.tally.uncharge(caller.uid, net.key());
            return Err(e);
        }
        if let Some(port) = port {
            b.ports.hold(net.key(), port);
        }
        Ok(Self {
            books,
            net,
            uid: caller.uid,
            port,
        })
    }

    /// The reservation took `port`, which [`Ports::pick`] marked already.
    fn picked(&mut self, port: u16) {
        self.port = Some(port);
    }

    /// The reservation took `port`, not marked yet.
    fn took(&mut self, port: u16) {
        if self.port != Some(port) {
            self.books.lock().ports.hold(self.net.key(), port);
            self.port = Some(port);
        }
    }

    /// The reservation keeps its port, counted until `release_port`.
    fn keep(self) {
        core::mem::forget(self);
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut b = self.books.lock();
        b.tally.uncharge(self.uid, self.net.key());
        match self.port {
            Some(port) => b.ports.release(self.net.key(), port),
            None => b.ports.leave(self.net.key()),
        }
    }
}

/// The `get_port` operation: see `struct rdma_cm_port_ops`.
///
/// # Safety
///
/// Called by the rdma_cm with a valid request whose `src` and `dst` point
/// into the id, and a valid `sock` out-pointer.
unsafe extern "C" fn get_port(
    req: *mut bindings::rdma_cm_port_req,
    sock: *mut *mut bindings::socket,
) -> c_int {
    from_result(|| {
        // SAFETY: the caller passes a valid, exclusive request.
        let req = unsafe { &mut *req };
        // SAFETY: the id holds a reference on its namespace until the port
        // it gets here is released.
        let net = unsafe { Net::from_raw(req.net) }.ok_or(EINVAL)?;
        // SAFETY: `src` is the id's `sockaddr_storage`; nobody else touches
        // the address of an id while it is being bound.
        let src = unsafe { core::slice::from_raw_parts_mut(req.src.cast::<u8>(), SS_LEN) };
        // SAFETY: as above, read only.
        let dst = unsafe { core::slice::from_raw_parts(req.dst.cast::<u8>(), SS_LEN) };
        let res = take_port(req, &net, src, dst)?;
        // SAFETY: `sock` is a valid out-pointer; NULL leaves the id to the
        // rdma_cm's own table.
        unsafe { *sock = res.map_or(core::ptr::null_mut(), Reservation::into_raw) };
        Ok(0)
    })
}

fn take_port(
    req: &mut bindings::rdma_cm_port_req,
    net: &Net<'_>,
    src_raw: &mut [u8],
    dst_raw: &[u8],
) -> Result<Option<Reservation>> {
    if !param::reserve().covers(req.dev_bound, req.iwarp, || net.iwarp_in_net()) {
        return Ok(None);
    }
    let track = param::idr();
    policy::admit(req.dev_bound, req.iwarp, track).map_err(|_| errno::eopnotsupp())?;
    req.track = track;
    let src = SockAddr::parse(src_raw).ok_or_else(errno::eafnosupport)?;
    let mut claim = Claim::take(net, (src.port != 0).then_some(src.port))?;
    // Only ids that rdma_resolve_addr() bound to port 0 may share a port.
    let sharing = SockAddr::parse(dst_raw)
        .map(|dst| Tuple { src, dst })
        .filter(|t| t.is_active() && src.port == 0);
    let res = match (bind(req, net, &src, src_raw, &mut claim), sharing) {
        (Err(e), Some(tuple)) if e == errno::eaddrinuse() => {
            let res = share(req, net, src_raw, tuple)?;
            claim.took(res.port());
            res
        }
        (res, sharing) => {
            let res = res?;
            claim.took(res.port());
            if let Some(mut tuple) = sharing {
                tuple.src.port = res.port();
                let key = res.as_ptr() as usize;
                record_active(&mut active()?.lock(), net.key(), key, tuple)?;
            }
            SockAddr::write_port(src_raw, res.port());
            res
        }
    };
    claim.keep();
    Ok(Some(res))
}

/// Takes the id's port. An id with reuse binds as an `SO_REUSEADDR` socket.
/// One without holds the port alone; where other sockets are on the port it
/// binds as `SO_REUSEADDR` and then claims the port as a listener does, so
/// that the connections and TIME_WAIT sockets siw leaves on the port of an
/// earlier id (which allow reuse) do not keep it out: the rdma_cm never asked
/// its users for `SO_REUSEADDR`. Port 0 is [`bind_ephemeral`]'s.
fn bind(
    req: &bindings::rdma_cm_port_req,
    net: &Net<'_>,
    src: &SockAddr,
    src_raw: &[u8],
    claim: &mut Claim<'_>,
) -> Result<Reservation> {
    if src.port == 0 {
        return bind_ephemeral(req, net, src, src_raw, claim);
    }
    if req.reuseaddr {
        return Reservation::take(net, src, src_raw, Reuse::Can, req.afonly);
    }
    match Reservation::take(net, src, src_raw, Reuse::No, req.afonly) {
        Err(e) if e == errno::eaddrinuse() => {
            let res = Reservation::take(net, src, src_raw, Reuse::Can, req.afonly)?;
            res.make_exclusive()?;
            Ok(res)
        }
        res => res,
    }
}

/// Takes an ephemeral port for a port-0 id: ports of the namespace's
/// `ip_local_port_range` that the port map does not know as taken are tried
/// with explicit binds (see [`crate::ephemeral`]) from a random one on;
/// when none is left but some were only found taken by others, the host's
/// own `bind(0)` search decides.
/// The socket binds without reuse, so it takes a port on which it conflicts
/// with nobody, as a port-0 bind does; an id with reuse gets it afterwards.
/// A range that reaches below `ip_unprivileged_port_start` is left to the
/// host's own search, which an explicit bind there could not match.
fn bind_ephemeral(
    req: &bindings::rdma_cm_port_req,
    net: &Net<'_>,
    src: &SockAddr,
    src_raw: &[u8],
    claim: &mut Claim<'_>,
) -> Result<Reservation> {
    let range = net.local_port_range();
    let reuse = if req.reuseaddr { Reuse::Can } else { Reuse::No };
    if u32::from(range.0) < net.unprivileged_port_start() {
        return Reservation::take(net, src, src_raw, reuse, req.afonly);
    }
    let books = &shared()?.books;
    let res = Reservation::new(net, src.family, req.afonly)?;
    let mut raw = [0u8; SS_LEN];
    raw.copy_from_slice(src_raw);
    let start = ports::random_start(range);
    loop {
        let picked = books
            .lock()
            .ports
            .pick(net.key(), range, start, |i| net.reserved_ports(i));
        let Some(port) = picked else {
            // Every port is ours or was found taken. A port found taken may
            // have been let go since: then the host's own search decides,
            // and a port it finds shows the hints stale.
            if !books.lock().ports.any_seen(net.key()) {
                return Err(errno::eaddrinuse());
            }
            res.bind(src, src_raw)?;
            books.lock().ports.forget_seen(net.key());
            break;
        };
        SockAddr::write_port(&mut raw, port);
        match res.bind(src, &raw) {
            Ok(()) => {
                claim.picked(port);
                break;
            }
            Err(e) => {
                let taken = e == errno::eaddrinuse();
                books.lock().ports.missed(net.key(), port, taken);
                if !taken {
                    return Err(e);
                }
            }
        }
    }
    if reuse != Reuse::No {
        res.set_reuse(reuse);
    }
    Ok(res)
}

/// The range is full: join a port held by this module's active ids whose
/// 4-tuples all differ from this id's, as upstream's allocator would.
fn share(
    req: &bindings::rdma_cm_port_req,
    net: &Net<'_>,
    src_raw: &mut [u8],
    mut tuple: Tuple,
) -> Result<Reservation> {
    let mut table = active()?.lock();
    let port = table
        .find_shareable(net.key(), &tuple)
        .ok_or_else(errno::eaddrinuse)?;
    tuple.src.port = port;
    // Bind a copy: the id's address changes only once the port is ours.
    let mut raw = [0u8; SS_LEN];
    raw.copy_from_slice(src_raw);
    SockAddr::write_port(&mut raw, port);
    let res = Reservation::take(net, &tuple.src, &raw, Reuse::Force, req.afonly)?;
    record_active(&mut table, net.key(), res.as_ptr() as usize, tuple)?;
    SockAddr::write_port(src_raw, port);
    Ok(res)
}

/// The `listen` operation: see `struct rdma_cm_port_ops`.
///
/// # Safety
///
/// `sock` is a socket this module gave the rdma_cm and has not released.
unsafe extern "C" fn listen(sock: *mut bindings::socket) -> c_int {
    from_result(|| {
        // SAFETY: the rdma_cm owns `sock` and keeps it for this call.
        let res = unsafe { Reservation::borrow(sock) }.ok_or(EINVAL)?;
        res.make_exclusive()?;
        Ok(0)
    })
}

/// The `release_port` operation: see `struct rdma_cm_port_ops`.
///
/// # Safety
///
/// `sock` is a socket this module gave the rdma_cm, handed back for good.
unsafe extern "C" fn release_port(sock: *mut bindings::socket) {
    // SAFETY: the rdma_cm gives the socket back and forgets it.
    let res = unsafe { Reservation::from_raw(sock) };
    if let (Some(res), Ok(shared)) = (&res, shared()) {
        let mut b = shared.books.lock();
        b.tally.uncharge(res.uid(), res.net_key());
        b.ports.release(res.net_key(), res.port());
    }
    if ACTIVE_IN_USE.load(Ordering::Acquire) {
        if let Ok(table) = active() {
            let mut table = table.lock();
            table.remove(sock as usize);
            ACTIVE_IN_USE.store(!table.is_empty(), Ordering::Release);
        }
    }
    drop(res);
}
