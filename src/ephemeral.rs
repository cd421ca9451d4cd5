// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! Choosing an ephemeral port without the host's linear scan.
//!
//! The host's `bind()` to port 0 (`inet_csk_find_open_port()`) walks the
//! range from a random offset in steps of two, odd offsets first, locking
//! each port's bind bucket: once the odd half is taken, every such bind
//! walks about half the range (14k ports with the default range). The
//! module instead keeps, per namespace, a map of the ports its own ids hold
//! (exact: set while a reservation holds the port) and of the ports an
//! explicit bind found taken by someone else (a hint, which may go stale),
//! and tries only ports in neither, each with an explicit bind: one
//! bind-bucket lookup, in which the host still decides.
//!
//! When no port is left in neither map but some were only found taken,
//! one of those may have been let go since: the host's own `bind(0)`
//! search decides, as it did for every port-0 bind before, and a port it
//! finds shows the hints stale, which are then forgotten.
//!
//! Expected cost. With the range filled by RDMA ids alone, a port in
//! neither map is free: the first try succeeds at any fill level, and
//! finding it is a scan of at most `range / 64` words of the map. Where
//! other sockets hold a share `r` of the ports not in the maps, a bind takes
//! `1 / (1 - r)` tries on average, and each failed try moves a port into
//! the map, so `r` does not grow as the range fills: with the range half
//! full of client sockets before the first id, `r` is about 1/2 throughout,
//! two tries per bind, against the host's half-range walk.
//!
//! This file is pure: it is also built and tested on the host.

/// Ports in the map: all of `u16`.
pub const PORTS: usize = 1 << 16;
/// `u64` words in one bitmap of all ports.
pub const WORDS: usize = PORTS / 64;

/// Bits of the ports with `parity` (0: even, 1: odd) in a word.
fn parity_mask(parity: u32) -> u64 {
    if parity == 0 {
        0x5555_5555_5555_5555
    } else {
        0xaaaa_aaaa_aaaa_aaaa
    }
}

/// The first port in `lo..=hi` whose bit in `mask` is clear in `busy`.
fn scan(lo: u32, hi: u32, mask: u64, busy: &impl Fn(usize) -> u64) -> Option<u16> {
    if lo > hi {
        return None;
    }
    let (first, last) = (lo / 64, hi / 64);
    for w in first..=last {
        let mut free = !busy(w as usize) & mask;
        if w == first {
            free &= u64::MAX << (lo % 64);
        }
        if w == last {
            free &= u64::MAX >> (63 - hi % 64);
        }
        if free != 0 {
            return u16::try_from(w * 64 + free.trailing_zeros()).ok();
        }
    }
    None
}

/// A port to try in `low..=high`: the first from `start` on, wrapping
/// around, whose bit is clear in `busy` (word `i` of a bitmap of all
/// ports). Ports at an odd offset from `low` come first, as in the host's
/// own search: `__inet_hash_connect()` prefers even offsets for `connect()`.
pub fn find_free(low: u16, high: u16, start: u16, busy: impl Fn(usize) -> u64) -> Option<u16> {
    if low > high {
        return None;
    }
    let (low, high) = (u32::from(low), u32::from(high));
    let start = u32::from(start).clamp(low, high);
    let odd = (low + 1) % 2;
    [odd, 1 - odd].into_iter().find_map(|parity| {
        let mask = parity_mask(parity);
        scan(start, high, mask, &busy)
            .or_else(|| (start > low).then(|| scan(low, start - 1, mask, &busy))?)
    })
}

/// Sets or clears `port` in `map`, a bitmap of all ports as `u64` words.
pub fn assign(map: &mut [u64], port: u16, on: bool) {
    let port = usize::from(port);
    if let Some(w) = map.get_mut(port / 64) {
        let bit = 1u64 << (port % 64);
        if on {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }
}
