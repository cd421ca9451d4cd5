// SPDX-License-Identifier: GPL-2.0

//! The ports each user holds through RDMA ids, and the cap on them.
//!
//! An id costs no file descriptor and `/dev/infiniband/rdma_cm` is open to
//! every user, so without a cap one process could take a namespace's whole
//! ephemeral range. Every held port is counted against the uid of the task
//! that took it, per namespace and in total; a caller without
//! `CAP_NET_ADMIN` over the namespace is refused with `EMFILE` at its cap
//! (see [`crate::policy::UserCap`]).

use kernel::prelude::*;
use kernel::rbtree::RBTree;

use crate::policy::UserCap;

/// A `struct net` address, used only as a key; 0 stands for "all".
pub(crate) type NetKey = usize;
const ALL: NetKey = 0;

/// Ports held, by (uid, namespace) and by (uid, [`ALL`]).
///
/// # Invariants
///
/// Every entry counts at least one port; the (uid, [`ALL`]) entry is the
/// sum of that uid's other entries.
pub(crate) struct Tally {
    held: RBTree<(u32, NetKey), u32>,
}

impl Tally {
    pub(crate) fn new() -> Self {
        Self {
            held: RBTree::new(),
        }
    }

    fn count(&self, uid: u32, net: NetKey) -> u32 {
        self.held.get(&(uid, net)).copied().unwrap_or(0)
    }

    fn add(&mut self, uid: u32, net: NetKey) -> Result {
        if let Some(n) = self.held.get_mut(&(uid, net)) {
            *n += 1;
            return Ok(());
        }
        self.held
            .try_create_and_insert((uid, net), 1, GFP_KERNEL)
            .map(|_| ())
    }

    fn sub(&mut self, uid: u32, net: NetKey) {
        match self.held.get_mut(&(uid, net)) {
            Some(n) if *n > 1 => *n -= 1,
            Some(_) => {
                self.held.remove(&(uid, net));
            }
            None => {}
        }
    }

    /// Counts one more port for `uid` in `net`, unless `cap` forbids it
    /// (`EMFILE`, what a task at its `RLIMIT_NOFILE` gets for a socket).
    pub(crate) fn charge(&mut self, uid: u32, net: NetKey, cap: Option<UserCap>) -> Result {
        if let Some(cap) = cap {
            if !cap.allows(self.count(uid, ALL), self.count(uid, net)) {
                return Err(EMFILE);
            }
        }
        self.add(uid, ALL)?;
        if let Err(e) = self.add(uid, net) {
            self.sub(uid, ALL);
            return Err(e);
        }
        Ok(())
    }

    /// Forgets one port of `uid` in `net`, counted by [`Tally::charge`].
    pub(crate) fn uncharge(&mut self, uid: u32, net: NetKey) {
        self.sub(uid, net);
        self.sub(uid, ALL);
    }
}
