// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! The ports this module's reservations hold, per namespace, for the
//! ephemeral search of [`crate::ephemeral`].

use kernel::prelude::*;
use kernel::rbtree::RBTree;

use crate::ephemeral::{self, WORDS};
use crate::sys::net::NetKey;
use crate::sys::random::random_u32;

/// How many namespaces without reservations keep their maps: a namespace
/// whose ids come and go one at a time should not allocate 16 KiB per bind.
const MAX_IDLE: usize = 8;

/// One namespace's maps.
///
/// # Invariants
///
/// A port set in `ours` is held by one of the `users` reservations of this
/// namespace, or picked by one of its binds in flight: each sets its port
/// when it takes it and clears it when it lets go of it, whether or not
/// another reservation shares the port (a clear bit is only a missed
/// shortcut, a set one a refusal). So `users == 0` means `ours` is empty.
struct NetPorts {
    ours: KVec<u64>,
    /// Ports that an explicit bind found taken by others: a hint only.
    seen: KVec<u64>,
    seen_any: bool,
    /// Reservations and binds in flight counted here by [`Ports::enter`].
    users: u32,
}

/// Every namespace's maps, by `struct net` address.
pub(crate) struct Ports {
    nets: RBTree<NetKey, NetPorts>,
    /// Entries with no users.
    idle: usize,
}

impl Ports {
    pub(crate) fn new() -> Self {
        Self {
            nets: RBTree::new(),
            idle: 0,
        }
    }

    /// Counts one more reservation (or bind in flight) in `net`, allocating
    /// the namespace's maps on first use. Undone by [`Ports::leave`] or
    /// [`Ports::release`].
    pub(crate) fn enter(&mut self, net: NetKey) -> Result {
        if let Some(n) = self.nets.get_mut(&net) {
            if n.users == 0 {
                self.idle -= 1;
            }
            n.users += 1;
            return Ok(());
        }
        let n = NetPorts {
            ours: KVec::from_elem(0, WORDS, GFP_KERNEL)?,
            seen: KVec::from_elem(0, WORDS, GFP_KERNEL)?,
            seen_any: false,
            users: 1,
        };
        self.nets.try_create_and_insert(net, n, GFP_KERNEL)?;
        Ok(())
    }

    /// Undoes [`Ports::enter`] for a bind that holds no port.
    pub(crate) fn leave(&mut self, net: NetKey) {
        let Some(n) = self.nets.get_mut(&net) else {
            return;
        };
        if n.users == 0 {
            return;
        }
        n.users -= 1;
        if n.users == 0 {
            self.idle += 1;
            if self.idle > MAX_IDLE {
                self.drop_idle();
            }
        }
    }

    /// Frees the maps of every namespace without users.
    fn drop_idle(&mut self) {
        let mut cursor = self.nets.cursor_front();
        while let Some(c) = cursor {
            cursor = if c.current().1.users == 0 {
                c.remove_current().0
            } else {
                c.move_next()
            };
        }
        self.idle = 0;
    }

    /// A port of `low..=high` to try in `net`, from `start` on, that no
    /// reservation of this module holds, no bind found taken, and that is
    /// not in `reserved` (word `i` of `ip_local_reserved_ports`). The port
    /// is marked as ours until [`Ports::missed`].
    pub(crate) fn pick(
        &mut self,
        net: NetKey,
        (low, high): (u16, u16),
        start: u16,
        reserved: impl Fn(usize) -> u64,
    ) -> Option<u16> {
        let n = self.nets.get_mut(&net)?;
        let (ours, seen) = (&n.ours, &n.seen);
        let busy = |i: usize| ours[i] | seen[i] | reserved(i);
        let port = ephemeral::find_free(low, high, start, busy)?;
        ephemeral::assign(&mut n.ours, port, true);
        Some(port)
    }

    /// The bind on a picked port failed; `taken`: because someone holds it.
    pub(crate) fn missed(&mut self, net: NetKey, port: u16, taken: bool) {
        if let Some(n) = self.nets.get_mut(&net) {
            ephemeral::assign(&mut n.ours, port, false);
            if taken {
                ephemeral::assign(&mut n.seen, port, true);
                n.seen_any = true;
            }
        }
    }

    /// Whether binds in `net` found ports taken by others.
    pub(crate) fn any_seen(&self, net: NetKey) -> bool {
        self.nets.get(&net).is_some_and(|n| n.seen_any)
    }

    /// Forgets what binds found taken in `net`.
    pub(crate) fn forget_seen(&mut self, net: NetKey) {
        if let Some(n) = self.nets.get_mut(&net) {
            if n.seen_any {
                n.seen.fill(0);
                n.seen_any = false;
            }
        }
    }

    /// A reservation counted by [`Ports::enter`] holds `port` in `net`.
    pub(crate) fn hold(&mut self, net: NetKey, port: u16) {
        if let Some(n) = self.nets.get_mut(&net) {
            ephemeral::assign(&mut n.ours, port, true);
            ephemeral::assign(&mut n.seen, port, false);
        }
    }

    /// A reservation that held `port` in `net` lets it go.
    pub(crate) fn release(&mut self, net: NetKey, port: u16) {
        if let Some(n) = self.nets.get_mut(&net) {
            ephemeral::assign(&mut n.ours, port, false);
        }
        self.leave(net);
    }
}

/// A random port of `low..=high` to start the search from: ports stay as
/// hard to predict as the host's own (RFC 6056).
pub(crate) fn random_start((low, high): (u16, u16)) -> u16 {
    let span = u32::from(high.saturating_sub(low)) + 1;
    let r = random_u32();
    low.saturating_add((r % span) as u16)
}
