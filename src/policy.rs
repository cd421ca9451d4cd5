// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! Decisions that need no kernel: address parsing, the rdma_cm's 4-tuple
//! rule for sharing active-side ports, which ids the provider serves, and
//! how often a refusal is logged.
//!
//! This file is built into the kernel module and, unchanged, into the host
//! crate `crates/policy`, where `cargo test` checks it. It uses `core` only.

use core::sync::atomic::{AtomicI64, AtomicU32, Ordering};

/// `AF_INET`, as Linux numbers it.
pub const AF_INET: u16 = 2;
/// `AF_INET6`, as Linux numbers it.
pub const AF_INET6: u16 = 10;
/// Size of `struct sockaddr_in`.
pub const SOCKADDR_IN_LEN: usize = 16;
/// Size of `struct sockaddr_in6`.
pub const SOCKADDR_IN6_LEN: usize = 28;

/// An IPv4 or IPv6 socket address, as read from a `struct sockaddr_storage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SockAddr {
    /// `AF_INET` or `AF_INET6`.
    pub family: u16,
    /// The address; IPv4 uses the first four bytes.
    pub ip: [u8; 16],
    /// The port, in host order.
    pub port: u16,
}

impl SockAddr {
    /// Reads an address from the bytes of a `struct sockaddr_storage`.
    ///
    /// Returns `None` for any other family, or if `raw` is too short.
    pub fn parse(raw: &[u8]) -> Option<Self> {
        let family = u16::from_ne_bytes([*raw.first()?, *raw.get(1)?]);
        let port = u16::from_be_bytes([*raw.get(2)?, *raw.get(3)?]);
        let mut ip = [0u8; 16];
        match family {
            AF_INET => ip[..4].copy_from_slice(raw.get(4..8)?),
            AF_INET6 => ip.copy_from_slice(raw.get(8..24)?),
            _ => return None,
        }
        Some(Self { family, ip, port })
    }

    /// Writes `port` into the bytes of a `struct sockaddr_in{,6}`.
    pub fn write_port(raw: &mut [u8], port: u16) {
        if let Some(p) = raw.get_mut(2..4) {
            p.copy_from_slice(&port.to_be_bytes());
        }
    }

    /// Length of the `struct sockaddr_in{,6}` this address comes from.
    pub fn sockaddr_len(&self) -> usize {
        if self.family == AF_INET {
            SOCKADDR_IN_LEN
        } else {
            SOCKADDR_IN6_LEN
        }
    }

    /// The wildcard address (`INADDR_ANY` or `in6addr_any`), as `cma_any_addr()`.
    pub fn is_any(&self) -> bool {
        self.ip == [0u8; 16]
    }

    /// Same family and address, ports aside; `cma_addr_cmp() == 0`.
    pub fn same_ip(&self, other: &Self) -> bool {
        self.family == other.family && self.ip == other.ip
    }
}

/// The local and remote end of an active-side id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuple {
    /// Source address; its port is the one the ids share.
    pub src: SockAddr,
    /// Destination address and port.
    pub dst: SockAddr,
}

impl Tuple {
    /// An id is on the active side when `rdma_resolve_addr()` bound it
    /// towards a destination.
    pub fn is_active(&self) -> bool {
        !self.dst.is_any()
    }

    /// `cma_port_is_unique()`: may `self` share a source port with `other`?
    ///
    /// Two ids sharing a port must differ in destination port, source
    /// address or destination address, with wildcards matching anything.
    pub fn is_unique_against(&self, other: &Self) -> bool {
        let (s, d, cs, cd) = (&self.src, &self.dst, &other.src, &other.dst);
        let differ = |a: &SockAddr, b: &SockAddr| !a.is_any() && !b.is_any() && !a.same_ip(b);
        (d.port != 0 && cd.port != 0 && d.port != cd.port) || differ(s, cs) || differ(d, cd)
    }
}

/// The first port, in `entries` sorted by port, whose ids all may share it
/// with `tuple` under the 4-tuple rule and are of its family: the port an
/// active-side id joins once the range is full, as `cma_alloc_any_port()`
/// would let it.
pub fn first_shareable(
    entries: impl IntoIterator<Item = (u16, Tuple)>,
    tuple: &Tuple,
) -> Option<u16> {
    let mut candidate: Option<u16> = None;
    let mut ok = false;
    for (port, cur) in entries {
        if candidate != Some(port) {
            if ok {
                return candidate;
            }
            candidate = Some(port);
            ok = true;
        }
        ok = ok && cur.src.family == tuple.src.family && tuple.is_unique_against(&cur);
    }
    if ok {
        candidate
    } else {
        None
    }
}

/// Why the provider does not serve an id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The rdma_cm's table is off, yet the id is bound to an IB or RoCE
    /// device, whose connection requests find their listener only there.
    NeedsTable,
}

/// Decides whether an id may take its port from the host with the rdma_cm
/// table in state `track` (the module's `idr` parameter).
pub fn admit(dev_bound: bool, iwarp: bool, track: bool) -> Result<(), Refusal> {
    if !track && dev_bound && !iwarp {
        return Err(Refusal::NeedsTable);
    }
    Ok(())
}

/// Which RDMA_PS_TCP ids get a port held in the host stack (`reserve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Reserve {
    /// Every id, as the seed did: the default.
    All,
    /// Only ids whose connections can meet host TCP: ids bound to an iWARP
    /// device, and wildcard ids while an iWARP device has a port in the
    /// id's namespace. IB and RoCE ids keep the rdma_cm's own ports, so an
    /// RDMA service and a TCP service may share a well-known port there.
    Iwarp,
    /// None: the rdma_cm's own table for every id, as without the module.
    None,
}

impl Reserve {
    /// Every value, in the order of their discriminants.
    const VALUES: [Reserve; 3] = [Reserve::All, Reserve::Iwarp, Reserve::None];

    /// Reads a parameter value; one trailing newline (from sysfs) is fine.
    pub fn parse(val: &[u8]) -> Option<Self> {
        let val = val.strip_suffix(b"\n").unwrap_or(val);
        Self::VALUES
            .into_iter()
            .find(|r| r.name().as_bytes() == val)
    }

    /// The parameter value that names `self`.
    pub fn name(self) -> &'static str {
        match self {
            Reserve::All => "all",
            Reserve::Iwarp => "iwarp",
            Reserve::None => "none",
        }
    }

    /// A compact form for an atomic.
    pub fn to_u8(self) -> u8 {
        self as u8
    }

    /// The inverse of [`Reserve::to_u8`]; unknown values mean `All`.
    pub fn from_u8(v: u8) -> Self {
        Self::VALUES
            .get(usize::from(v))
            .copied()
            .unwrap_or(Reserve::All)
    }

    /// Does an id get a host port? `kthread`: a kernel thread binds it;
    /// `dev_bound`/`iwarp`: the id is bound to a device, an iWARP one;
    /// `iwarp_in_net`: for a wildcard id, an iWARP device has a port in its
    /// namespace, asked only if needed.
    ///
    /// A kernel thread acts for no user, so no cap can bound its ids: under
    /// `All` it gets no host port for an id bound to an IB or RoCE device,
    /// where the port never meets host TCP. Such ids are RDS's connections,
    /// which any local user's send starts (RDS refuses iWARP addresses).
    pub fn covers(
        self,
        kthread: bool,
        dev_bound: bool,
        iwarp: bool,
        iwarp_in_net: impl FnOnce() -> bool,
    ) -> bool {
        match self {
            Reserve::All if kthread && dev_bound => iwarp,
            Reserve::All => true,
            Reserve::Iwarp if dev_bound => iwarp,
            Reserve::Iwarp => iwarp_in_net(),
            Reserve::None => false,
        }
    }
}

/// How many host ports one unprivileged user may hold through RDMA ids.
///
/// Both bounds apply: a user's ports in all namespaces together stay below
/// the `RLIMIT_NOFILE` of the task asking for one more (what that task could
/// hold as TCP sockets), and its ports in one namespace below `share`
/// percent of that namespace's ephemeral range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserCap {
    /// Ports in all namespaces: the caller's `RLIMIT_NOFILE`.
    pub total: u64,
    /// Ports in the id's namespace.
    pub per_ns: u32,
}

impl UserCap {
    /// The cap for a caller with `RLIMIT_NOFILE` `nofile` in a namespace
    /// whose `ip_local_port_range` is `low..=high`, at `share` percent.
    /// `share == 0` means no cap at all.
    pub fn new(nofile: u64, low: u16, high: u16, share: u32) -> Option<Self> {
        if share == 0 {
            return None;
        }
        let range = u32::from(high.saturating_sub(low)) + 1;
        let per_ns = (range * share.min(100) / 100).max(1);
        Some(Self {
            total: nofile,
            per_ns,
        })
    }

    /// May a user that holds `total` ports, `in_ns` of them in the id's
    /// namespace, take one more there?
    pub fn allows(&self, total: u32, in_ns: u32) -> bool {
        u64::from(total) < self.total && in_ns < self.per_ns
    }
}

/// Parses the `user_share` parameter: a percentage, 0 to 100.
pub fn parse_share(val: &[u8]) -> Option<u32> {
    let val = val.strip_suffix(b"\n").unwrap_or(val);
    if val.is_empty() || val.len() > 3 || !val.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = val.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    (n <= 100).then_some(n)
}

/// Parses a `bool` parameter as `kstrtobool()` does: `y`, `Y`, `1`, `on`
/// are true, `n`, `N`, `0`, `off` false (only the first one or two bytes
/// count); `None`, the parameter's name alone, is true, as
/// `param_set_bool()` has it.
pub fn parse_bool(val: Option<&[u8]>) -> Option<bool> {
    let Some(val) = val else {
        return Some(true);
    };
    match val {
        [b'y' | b'Y' | b'1', ..] => Some(true),
        [b'n' | b'N' | b'0', ..] => Some(false),
        [b'o' | b'O', b'n' | b'N', ..] => Some(true),
        [b'o' | b'O', b'f' | b'F', ..] => Some(false),
        _ => None,
    }
}

/// Writes `n` in decimal and a newline into `buf`; returns the length, or
/// 0 if `buf` is too short.
pub fn write_uint(buf: &mut [u8], n: u32) -> usize {
    let mut digits = [0u8; 10];
    let mut len = 0;
    let mut rest = n;
    while let Some(d) = digits.get_mut(len) {
        *d = b'0' + (rest % 10) as u8;
        len += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let Some(out) = buf.get_mut(..=len) else {
        return 0;
    };
    for (o, d) in out.iter_mut().zip(digits[..len].iter().rev()) {
        *o = *d;
    }
    out[len] = b'\n';
    len + 1
}

/// A ratelimit of the module's own for its messages about refused callers,
/// who retry in a loop: `__ratelimit()`'s rule with the defaults of
/// `DEFINE_RATELIMIT_STATE()`, at most [`Ratelimit::BURST`] messages per
/// [`Ratelimit::INTERVAL_MS`], then the count of those held back.
/// (`printk_ratelimit()` shares one state with every caller in the kernel,
/// which `printk.h` asks not to use; 6.12's kernel crate has no ratelimited
/// print.) Lock-free: callers racing at the turn of an interval may let a
/// message or two more through, never fewer.
pub struct Ratelimit {
    /// When the interval began, in ms of a monotonic clock; `i64::MIN`
    /// before the first message.
    begin: AtomicI64,
    /// Messages let through in this interval.
    printed: AtomicU32,
    /// Messages held back since the last one let through.
    missed: AtomicU32,
}

impl Ratelimit {
    /// `DEFAULT_RATELIMIT_INTERVAL`: 5 s.
    pub const INTERVAL_MS: i64 = 5000;
    /// `DEFAULT_RATELIMIT_BURST`.
    pub const BURST: u32 = 10;

    /// A ratelimit that lets the first message through.
    pub const fn new() -> Self {
        Self {
            begin: AtomicI64::new(i64::MIN),
            printed: AtomicU32::new(0),
            missed: AtomicU32::new(0),
        }
    }

    /// Whether a message may be logged at `now_ms` (a monotonic clock):
    /// `Some(n)` if so, `n` the messages held back before it; `None` if not.
    pub fn allow(&self, now_ms: i64) -> Option<u32> {
        let begin = self.begin.load(Ordering::Relaxed);
        if now_ms.saturating_sub(begin) >= Self::INTERVAL_MS
            && self
                .begin
                .compare_exchange(begin, now_ms, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.printed.store(0, Ordering::Relaxed);
        }
        let under_burst = self
            .printed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < Self::BURST).then_some(n + 1)
            })
            .is_ok();
        if under_burst {
            Some(self.missed.swap(0, Ordering::Relaxed))
        } else {
            self.missed.fetch_add(1, Ordering::Relaxed);
            None
        }
    }
}

impl Default for Ratelimit {
    fn default() -> Self {
        Self::new()
    }
}
