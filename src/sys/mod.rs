// SPDX-License-Identifier: GPL-2.0

//! The abstraction layer: one small safe type per C object the module
//! uses, in the manner of `rust/kernel/`. Every `unsafe` block of the
//! module is in this directory, next to the C object it wraps; the files
//! above it are safe Rust (`#![forbid(unsafe_code)]`; `param.rs` has
//! `deny`, so that `module_param!` may place its statics in sections and
//! `kunit_param_setter!` export its setters). Nothing here imports the
//! driver: what a type needs from it comes in as an argument or a trait.
//!
//! - `port_provider`: the rdma_cm's port provider hook, as a trait;
//! - `socket`: a kernel TCP socket that holds a port;
//! - `net`: a network namespace (its port range and sysctls);
//! - `task`: the current task's fsuid and `RLIMIT_NOFILE`;
//! - `ucount`: a held port counted against its user across user namespaces;
//! - `random`, `errno`: what the kernel crate of 6.12 lacks;
//! - `param`: module parameters, a stopgap until `module!` has them;
//! - `kunit`: what the KUnit suite calls (test builds only).

pub(crate) mod errno;
#[cfg(CONFIG_RDMA_TCP_PORT_KUNIT_TEST)]
pub(crate) mod kunit;
pub(crate) mod net;
pub(crate) mod param;
pub(crate) mod port_provider;
pub(crate) mod random;
pub(crate) mod socket;
pub(crate) mod task;
pub(crate) mod ucount;
