// SPDX-License-Identifier: GPL-2.0

//! `policy::first_shareable()`, the active side's search for a port to
//! join, against a plain oracle over random tables; and the parameter
//! parsers of `src/param.rs`.

extern crate std;

use std::collections::BTreeMap;
use std::vec::Vec;

use crate::*;

/// A small deterministic generator (xorshift64*), so a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn addr(rng: &mut Rng, family: u16, port: u16) -> SockAddr {
    // A few addresses, the wildcard among them, so that ties happen.
    let mut ip = [0u8; 16];
    let pick = rng.below(4) as u8;
    if pick != 0 {
        ip[0] = 10;
        ip[3] = pick;
    }
    SockAddr { family, ip, port }
}

fn tuple(rng: &mut Rng, port: u16) -> Tuple {
    let family = if rng.below(8) == 0 { AF_INET6 } else { AF_INET };
    let dst_port = [0, 4791, 4792][rng.below(3) as usize];
    Tuple {
        src: addr(rng, family, port),
        dst: addr(rng, family, dst_port),
    }
}

/// The oracle: the lowest port all of whose ids may share it with `t`.
fn oracle(by_port: &BTreeMap<u16, Vec<Tuple>>, t: &Tuple) -> Option<u16> {
    by_port
        .iter()
        .find(|(_, ids)| {
            ids.iter()
                .all(|cur| cur.src.family == t.src.family && t.is_unique_against(cur))
        })
        .map(|(&port, _)| port)
}

#[test]
fn first_shareable_matches_the_oracle() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..2000 {
        let mut by_port: BTreeMap<u16, Vec<Tuple>> = BTreeMap::new();
        for _ in 0..rng.below(40) {
            let port = 32768 + rng.below(12) as u16;
            let t = tuple(&mut rng, port);
            by_port.entry(port).or_default().push(t);
        }
        let t = tuple(&mut rng, 0);
        // Sorted by port, as the tree keeps them; ids of a port adjacent.
        let entries: Vec<(u16, Tuple)> = by_port
            .iter()
            .flat_map(|(&p, ids)| ids.iter().map(move |&cur| (p, cur)))
            .collect();
        assert_eq!(
            first_shareable(entries.iter().copied(), &t),
            oracle(&by_port, &t),
            "round {round}: {t:?} against {by_port:?}"
        );
    }
}

#[test]
fn first_shareable_skips_a_port_with_one_equal_tuple() {
    let a = SockAddr {
        family: AF_INET,
        ip: [10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        port: 0,
    };
    let dst = SockAddr { port: 4791, ..a };
    let other_dst = SockAddr { port: 4792, ..a };
    let t = Tuple { src: a, dst };
    let same = Tuple { src: a, dst };
    let differs = Tuple {
        src: a,
        dst: other_dst,
    };
    // Port 1 has one id like `t` among others: skipped; port 2 is fine.
    let entries = [(1, differs), (1, same), (1, differs), (2, differs)];
    assert_eq!(first_shareable(entries, &t), Some(2));
    assert_eq!(first_shareable([(1, same)], &t), None);
    assert_eq!(first_shareable([], &t), None);
    // Another family never shares.
    let v6 = Tuple {
        src: SockAddr {
            family: AF_INET6,
            ..a
        },
        dst: SockAddr {
            family: AF_INET6,
            ..other_dst
        },
    };
    assert_eq!(first_shareable([(3, v6)], &t), None);
}

#[test]
fn bool_parameters_parse_as_kstrtobool() {
    for yes in [&b"y"[..], b"Y", b"1", b"yes", b"on", b"ON", b"1\n"] {
        assert_eq!(parse_bool(Some(yes)), Some(true), "{yes:?}");
    }
    for no in [&b"n"[..], b"N", b"0", b"no", b"off", b"oFf", b"0\n"] {
        assert_eq!(parse_bool(Some(no)), Some(false), "{no:?}");
    }
    for bad in [&b""[..], b"o", b"true", b"2", b" y"] {
        assert_eq!(parse_bool(Some(bad)), None, "{bad:?}");
    }
    assert_eq!(parse_bool(None), Some(true));
}

#[test]
fn uints_print_with_a_newline_or_not_at_all() {
    let mut buf = [0u8; 16];
    for (n, s) in [
        (0u32, &b"0\n"[..]),
        (5, b"5\n"),
        (100, b"100\n"),
        (u32::MAX, b"4294967295\n"),
    ] {
        let len = write_uint(&mut buf, n);
        assert_eq!(&buf[..len], s);
    }
    assert_eq!(write_uint(&mut buf[..3], 100), 0);
    assert_eq!(write_uint(&mut buf[..4], 100), 4);
}

#[test]
fn unknown_reserve_values_mean_all() {
    for v in 3..=u8::MAX {
        assert_eq!(Reserve::from_u8(v), Reserve::All);
    }
}
