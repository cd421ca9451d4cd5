// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! Active-side ports shared under the rdma_cm's 4-tuple rule.
//!
//! Upstream lets ids that `rdma_resolve_addr()` bound share an ephemeral
//! port when their 4-tuples differ, so the number of connections is not
//! capped by `ip_local_port_range`. A socket bound to port 0 takes a port
//! exclusively, so once the range is full the module joins a port that its
//! own active ids hold, with `SK_FORCE_REUSE`, if no id on it has the same
//! 4-tuple. This table records those ids.

use kernel::prelude::*;
use kernel::rbtree::RBTree;

use crate::policy::{self, Tuple};
use crate::sys::net::NetKey;
use crate::sys::socket::SockKey;

/// The ephemeral ports held for active-side ids, grouped by port.
pub(crate) struct ActivePorts {
    /// Sorted by namespace, then port: the ids sharing a port are adjacent.
    by_port: RBTree<(NetKey, u16, SockKey), Tuple>,
    /// Where each socket sits in `by_port`.
    by_sock: RBTree<SockKey, (NetKey, u16)>,
}

impl ActivePorts {
    pub(crate) fn new() -> Self {
        Self {
            by_port: RBTree::new(),
            by_sock: RBTree::new(),
        }
    }

    /// Records that `sock` holds `tuple.src.port` in `net` for `tuple`.
    ///
    /// Called in the context of the task whose id it is: both entries exist
    /// for that id alone, so they are charged to its memory cgroup
    /// (`GFP_KERNEL_ACCOUNT`), as the id's socket is.
    pub(crate) fn insert(&mut self, net: NetKey, sock: SockKey, tuple: Tuple) -> Result {
        let port = tuple.src.port;
        self.by_sock
            .try_create_and_insert(sock, (net, port), GFP_KERNEL_ACCOUNT)?;
        if let Err(e) =
            self.by_port
                .try_create_and_insert((net, port, sock), tuple, GFP_KERNEL_ACCOUNT)
        {
            self.by_sock.remove(&sock);
            return Err(e);
        }
        Ok(())
    }

    /// Forgets `sock`, if it was recorded.
    pub(crate) fn remove(&mut self, sock: SockKey) {
        if let Some((net, port)) = self.by_sock.remove(&sock) {
            self.by_port.remove(&(net, port, sock));
        }
    }

    /// Whether no socket is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_sock.iter().next().is_none()
    }

    /// A port in `net` whose ids all differ from `tuple` (same family
    /// only): [`policy::first_shareable`] over `net`'s entries, which the
    /// tree's order makes one run from `(net, 0, 0)` on.
    pub(crate) fn find_shareable(&mut self, net: NetKey, tuple: &Tuple) -> Option<u16> {
        let mut cursor = self.by_port.cursor_lower_bound(&(net, 0, 0));
        let entries = core::iter::from_fn(move || {
            let c = cursor.take()?;
            let (&(n, port, _), cur) = c.current();
            let entry = (n, port, *cur);
            cursor = c.move_next();
            Some(entry)
        });
        let in_net = entries
            .take_while(|&(n, _, _)| n == net)
            .map(|(_, port, cur)| (port, cur));
        policy::first_shareable(in_net, tuple)
    }
}
