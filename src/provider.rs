// SPDX-License-Identifier: GPL-2.0

//! The `struct rdma_cm_port_ops` this module registers with the rdma_cm:
//! the C side of the hook calls these three functions for every
//! RDMA_PS_TCP id of the AF_INET and AF_INET6 families.

use core::mem::{size_of, ManuallyDrop};
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::Mutex;

use crate::active::ActivePorts;
use crate::caller::{self, Caller};
use crate::errno;
use crate::limit::{NetKey, Tally};
use crate::param;
use crate::policy::{self, SockAddr, Tuple};
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
    /// Ports held per user, and the cap on them.
    #[pin]
    tally: Mutex<Tally>,
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
                tally <- kernel::new_mutex!(Tally::new(), "rdma_tcp_port_tally"),
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

/// One port counted against a user until [`Charge::keep`]: dropped
/// before that, it gives the port back to the count.
struct Charge {
    tally: &'static Mutex<Tally>,
    uid: u32,
    net: NetKey,
}

impl Charge {
    /// Counts a port in `net` for the current task, within its cap.
    fn take(net: *mut bindings::net) -> Result<Self> {
        let tally = &shared()?.tally;
        let caller = Caller::current();
        // SAFETY: `net` is the namespace of the id being bound, which holds
        // a reference on it.
        let cap = unsafe { caller.cap_in(net, param::user_share()) };
        let charged = tally.lock().charge(caller.uid, net as NetKey, cap);
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
        Ok(Self {
            tally,
            uid: caller.uid,
            net: net as NetKey,
        })
    }

    /// The port is held: it stays counted until `release_port`.
    fn keep(self) {
        core::mem::forget(self);
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.tally.lock().uncharge(self.uid, self.net);
    }
}

const SS_LEN: usize = size_of::<bindings::__kernel_sockaddr_storage>();

/// The `get_port` operation: see `struct rdma_cm_port_ops`.
///
/// # Safety
///
/// Called by the rdma_cm with a valid request whose `src` and `dst` point
/// into the id, and a valid `sock` out-pointer.
unsafe extern "C" fn get_port(
    req: *mut bindings::rdma_cm_port_req,
    sock: *mut *mut bindings::socket,
) -> core::ffi::c_int {
    // SAFETY: the caller passes a valid, exclusive request.
    let req = unsafe { &mut *req };
    // SAFETY: `src` is the id's `sockaddr_storage`; nobody else touches the
    // address of an id while it is being bound.
    let src = unsafe { core::slice::from_raw_parts_mut(req.src.cast::<u8>(), SS_LEN) };
    // SAFETY: as above, read only.
    let dst = unsafe { core::slice::from_raw_parts(req.dst.cast::<u8>(), SS_LEN) };
    match take_port(req, src, dst) {
        Ok(res) => {
            // SAFETY: `sock` is a valid out-pointer; NULL leaves the id to
            // the rdma_cm's own table.
            unsafe { *sock = res.map_or(core::ptr::null_mut(), Reservation::into_raw) };
            0
        }
        Err(e) => e.to_errno(),
    }
}

fn take_port(
    req: &mut bindings::rdma_cm_port_req,
    src_raw: &mut [u8],
    dst_raw: &[u8],
) -> Result<Option<Reservation>> {
    if !param::reserve().covers(req.dev_bound, req.iwarp, req.iwarp_in_net) {
        return Ok(None);
    }
    let track = param::idr();
    policy::admit(req.dev_bound, req.iwarp, track).map_err(|_| errno::eopnotsupp())?;
    req.track = track;
    let src = SockAddr::parse(src_raw).ok_or_else(errno::eafnosupport)?;
    let charge = Charge::take(req.net)?;
    // Only ids that rdma_resolve_addr() bound to port 0 may share a port.
    let sharing = SockAddr::parse(dst_raw)
        .map(|dst| Tuple { src, dst })
        .filter(|t| t.is_active() && src.port == 0);
    let res = match (bind(req, &src, src_raw), sharing) {
        (Err(e), Some(tuple)) if errno::is_eaddrinuse(&e) => {
            let res = share(req, src_raw, tuple)?;
            charge.keep();
            return Ok(Some(res));
        }
        (res, _) => res?,
    };
    let port = res.port()?;
    SockAddr::write_port(src_raw, port);
    if let Some(mut tuple) = sharing {
        tuple.src.port = port;
        let key = res.as_ptr() as usize;
        record_active(&mut active()?.lock(), req.net as usize, key, tuple)?;
    }
    charge.keep();
    Ok(Some(res))
}

/// Takes the id's port. An id with reuse binds as an `SO_REUSEADDR` socket.
/// One without holds the port alone; where other sockets are on the port it
/// binds as `SO_REUSEADDR` and then claims the port as a listener does, so
/// that the connections and TIME_WAIT sockets siw leaves on the port of an
/// earlier id (which allow reuse) do not keep it out: the rdma_cm never asked
/// its users for `SO_REUSEADDR`. A port-0 bind takes a port on which it
/// conflicts with nobody, so it needs no second try; it also takes it from
/// the whole range, where an `SO_REUSEADDR` socket would search half of it
/// first (see `inet_csk_find_open_port()`).
fn bind(req: &bindings::rdma_cm_port_req, src: &SockAddr, src_raw: &[u8]) -> Result<Reservation> {
    if req.reuseaddr {
        return Reservation::bind(req.net, src, src_raw, Reuse::Can, req.afonly);
    }
    match Reservation::bind(req.net, src, src_raw, Reuse::No, req.afonly) {
        Err(e) if errno::is_eaddrinuse(&e) && src.port != 0 => {
            let res = Reservation::bind(req.net, src, src_raw, Reuse::Can, req.afonly)?;
            res.make_exclusive()?;
            Ok(res)
        }
        res => res,
    }
}

/// The range is full: join a port held by this module's active ids whose
/// 4-tuples all differ from this id's, as upstream's allocator would.
fn share(
    req: &bindings::rdma_cm_port_req,
    src_raw: &mut [u8],
    mut tuple: Tuple,
) -> Result<Reservation> {
    let mut table = active()?.lock();
    let port = table
        .find_shareable(req.net as usize, &tuple)
        .ok_or_else(errno::eaddrinuse)?;
    tuple.src.port = port;
    // Bind a copy: the id's address changes only once the port is ours.
    let mut raw = [0u8; SS_LEN];
    raw.copy_from_slice(src_raw);
    SockAddr::write_port(&mut raw, port);
    let res = Reservation::bind(req.net, &tuple.src, &raw, Reuse::Force, req.afonly)?;
    record_active(&mut table, req.net as usize, res.as_ptr() as usize, tuple)?;
    SockAddr::write_port(src_raw, port);
    Ok(res)
}

/// The `listen` operation: see `struct rdma_cm_port_ops`.
///
/// # Safety
///
/// `sock` is a socket this module gave the rdma_cm and has not released.
unsafe extern "C" fn listen(sock: *mut bindings::socket) -> core::ffi::c_int {
    // SAFETY: the rdma_cm still owns `sock`; ManuallyDrop keeps it so.
    let Some(res) = (unsafe { Reservation::from_raw(sock) }).map(ManuallyDrop::new) else {
        return EINVAL.to_errno();
    };
    match res.make_exclusive() {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
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
        shared.tally.lock().uncharge(res.uid(), res.net_key());
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
