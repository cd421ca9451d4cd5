// SPDX-License-Identifier: GPL-2.0

use super::Ratelimit;

const BURST: u32 = Ratelimit::BURST;
const INTERVAL: i64 = Ratelimit::INTERVAL_MS;

/// How many of `n` messages at `now` the ratelimit lets through.
fn passed(r: &Ratelimit, now: i64, n: u32) -> u32 {
    (0..n).filter(|_| r.allow(now).is_some()).count() as u32
}

#[test]
fn a_burst_passes_then_the_rest_of_the_interval_is_held_back() {
    let r = Ratelimit::new();
    assert_eq!(passed(&r, 1_000, BURST), BURST);
    assert_eq!(r.allow(1_000), None);
    assert_eq!(r.allow(1_000 + INTERVAL - 1), None);
}

#[test]
fn the_next_interval_passes_a_burst_and_counts_what_was_held_back() {
    let r = Ratelimit::new();
    assert_eq!(passed(&r, 0, BURST + 3), BURST);
    assert_eq!(r.allow(INTERVAL), Some(3));
    assert_eq!(passed(&r, INTERVAL, BURST), BURST - 1);
    assert_eq!(r.allow(INTERVAL), None);
}

#[test]
fn the_first_message_passes_at_any_time() {
    for now in [i64::MIN, -1, 0, i64::MAX] {
        assert_eq!(Ratelimit::new().allow(now), Some(0), "at {now}");
    }
}

#[test]
fn a_clock_that_goes_back_holds_the_interval() {
    let r = Ratelimit::new();
    assert_eq!(passed(&r, 10_000, BURST), BURST);
    assert_eq!(r.allow(0), None);
}
