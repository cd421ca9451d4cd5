// SPDX-License-Identifier: GPL-2.0

//! The kernel module's pure files, `src/policy.rs` and `src/ephemeral.rs`,
//! compiled for the host so that `cargo test` can check them. The module
//! builds the very same files.

#![no_std]

#[path = "../../../src/policy.rs"]
mod policy;

#[path = "../../../src/ephemeral.rs"]
pub mod ephemeral;

pub use policy::*;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod ephemeral_tests;

#[cfg(test)]
mod shareable_tests;

#[cfg(test)]
mod ratelimit_tests;
