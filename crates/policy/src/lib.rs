// SPDX-License-Identifier: GPL-2.0

//! The kernel module's `src/policy.rs`, compiled for the host so that
//! `cargo test` can check it. The module builds the very same file.

#![no_std]

#[path = "../../../src/policy.rs"]
mod policy;

pub use policy::*;

#[cfg(test)]
mod tests;
