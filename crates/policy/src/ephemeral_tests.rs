// SPDX-License-Identifier: GPL-2.0

//! `src/ephemeral.rs`: the port search alone, and the whole search loop of
//! `provider::bind_ephemeral()` against a model of the host's bind table.

extern crate std;

use std::collections::BTreeSet;
use std::vec;
use std::vec::Vec;

use crate::ephemeral::{assign, find_free, WORDS};

fn test(map: &[u64], port: u16) -> bool {
    map[usize::from(port) / 64] & (1 << (port % 64)) != 0
}

fn map(ports: &[u16]) -> Vec<u64> {
    let mut m = vec![0u64; WORDS];
    for &p in ports {
        assign(&mut m, p, true);
    }
    m
}

fn free_in(m: &[u64], low: u16, high: u16, start: u16) -> Option<u16> {
    find_free(low, high, start, |i| m[i])
}

#[test]
fn odd_offsets_from_low_come_first() {
    let m = map(&[]);
    // low even: odd ports first, from start on.
    assert_eq!(free_in(&m, 100, 200, 150), Some(151));
    assert_eq!(free_in(&m, 100, 200, 151), Some(151));
    // low odd: even ports are at odd offsets.
    assert_eq!(free_in(&m, 101, 200, 150), Some(150));
    // The odd offsets all taken: an even one, still from start on.
    let odd: Vec<u16> = (100..=200).filter(|p| p % 2 == 1).collect();
    let m = map(&odd);
    assert_eq!(free_in(&m, 100, 200, 151), Some(152));
}

#[test]
fn wraps_around_to_the_low_end() {
    let taken: Vec<u16> = (150..=200).collect();
    let m = map(&taken);
    assert_eq!(free_in(&m, 100, 200, 170), Some(101));
    let taken: Vec<u16> = (101..=200).collect();
    let m = map(&taken);
    assert_eq!(free_in(&m, 100, 200, 170), Some(100));
}

#[test]
fn never_outside_the_range_or_on_a_busy_port() {
    let m = map(&[]);
    for (low, high) in [
        (0u16, 0u16),
        (0, 65535),
        (65535, 65535),
        (1, 2),
        (63, 64),
        (32768, 60999),
    ] {
        for start in [0, low, high, low.saturating_add(1), 65535] {
            let p = free_in(&m, low, high, start).expect("an empty map has a port");
            assert!((low..=high).contains(&p), "{p} in {low}-{high}");
        }
    }
    assert_eq!(free_in(&m, 10, 9, 10), None, "an empty range");
    let all: Vec<u16> = (1000..=1063).collect();
    let m = map(&all);
    assert_eq!(free_in(&m, 1000, 1063, 1030), None, "all taken");
    assert_eq!(free_in(&m, 999, 1063, 1030), Some(999));
    assert_eq!(free_in(&m, 1000, 1064, 1030), Some(1064));
}

#[test]
fn agrees_with_a_linear_search_of_the_same_order() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..2000 {
        let low = (rng.next() % 65536) as u16;
        let high = low.saturating_add((rng.next() % 300) as u16);
        let start = low.saturating_add((rng.next() % 310) as u16);
        let busy: Vec<u16> = (low..=high)
            .filter(|_| !rng.next().is_multiple_of(8))
            .collect();
        let m = map(&busy);
        let s = start.clamp(low, high);
        let order = (s..=high).chain(low..s);
        let pref = order.clone().find(|&p| (p - low) % 2 == 1 && !test(&m, p));
        let want = pref.or_else(|| {
            order
                .clone()
                .find(|&p| (p - low).is_multiple_of(2) && !test(&m, p))
        });
        assert_eq!(
            free_in(&m, low, high, start),
            want,
            "{low}-{high} from {start}"
        );
    }
}

/// A model host: ports held by anyone, and how many explicit binds it saw.
struct Host {
    held: BTreeSet<u16>,
    binds: usize,
}

impl Host {
    fn bind(&mut self, port: u16) -> bool {
        self.binds += 1;
        self.held.insert(port)
    }
}

/// `bind_ephemeral()`'s loop over one namespace's maps.
fn take(
    host: &mut Host,
    ours: &mut [u64],
    seen: &mut [u64],
    range: (u16, u16),
    start: u16,
    reserved: &[u64],
) -> Option<u16> {
    loop {
        let picked = find_free(range.0, range.1, start, |i| ours[i] | seen[i] | reserved[i]);
        let Some(port) = picked else {
            if seen.iter().all(|&w| w == 0) {
                return None;
            }
            // The host's own bind(0): a port nobody holds, not reserved.
            let port =
                (range.0..=range.1).find(|&p| !host.held.contains(&p) && !test(reserved, p))?;
            host.bind(port);
            seen.fill(0);
            assign(ours, port, true);
            return Some(port);
        };
        assign(ours, port, true);
        if host.bind(port) {
            return Some(port);
        }
        assign(ours, port, false);
        assign(seen, port, true);
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Fills `range` with ids after `others` ports were taken by other sockets,
/// checking every port given out; returns the explicit binds per id.
fn fill(range: (u16, u16), others: &[u16], reserved: &[u16]) -> Vec<usize> {
    let mut host = Host {
        held: others.iter().copied().collect(),
        binds: 0,
    };
    let (mut ours, mut seen, res) = (map(&[]), map(&[]), map(reserved));
    let mut rng = Rng(42);
    let free = (range.0..=range.1)
        .filter(|p| !host.held.contains(p) && !reserved.contains(p))
        .count();
    let mut per_id = Vec::new();
    loop {
        let span = u64::from(range.1 - range.0) + 1;
        let start = range.0 + (rng.next() % span) as u16;
        let before = host.binds;
        match take(&mut host, &mut ours, &mut seen, range, start, &res) {
            Some(p) => {
                assert!((range.0..=range.1).contains(&p));
                assert!(!reserved.contains(&p), "reserved port {p} given out");
                assert!(!others.contains(&p), "port {p} of another socket given out");
                per_id.push(host.binds - before);
            }
            None => break,
        }
    }
    assert_eq!(
        per_id.len(),
        free,
        "every free port given out, then refused"
    );
    per_id
}

#[test]
fn a_range_filled_by_ids_alone_takes_one_bind_each() {
    let per_id = fill((32768, 60999), &[], &[40000, 40001, 50000]);
    assert!(
        per_id.iter().all(|&n| n == 1),
        "max {:?}",
        per_id.iter().max()
    );
}

#[test]
fn a_range_half_full_of_client_sockets_takes_about_two_binds_each() {
    // The host's bind(0) gives clients the odd offsets first: half the
    // range is the odd half, all taken before the first id.
    let (low, high) = (32768u16, 60999u16);
    let others: Vec<u16> = (low..=high).filter(|p| (p - low) % 2 == 1).collect();
    let per_id = fill((low, high), &others, &[]);
    let total: usize = per_id.iter().sum();
    // Each client port costs one failed bind, at most, over the whole fill.
    assert!(total <= per_id.len() + others.len(), "{total} binds");
    // And the last ids cost no more than the first ones.
    let tail = &per_id[per_id.len() * 98 / 100..];
    let mean = |s: &[usize]| s.iter().sum::<usize>() as f64 / s.len() as f64;
    let head = &per_id[..per_id.len() / 100];
    assert!(
        mean(tail) <= 4.0 * mean(head),
        "head {} tail {}",
        mean(head),
        mean(tail)
    );
}

#[test]
fn clients_spread_over_the_range_cost_a_bounded_share() {
    let (low, high) = (32768u16, 60999u16);
    let mut rng = Rng(7);
    let others: Vec<u16> = (low..=high)
        .filter(|_| rng.next().is_multiple_of(2))
        .collect();
    let per_id = fill((low, high), &others, &[]);
    let total: usize = per_id.iter().sum();
    assert!(total <= per_id.len() + others.len(), "{total} binds");
}

#[test]
fn a_port_freed_by_another_socket_is_found_again() {
    // The map remembers 1001 as taken; the other socket lets it go.
    let mut host = Host {
        held: [1001].into_iter().collect(),
        binds: 0,
    };
    let (mut ours, mut seen, res) = (map(&[]), map(&[]), map(&[]));
    assert_eq!(
        take(&mut host, &mut ours, &mut seen, (1000, 1001), 1001, &res),
        Some(1000)
    );
    assert!(test(&seen, 1001));
    host.held.remove(&1001);
    assert_eq!(
        take(&mut host, &mut ours, &mut seen, (1000, 1001), 1001, &res),
        Some(1001)
    );
    assert_eq!(
        take(&mut host, &mut ours, &mut seen, (1000, 1001), 1001, &res),
        None
    );
}
