// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! The ports each user holds through RDMA ids, and the cap on them.
//!
//! An id costs no file descriptor and `/dev/infiniband/rdma_cm` is open to
//! every user, so without a cap one process could take a namespace's whole
//! ephemeral range. Every held port is counted against the uid of the task
//! that took it, per namespace and in total; a caller without
//! `CAP_NET_ADMIN` over the namespace is refused with `EMFILE` at its cap
//! (see [`crate::policy::UserCap`]). Counted per uid, the cap is one
//! person's for each uid it maps: the person's own count across its uids
//! is the kernel's ucount (`crate::sys::ucount`), charged beside it.

use kernel::prelude::*;
use kernel::rbtree::{Entry, RBTree, RBTreeNodeReservation};

use crate::policy::UserCap;

use crate::sys::net::NetKey;

/// The key that stands for "all namespaces".
const ALL: NetKey = 0;

/// How many entries at zero stay allocated: a user whose ids come and go one
/// at a time should not allocate and free two tree nodes per bind.
const MAX_ZEROS: usize = 64;

/// Ports held, by (uid, namespace) and by (uid, [`ALL`]).
///
/// # Invariants
///
/// The (uid, [`ALL`]) entry is the sum of that uid's other entries; `zeros`
/// counts the entries at zero, which are dropped when there are too many.
pub(crate) struct Tally {
    held: RBTree<(u32, NetKey), u32>,
    zeros: usize,
}

impl Tally {
    pub(crate) fn new() -> Self {
        Self {
            held: RBTree::new(),
            zeros: 0,
        }
    }

    /// One more port for `key`; returns the new count.
    ///
    /// Called in the context of the task taking the port, whose uid `key`
    /// names: a new entry exists for that uid alone, so it is charged to the
    /// task's memory cgroup (`GFP_KERNEL_ACCOUNT`), and stays charged there
    /// while it is kept at zero for the uid's next port.
    fn add(&mut self, key: (u32, NetKey)) -> Result<u32> {
        match self.held.entry(key) {
            Entry::Occupied(o) => {
                let n = o.into_mut();
                if *n == 0 {
                    self.zeros -= 1;
                }
                *n += 1;
                Ok(*n)
            }
            Entry::Vacant(v) => {
                v.insert(1, RBTreeNodeReservation::new(GFP_KERNEL_ACCOUNT)?);
                Ok(1)
            }
        }
    }

    fn sub(&mut self, uid: u32, net: NetKey) {
        if let Some(n) = self.held.get_mut(&(uid, net)) {
            if *n > 0 {
                *n -= 1;
                if *n == 0 {
                    self.zeros += 1;
                }
            }
        }
        if self.zeros > MAX_ZEROS {
            self.drop_zeros();
        }
    }

    /// Frees the entries at zero.
    fn drop_zeros(&mut self) {
        let mut cursor = self.held.cursor_front();
        while let Some(c) = cursor {
            cursor = if *c.current().1 == 0 {
                c.remove_current().0
            } else {
                c.move_next()
            };
        }
        self.zeros = 0;
    }

    /// Counts one more port for `uid` in `net`, unless `cap` forbids it and
    /// the caller is not `exempt` (`EMFILE`, what a task at its
    /// `RLIMIT_NOFILE` gets for a socket). Counts first and checks the new
    /// counts, so that the common case looks each entry up once.
    pub(crate) fn charge(
        &mut self,
        uid: u32,
        net: NetKey,
        cap: Option<UserCap>,
        exempt: bool,
    ) -> Result {
        let in_ns = self.add((uid, net))?;
        let total = match self.add((uid, ALL)) {
            Ok(total) => total,
            Err(e) => {
                self.sub(uid, net);
                return Err(e);
            }
        };
        if let Some(cap) = cap {
            if !cap.allows(total.saturating_sub(1), in_ns.saturating_sub(1)) && !exempt {
                self.uncharge(uid, net);
                return Err(EMFILE);
            }
        }
        Ok(())
    }

    /// Forgets one port of `uid` in `net`, counted by [`Tally::charge`].
    pub(crate) fn uncharge(&mut self, uid: u32, net: NetKey) {
        self.sub(uid, net);
        self.sub(uid, ALL);
    }
}
