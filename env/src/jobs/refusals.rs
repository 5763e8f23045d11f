//! The placements the cluster refused a job on machines holding none of its containers, remembered across observations. Taking
//! resources never makes room (nor does a probe undone), so a refusal stands until the machines
//! it was refused on get something back (`Cluster::releases_within`). This spares the model
//! mask (observe.rs) a walk over a fragmented model's machines at every observation.

use std::collections::HashMap;

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

/// Per (ask, model level), the releases on that level's machines when it was refused.
#[derive(Debug, Clone, Default)]
pub(super) struct Refusals(HashMap<(Ask, usize), u64>);

impl Refusals {
    /// Whether `ask` was refused at model level `level` with no release there since
    /// (`releases`: the count now).
    pub fn stands(&self, ask: &Ask, level: usize, releases: u64) -> bool {
        self.0.get(&(*ask, level)) == Some(&releases)
    }

    pub fn remember(&mut self, ask: Ask, level: usize, releases: u64) {
        if self.0.len() >= MOST_KEPT {
            self.0.clear();
        }
        self.0.insert((ask, level), releases);
    }
}
