// SPDX-License-Identifier: GPL-2.0

#![forbid(unsafe_code)]

//! The ports this module's reservations hold, per namespace, for the
//! ephemeral search of [`crate::ephemeral`].

use kernel::prelude::*;
use kernel::rbtree::{Entry, RBTree, RBTreeNodeReservation};

use crate::ephemeral::{self, WORDS};
use crate::sys::net::{NetKey, RESERVED_PORT_WORDS};
use crate::sys::random::random_u32;

// The search reads `ip_local_reserved_ports` word for word beside its own maps.
const _: () = assert!(WORDS == RESERVED_PORT_WORDS);

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
pub(crate) struct NetPorts {
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
    /// the namespace's maps on first use, and returns them, so that the
    /// port is marked in the same lookup. Undone by [`Ports::leave`] or
    /// [`Ports::release`].
    pub(crate) fn enter(&mut self, net: NetKey) -> Result<&mut NetPorts> {
        let n = match self.nets.entry(net) {
            Entry::Occupied(o) => {
                let n = o.into_mut();
                if n.users == 0 {
                    self.idle -= 1;
                }
                n
            }
            // Shared by every user of the namespace and kept while any of
            // them holds a port there (or idle, up to `MAX_IDLE`): charged
            // to no one user's memory cgroup (`GFP_KERNEL`), as a user
            // charged for the first bind would pay for all the others'.
            // Bounded by the namespaces with reservations, each charged to
            // its creator (`struct net` is `SLAB_ACCOUNT`), plus `MAX_IDLE`.
            Entry::Vacant(v) => {
                let n = NetPorts {
                    ours: KVec::from_elem(0, WORDS, GFP_KERNEL)?,
                    seen: KVec::from_elem(0, WORDS, GFP_KERNEL)?,
                    seen_any: false,
                    users: 0,
                };
                v.insert(n, RBTreeNodeReservation::new(GFP_KERNEL)?)
            }
        };
        n.users += 1;
        Ok(n)
    }

    /// The maps of `net`, where a bind counted by [`Ports::enter`] goes on.
    pub(crate) fn get_mut(&mut self, net: NetKey) -> Option<&mut NetPorts> {
        self.nets.get_mut(&net)
    }

    /// Undoes [`Ports::enter`] for a bind that holds no port.
    pub(crate) fn leave(&mut self, net: NetKey) {
        self.release_inner(net, None);
    }

    /// A reservation that held `port` in `net` lets it go.
    pub(crate) fn release(&mut self, net: NetKey, port: u16) {
        self.release_inner(net, Some(port));
    }

    /// One lookup: clears `port`, if any, and counts one user less.
    fn release_inner(&mut self, net: NetKey, port: Option<u16>) {
        let Some(n) = self.nets.get_mut(&net) else {
            return;
        };
        if let Some(port) = port {
            ephemeral::assign(&mut n.ours, port, false);
        }
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
}

/// Where a port-0 bind goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Try this port, marked as ours until [`NetPorts::missed`].
    Port(u16),
    /// The host's own `bind(0)` search decides: no port is left in neither
    /// map, but some were only found taken and may have been let go since.
    Host,
    /// Every port of the range is held by this module's reservations or
    /// in `ip_local_reserved_ports`, and no bind found one taken by others:
    /// the range is full (`EADDRINUSE` at once, as TCP's `bind(0)` gives).
    Full,
}

impl NetPorts {
    /// The next port of `low..=high` to try, from `start` on, that no
    /// reservation of this module holds, no bind found taken, and that is
    /// not in `reserved` (word `i` of `ip_local_reserved_ports`).
    pub(crate) fn pick(
        &mut self,
        (low, high): (u16, u16),
        start: u16,
        reserved: impl Fn(usize) -> u64,
    ) -> Pick {
        let (ours, seen) = (&self.ours, &self.seen);
        let busy = |i: usize| ours[i] | seen[i] | reserved(i);
        match ephemeral::find_free(low, high, start, busy) {
            Some(port) => {
                ephemeral::assign(&mut self.ours, port, true);
                Pick::Port(port)
            }
            None if self.seen_any => Pick::Host,
            None => Pick::Full,
        }
    }

    /// The bind on a picked port failed; `taken`: because someone holds it.
    pub(crate) fn missed(&mut self, port: u16, taken: bool) {
        ephemeral::assign(&mut self.ours, port, false);
        if taken {
            ephemeral::assign(&mut self.seen, port, true);
            self.seen_any = true;
        }
    }

    /// Forgets what binds found taken: the host's own search found a port
    /// where the maps had none, so the hints were stale.
    pub(crate) fn forget_seen(&mut self) {
        if self.seen_any {
            self.seen.fill(0);
            self.seen_any = false;
        }
    }

    /// A reservation counted by [`Ports::enter`] holds `port`.
    pub(crate) fn hold(&mut self, port: u16) {
        ephemeral::assign(&mut self.ours, port, true);
        ephemeral::assign(&mut self.seen, port, false);
    }
}

/// A random port of `low..=high` to start the search from: ports stay as
/// hard to predict as the host's own (RFC 6056).
pub(crate) fn random_start((low, high): (u16, u16)) -> u16 {
    let span = u32::from(high.saturating_sub(low)) + 1;
    let r = random_u32();
    low.saturating_add((r % span) as u16)
}
