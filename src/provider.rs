// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! The port provider: each RDMA_PS_TCP id of the AF_INET and AF_INET6
//! families takes its port from the host TCP stack, held by a kernel TCP
//! socket that the rdma_cm keeps in the id until `cma_release_port()`.

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::prelude::*;
use kernel::sync::Mutex;
use kernel::time::Ktime;

use crate::active::ActivePorts;
use crate::caller::Caller;
use crate::limit::Tally;
use crate::param;
use crate::policy::{self, Ratelimit, SockAddr, Tuple, AF_INET6, SOCKADDR_IN6_LEN};
use crate::ports::{self, Pick, Ports};
use crate::sys::errno;
use crate::sys::net::Net;
use crate::sys::port_provider::{PortProvider, PortRequest};
use crate::sys::socket::{Family, Reuse, TcpSocket};
use crate::sys::ucount::PortCharge;

/// Messages about refused callers, who retry in a loop.
static REFUSALS: Ratelimit = Ratelimit::new();

/// Whether a message about a refused caller may be logged now; the first
/// after some were held back says how many.
fn may_log_refusal() -> bool {
    match REFUSALS.allow(Ktime::ktime_get().to_ms()) {
        None => false,
        Some(0) => true,
        Some(held) => {
            pr_info!("{} messages about refused callers suppressed\n", held);
            true
        }
    }
}

/// The provider's state, owned by its registration.
#[pin_data]
pub(crate) struct Provider {
    /// Active-side ports shared under the 4-tuple rule.
    #[pin]
    active: Mutex<ActivePorts>,
    /// Whether `active` holds any socket, stored under its lock after every
    /// change, so that releasing one of the many sockets that were never in
    /// the table does not take that lock. A socket in the table keeps this
    /// true from its insertion, which precedes its release, to its removal.
    active_in_use: AtomicBool,
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

impl Provider {
    pub(crate) fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            active <- kernel::new_mutex!(ActivePorts::new(), "rdma_tcp_port_active"),
            active_in_use: AtomicBool::new(false),
            books <- kernel::new_mutex!(
                Books {
                    tally: Tally::new(),
                    ports: Ports::new(),
                },
                "rdma_tcp_port_books"
            ),
        })
    }

    /// Records `tuple`'s socket in the locked active-side table.
    fn record_active(
        &self,
        table: &mut ActivePorts,
        net: &Net<'_>,
        sock: &TcpSocket,
        tuple: Tuple,
    ) -> Result {
        let ret = table.insert(net.key(), sock.key(), tuple);
        self.note_active(table);
        ret
    }

    /// Stores whether the locked active-side table holds any socket, after
    /// every change to it.
    fn note_active(&self, table: &ActivePorts) {
        self.active_in_use
            .store(!table.is_empty(), Ordering::Release);
    }
}

#[vtable]
impl PortProvider for Provider {
    fn get_port(&self, req: &mut PortRequest<'_>) -> Result<Option<TcpSocket>> {
        self.take_port(req)
    }

    /// An id with reuse starts listening: TCP's listen rule from now on.
    fn listen(&self, sock: &TcpSocket) -> Result {
        sock.claim_port()
    }

    fn release_port(&self, sock: TcpSocket) {
        {
            let mut b = self.books.lock();
            b.tally.uncharge(sock.uid(), sock.net_key());
            b.ports.release(sock.net_key(), sock.port());
        }
        if self.active_in_use.load(Ordering::Acquire) {
            let mut table = self.active.lock();
            table.remove(sock.key());
            self.note_active(&table);
        }
        drop(sock);
    }
}

/// The id's options that the bind path needs.
#[derive(Clone, Copy)]
struct Options {
    /// `rdma_set_reuseaddr()`.
    reuseaddr: bool,
    /// `rdma_set_afonly()`: `IPV6_V6ONLY` for the socket.
    afonly: bool,
}

/// What a bind asks the books to mark for it.
#[derive(Clone, Copy)]
enum Want {
    /// An explicit port.
    Port(u16),
    /// An ephemeral port of `range`, searched from `start` on.
    Pick { range: (u16, u16), start: u16 },
    /// The port the host's own `bind(0)` search finds, marked once known.
    Host,
}

/// A port being taken, counted against the user and in its namespace's
/// port map until [`Claim::keep`]: dropped before that, the counts are
/// undone and the port it marked, if any, is marked free again.
struct Claim<'a> {
    books: &'a Mutex<Books>,
    net: &'a Net<'a>,
    uid: u32,
    /// The port charged to the user across its user namespaces; `None`
    /// where the cap does not apply.
    charge: Option<PortCharge>,
    /// What the bind asked for.
    want: Want,
    /// Where the bind stands: `Pick::Port` is the port marked in the
    /// namespace's map for it (to try, or taken), `Host` and `Full` mark
    /// none.
    mark: Pick,
}

impl<'a> Claim<'a> {
    /// Counts a port in `net` for the current task, within its cap, and
    /// marks the port that `want` asks for, all in one pass under the lock.
    fn take(
        books: &'a Mutex<Books>,
        net: &'a Net<'a>,
        caller: &Caller,
        want: Want,
    ) -> Result<Self> {
        let cap = caller.cap_in(net, param::user_share());
        let exempt = cap.is_some() && caller.exempt_in(net);
        let charge = match cap {
            Some(_) if !exempt => Some(Self::charge(caller)?),
            _ => None,
        };
        let mut guard = books.lock();
        let b = &mut *guard;
        let charged = b.tally.charge(caller.uid, net.key(), cap, exempt);
        if let (Err(e), Some(cap)) = (&charged, cap) {
            if *e == EMFILE && may_log_refusal() {
                pr_info!(
                    concat!(
                        "uid {} refused a port (EMFILE): at its cap of {} in this namespace ",
                        "(user_share) or {} in all (RLIMIT_NOFILE)\n"
                    ),
                    caller.uid,
                    cap.per_ns,
                    cap.total
                );
            }
        }
        charged?;
        let n = match b.ports.enter(net.key()) {
            Ok(n) => n,
            Err(e) => {
                b.tally.uncharge(caller.uid, net.key());
                return Err(e);
            }
        };
        let mark = match want {
            Want::Port(port) => {
                n.hold(port);
                Pick::Port(port)
            }
            Want::Pick { range, start } => n.pick(range, start, |i| net.reserved_ports(i)),
            Want::Host => Pick::Host,
        };
        Ok(Self {
            books,
            net,
            uid: caller.uid,
            charge,
            want,
            mark,
        })
    }

    /// Charges the port to the capped caller across its user namespaces,
    /// where every uid of one person counts against that person: `EMFILE`
    /// at the limit (`user.max_rdma_tcp_ports`) of one of them.
    fn charge(caller: &Caller) -> Result<PortCharge> {
        if let Some(charge) = PortCharge::current() {
            return Ok(charge);
        }
        if may_log_refusal() {
            pr_info!(
                concat!(
                    "uid {} refused a port (EMFILE): at user.max_rdma_tcp_ports, its own ",
                    "or that of a user namespace above it\n"
                ),
                caller.uid
            );
        }
        Err(EMFILE)
    }

    /// The picked `port` was found taken by someone else: records it and
    /// picks the next one, in one pass under the lock.
    fn missed(&mut self, port: u16) {
        let net = self.net;
        let mut b = self.books.lock();
        self.mark = match (b.ports.get_mut(net.key()), self.want) {
            (Some(n), Want::Pick { range, start }) => {
                n.missed(port, true);
                n.pick(range, start, |i| net.reserved_ports(i))
            }
            // Only port-0 binds pick: nothing to try next.
            (Some(n), Want::Port(_) | Want::Host) => {
                n.missed(port, false);
                Pick::Full
            }
            (None, _) => Pick::Full,
        };
    }

    /// The socket took `port`; `stale`: the host's own search found it
    /// where the maps had none left, so what binds found taken is forgotten.
    fn took(&mut self, port: u16, stale: bool) {
        if self.mark == Pick::Port(port) && !stale {
            return;
        }
        let mut b = self.books.lock();
        if let Some(n) = b.ports.get_mut(self.net.key()) {
            if let Pick::Port(old) = self.mark {
                n.missed(old, false);
            }
            if stale {
                n.forget_seen();
            }
            n.hold(port);
        }
        self.mark = Pick::Port(port);
    }

    /// `sock` keeps its port, counted until `release_port`, and the charge,
    /// given back when the socket is released.
    fn keep(mut self, sock: &mut TcpSocket) {
        if let Some(charge) = self.charge.take() {
            sock.keep_charge(charge);
        }
        core::mem::forget(self);
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut b = self.books.lock();
        b.tally.uncharge(self.uid, self.net.key());
        match self.mark {
            Pick::Port(port) => b.ports.release(self.net.key(), port),
            Pick::Host | Pick::Full => b.ports.leave(self.net.key()),
        }
    }
}

/// An id's bind: its namespace, its options and its source address, both
/// parsed and as the id holds it (a `struct sockaddr_in{,6}`, scope id and
/// flow label included), which is what the sockets bind to. It binds a
/// copy, so that the id's own address changes only once a port is taken:
/// the size of a `struct sockaddr_in6`, all that bind reads of the id's
/// `sockaddr_storage`.
struct Bind<'a> {
    net: &'a Net<'a>,
    opts: Options,
    src: SockAddr,
    raw: [u8; SOCKADDR_IN6_LEN],
}

impl<'a> Bind<'a> {
    /// The bind of an id whose source address is `raw`: `EAFNOSUPPORT`
    /// for a family other than IPv4 and IPv6.
    fn new(net: &'a Net<'a>, opts: Options, raw: &[u8]) -> Result<Self> {
        let src = SockAddr::parse(raw).ok_or_else(errno::eafnosupport)?;
        let raw = raw
            .get(..SOCKADDR_IN6_LEN)
            .and_then(|r| <[u8; SOCKADDR_IN6_LEN]>::try_from(r).ok())
            .ok_or(EINVAL)?;
        Ok(Self {
            net,
            opts,
            src,
            raw,
        })
    }

    /// Binds to `port` from now on.
    fn set_port(&mut self, port: u16) {
        self.src.port = port;
        SockAddr::write_port(&mut self.raw, port);
    }

    /// A new socket of the id's family in its namespace, not bound yet.
    fn socket(&self) -> Result<TcpSocket> {
        // `SockAddr::parse()` gives `AF_INET` or `AF_INET6` only.
        let family = if self.src.family == AF_INET6 {
            Family::Inet6
        } else {
            Family::Inet
        };
        TcpSocket::new(self.net, family, self.opts.afonly)
    }

    /// Binds `sock` to the address: the host's error (`EADDRINUSE`,
    /// `EACCES`, `EADDRNOTAVAIL`...) leaves it unbound.
    fn bind(&self, sock: &TcpSocket) -> Result {
        sock.bind(self.raw.get(..self.src.sockaddr_len()).ok_or(EINVAL)?)
    }

    /// A new socket bound to the address with `reuse`.
    fn take(&self, reuse: Reuse) -> Result<TcpSocket> {
        let sock = self.socket()?;
        // A new socket starts with SK_NO_REUSE.
        if reuse != Reuse::No {
            sock.set_reuse(reuse);
        }
        self.bind(&sock)?;
        Ok(sock)
    }
}

impl Provider {
    fn take_port(&self, req: &mut PortRequest<'_>) -> Result<Option<TcpSocket>> {
        let net = req.net();
        let caller = Caller::current();
        let (dev_bound, iwarp) = (req.dev_bound(), req.iwarp());
        if !param::reserve().covers(caller.kthread, dev_bound, iwarp, || net.iwarp_in_net()) {
            return Ok(None);
        }
        let track = param::idr();
        policy::admit(dev_bound, iwarp, track).map_err(|_| errno::eopnotsupp())?;
        req.set_track(track);
        let opts = Options {
            reuseaddr: req.reuseaddr(),
            afonly: req.afonly(),
        };
        let mut bind = Bind::new(&net, opts, req.src())?;
        let src = bind.src;
        let mut claim = Claim::take(&self.books, &net, &caller, Self::want(&net, &src))?;
        // Only ids that rdma_resolve_addr() bound to port 0 may share a port.
        let sharing = SockAddr::parse(req.dst())
            .map(|dst| Tuple { src, dst })
            .filter(|t| t.is_active() && src.port == 0);
        let mut sock = match (self.bind(&mut bind, &mut claim), sharing) {
            (Err(e), Some(tuple)) if e == errno::eaddrinuse() => self.share(&mut bind, tuple)?,
            (sock, sharing) => {
                let sock = sock?;
                if let Some(mut tuple) = sharing {
                    tuple.src.port = sock.port();
                    self.record_active(&mut self.active.lock(), &net, &sock, tuple)?;
                }
                sock
            }
        };
        claim.took(sock.port(), false);
        claim.keep(&mut sock);
        SockAddr::write_port(req.src_mut(), sock.port());
        Ok(Some(sock))
    }

    /// What the books mark for a bind to `src`: its port, or for port 0 a
    /// port picked from the namespace's `ip_local_port_range` (see
    /// [`crate::ephemeral`]) from a random one on. A range that reaches
    /// below `ip_unprivileged_port_start` is left to the host's own search,
    /// which an explicit bind there could not match.
    fn want(net: &Net<'_>, src: &SockAddr) -> Want {
        if src.port != 0 {
            return Want::Port(src.port);
        }
        let range = net.local_port_range();
        if u32::from(range.0) < net.unprivileged_port_start() {
            return Want::Host;
        }
        Want::Pick {
            range,
            start: ports::random_start(range),
        }
    }

    /// Takes the id's port. An id with reuse binds as an `SO_REUSEADDR`
    /// socket. One without holds the port alone; where other sockets are on
    /// the port it binds as `SO_REUSEADDR` and then claims the port as a
    /// listener does, so that the connections and TIME_WAIT sockets siw
    /// leaves on the port of an earlier id (which allow reuse) do not keep
    /// it out: the rdma_cm never asked its users for `SO_REUSEADDR`. Port 0
    /// is [`Provider::bind_ephemeral`]'s.
    fn bind(&self, bind: &mut Bind<'_>, claim: &mut Claim<'_>) -> Result<TcpSocket> {
        if bind.src.port == 0 {
            return self.bind_ephemeral(bind, claim);
        }
        if bind.opts.reuseaddr {
            return bind.take(Reuse::Can);
        }
        match bind.take(Reuse::No) {
            Err(e) if e == errno::eaddrinuse() => {
                let sock = bind.take(Reuse::Can)?;
                sock.claim_port()?;
                Ok(sock)
            }
            sock => sock,
        }
    }

    /// Takes an ephemeral port for a port-0 id: the ports the claim picks
    /// (one in its first pass, one more after each port found taken) are
    /// tried with explicit binds; when none is left but some were only
    /// found taken by others, the host's own `bind(0)` search decides, as
    /// it does for a range that [`Provider::want`] leaves to it.
    /// The socket binds without reuse, so it takes a port on which it
    /// conflicts with nobody, as a port-0 bind does; an id with reuse gets it
    /// afterwards.
    fn bind_ephemeral(&self, bind: &mut Bind<'_>, claim: &mut Claim<'_>) -> Result<TcpSocket> {
        let reuse = if bind.opts.reuseaddr {
            Reuse::Can
        } else {
            Reuse::No
        };
        if !matches!(claim.want, Want::Pick { .. }) {
            return bind.take(reuse);
        }
        let sock = bind.socket()?;
        loop {
            match claim.mark {
                Pick::Full => return Err(errno::eaddrinuse()),
                Pick::Host => {
                    // A port found taken may have been let go since: the
                    // host's own search decides, and a port it finds shows
                    // the hints stale.
                    bind.set_port(0);
                    bind.bind(&sock)?;
                    claim.took(sock.port(), true);
                    break;
                }
                Pick::Port(port) => {
                    bind.set_port(port);
                    match bind.bind(&sock) {
                        Ok(()) => break,
                        // The claim's drop marks the port free again.
                        Err(e) if e != errno::eaddrinuse() => return Err(e),
                        Err(_) => claim.missed(port),
                    }
                }
            }
        }
        if reuse != Reuse::No {
            sock.set_reuse(reuse);
        }
        Ok(sock)
    }

    /// The range is full: join a port held by this module's active ids
    /// whose 4-tuples all differ from this id's, as upstream's allocator
    /// would.
    fn share(&self, bind: &mut Bind<'_>, mut tuple: Tuple) -> Result<TcpSocket> {
        let mut table = self.active.lock();
        let port = table
            .find_shareable(bind.net.key(), &tuple)
            .ok_or_else(errno::eaddrinuse)?;
        tuple.src.port = port;
        bind.set_port(port);
        let sock = bind.take(Reuse::Force)?;
        self.record_active(&mut table, bind.net, &sock, tuple)?;
        Ok(sock)
    }
}
