// SPDX-License-Identifier: GPL-2.0

use super::*;

fn v4(ip: [u8; 4], port: u16) -> SockAddr {
    let mut raw = [0u8; 128];
    raw[..2].copy_from_slice(&AF_INET.to_ne_bytes());
    raw[2..4].copy_from_slice(&port.to_be_bytes());
    raw[4..8].copy_from_slice(&ip);
    SockAddr::parse(&raw).expect("an AF_INET address parses")
}

fn v6(ip: [u8; 16], port: u16) -> SockAddr {
    let mut raw = [0u8; 128];
    raw[..2].copy_from_slice(&AF_INET6.to_ne_bytes());
    raw[2..4].copy_from_slice(&port.to_be_bytes());
    raw[8..24].copy_from_slice(&ip);
    SockAddr::parse(&raw).expect("an AF_INET6 address parses")
}

const ANY4: [u8; 4] = [0, 0, 0, 0];
const A: [u8; 4] = [192, 0, 2, 1];
const B: [u8; 4] = [192, 0, 2, 2];
const S: [u8; 4] = [10, 0, 0, 1];

fn t(src: SockAddr, dst: SockAddr) -> Tuple {
    Tuple { src, dst }
}

#[test]
fn parses_both_families_and_refuses_others() {
    let a = v4(A, 5001);
    assert_eq!(
        (a.family, a.port, a.sockaddr_len()),
        (AF_INET, 5001, SOCKADDR_IN_LEN)
    );
    assert_eq!(&a.ip[..4], &A);
    let mut ip6 = [0u8; 16];
    ip6[15] = 1;
    let b = v6(ip6, 4420);
    assert_eq!(
        (b.family, b.port, b.sockaddr_len()),
        (AF_INET6, 4420, SOCKADDR_IN6_LEN)
    );
    assert!(!b.is_any());
    let mut raw = [0u8; 128];
    raw[0] = 27; // AF_IB
    assert_eq!(SockAddr::parse(&raw), None);
    assert_eq!(SockAddr::parse(&[2, 0, 0]), None);
}

#[test]
fn writes_the_port_in_network_order() {
    let mut raw = [0u8; 16];
    raw[..2].copy_from_slice(&AF_INET.to_ne_bytes());
    SockAddr::write_port(&mut raw, 0x1389);
    assert_eq!(&raw[2..4], &[0x13, 0x89]);
    assert_eq!(SockAddr::parse(&raw).map(|a| a.port), Some(5001));
}

#[test]
fn wildcards_and_address_families() {
    assert!(v4(ANY4, 0).is_any());
    assert!(v6([0; 16], 0).is_any());
    assert!(v4(A, 1).same_ip(&v4(A, 2)));
    assert!(!v4(A, 1).same_ip(&v4(B, 1)));
    // An IPv6 address never equals an IPv4 one, as cma_addr_cmp() says.
    let mut mapped = [0u8; 16];
    mapped[10..12].copy_from_slice(&[0xff, 0xff]);
    mapped[12..].copy_from_slice(&A);
    assert!(!v6(mapped, 1).same_ip(&v4(A, 1)));
}

#[test]
fn active_means_a_destination() {
    assert!(t(v4(ANY4, 0), v4(A, 7174)).is_active());
    assert!(!t(v4(ANY4, 0), v4(ANY4, 0)).is_active());
}

#[test]
fn four_tuple_rule_matches_cma_port_is_unique() {
    let to_a = t(v4(ANY4, 40000), v4(A, 7000));
    // Same destination and port: the connections would collide.
    assert!(!to_a.is_unique_against(&to_a));
    // Another destination address, or another destination port: unique.
    assert!(to_a.is_unique_against(&t(v4(ANY4, 40000), v4(B, 7000))));
    assert!(to_a.is_unique_against(&t(v4(ANY4, 40000), v4(A, 7001))));
    // A wildcard source matches any source ...
    assert!(!to_a.is_unique_against(&t(v4(S, 40000), v4(A, 7000))));
    // ... but two different specific sources are unique.
    let from_s = t(v4(S, 40000), v4(A, 7000));
    let other = [10, 0, 0, 2];
    assert!(from_s.is_unique_against(&t(v4(other, 40000), v4(A, 7000))));
    // A passive id (wildcard destination) conflicts with everything.
    assert!(!to_a.is_unique_against(&t(v4(ANY4, 40000), v4(ANY4, 0))));
}

#[test]
fn admit_refuses_only_what_the_table_is_needed_for() {
    // idr on: everything.
    for (bound, iwarp) in [(false, false), (true, false), (true, true)] {
        assert_eq!(admit(bound, iwarp, true), Ok(()));
    }
    // idr off: iWARP and unbound ids, never IB/RoCE ones.
    assert_eq!(admit(false, false, false), Ok(()));
    assert_eq!(admit(true, true, false), Ok(()));
    assert_eq!(admit(true, false, false), Err(Refusal::NeedsTable));
}

#[test]
fn reserve_parses_its_names_and_nothing_else() {
    for r in [Reserve::All, Reserve::Iwarp, Reserve::None] {
        assert_eq!(Reserve::parse(r.name().as_bytes()), Some(r));
        assert_eq!(Reserve::from_u8(r.to_u8()), r);
    }
    assert_eq!(Reserve::parse(b"iwarp\n"), Some(Reserve::Iwarp));
    for bad in [&b""[..], b"IWARP", b"iwarp\n\n", b" all", b"al", b"none "] {
        assert_eq!(Reserve::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn reserve_iwarp_covers_what_can_meet_host_tcp() {
    // (dev_bound, iwarp, iwarp_in_net) -> all, iwarp, none
    let cases = [
        ((true, true, false), [true, true, false]), // bound to siw
        ((true, false, true), [true, false, false]), // bound to rxe, siw around
        ((false, false, true), [true, true, false]), // wildcard, siw in netns
        ((false, false, false), [true, false, false]), // wildcard, no iWARP
    ];
    for ((bound, iwarp, in_net), want) in cases {
        let got = [Reserve::All, Reserve::Iwarp, Reserve::None]
            .map(|r| r.covers(false, bound, iwarp, || in_net));
        assert_eq!(got, want, "{bound} {iwarp} {in_net}");
    }
}

#[test]
fn a_kernel_thread_gets_no_host_port_on_ib_or_roce() {
    // (dev_bound, iwarp, iwarp_in_net) -> all, iwarp, none, for a bind
    // made by a kernel thread (RDS's connect worker, nvme-rdma's reconnect).
    let cases = [
        ((true, true, false), [true, true, false]), // bound to siw
        ((true, false, true), [false, false, false]), // bound to rxe (RDS)
        ((true, false, false), [false, false, false]), // bound to rxe alone
        ((false, false, true), [true, true, false]), // wildcard, siw in netns
        ((false, false, false), [true, false, false]), // wildcard, no iWARP
    ];
    for ((bound, iwarp, in_net), want) in cases {
        let got = [Reserve::All, Reserve::Iwarp, Reserve::None]
            .map(|r| r.covers(true, bound, iwarp, || in_net));
        assert_eq!(got, want, "{bound} {iwarp} {in_net}");
    }
}

#[test]
fn only_reserve_iwarp_on_a_wildcard_id_asks_for_the_devices() {
    // The answer takes the rdma_cm's device list lock: nobody else asks.
    for r in [Reserve::All, Reserve::Iwarp, Reserve::None] {
        for (kthread, bound) in [(false, false), (false, true), (true, false), (true, true)] {
            let asked = core::cell::Cell::new(false);
            r.covers(kthread, bound, false, || {
                asked.set(true);
                true
            });
            assert_eq!(
                asked.get(),
                r == Reserve::Iwarp && !bound,
                "{r:?} kthread={kthread} bound={bound}"
            );
        }
    }
}

#[test]
fn user_cap_is_the_stricter_of_nofile_and_the_share() {
    // The default range, 32768-60999: 28232 ports, 5 % of them 1411.
    let cap = UserCap::new(1024, 32768, 60999, 5).unwrap();
    assert_eq!(
        cap,
        UserCap {
            total: 1024,
            per_ns: 1411
        }
    );
    assert!(cap.allows(1023, 1023));
    assert!(
        !cap.allows(1024, 0),
        "RLIMIT_NOFILE reached over all namespaces"
    );
    let cap = UserCap::new(1 << 20, 32768, 60999, 5).unwrap();
    assert!(cap.allows(1410, 1410));
    assert!(!cap.allows(1411, 1411), "the namespace's share reached");
    assert!(
        cap.allows(5000, 10),
        "other namespaces do not count against this one"
    );
}

#[test]
fn user_cap_scales_with_the_range_and_never_reaches_zero() {
    assert_eq!(UserCap::new(1024, 40000, 40099, 5).unwrap().per_ns, 5);
    assert_eq!(UserCap::new(1024, 40000, 40000, 5).unwrap().per_ns, 1);
    assert_eq!(UserCap::new(1024, 1, 65535, 100).unwrap().per_ns, 65535);
    // An inverted range (high < low) counts as one port, not as 65k.
    assert_eq!(UserCap::new(1024, 50000, 40000, 100).unwrap().per_ns, 1);
    // Share 0: no cap at all.
    assert_eq!(UserCap::new(0, 32768, 60999, 0), None);
    // Above 100 % is read as 100 %.
    assert_eq!(UserCap::new(1024, 40000, 40099, 250).unwrap().per_ns, 100);
    // RLIMIT_NOFILE 0: not even one.
    assert!(!UserCap::new(0, 32768, 60999, 5).unwrap().allows(0, 0));
}

#[test]
fn share_parses_percentages_only() {
    assert_eq!(parse_share(b"5"), Some(5));
    assert_eq!(parse_share(b"0\n"), Some(0));
    assert_eq!(parse_share(b"100"), Some(100));
    for bad in [
        &b""[..],
        b"101",
        b"-1",
        b"5%",
        b" 5",
        b"1000",
        b"x",
        b"5\n\n",
    ] {
        assert_eq!(parse_share(bad), None, "{:?}", bad);
    }
}
