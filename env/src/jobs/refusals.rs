//! What the model mask (observe.rs) last found of each ask on each model's machines, none of
//! the job's containers being there, remembered across observations so that a fragmented
//! model's machines are not walked at every observation. A fit keeps the machine that alone
//! held the ask: while it still does, the ask fits. A refusal keeps a bound on the room found:
//! taking resources never makes room (nor does a probe undone), so it is checked again only on
//! the machines given something back since (`Cluster::room_released_since`), and stands while
//! the bound plus their room stays short of the request.

use rustc_hash::FxHashMap;

use super::machines::Models;

/// What a job's check on a model's machines depends on, none of its containers being there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Ask {
    pub container: [u32; 3],
    pub count: u32,
    /// The models the job may run on.
    pub models: Models,
    /// The job's template where its containers take a share of a GPU.
    pub share_kind: Option<usize>,
}

/// Most refusals kept: beyond, the memo starts afresh (each is found again by one check).
const MOST_KEPT: usize = 1 << 14;

/// What the last check of an ask on a model level found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// Refused: the cluster's release count then, and a bound on the containers of the ask
    /// that fitted then (below its count).
    Refused { releases: usize, room: u32 },
    /// It fitted, and machine `witness` alone held a container: while it still does, it fits.
    Fits { witness: u32 },
}

/// Most releases since a refusal that are checked one by one; beyond, the whole check again.
pub(super) const MOST_RECHECKED: usize = 64;

/// Per ask, what its last check on each model level found.
#[derive(Debug, Clone, Default)]
pub(super) struct Refusals(FxHashMap<Ask, Vec<Option<Found>>>);

impl Refusals {
    /// The findings of `ask` on each of `levels` model levels.
    pub fn of(&mut self, ask: Ask, levels: usize) -> &mut [Option<Found>] {
        if self.0.len() >= MOST_KEPT && !self.0.contains_key(&ask) {
            self.0.clear();
        }
        let found = self.0.entry(ask).or_default();
        found.resize(levels, None);
        found
    }
}
