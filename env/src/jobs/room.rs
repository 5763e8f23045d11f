//! How many containers of a request the cluster's machines hold now: the exact check behind
//! placements and masks, and what the model mask remembers between observations (a machine
//! that held a whole ask, the machines given something back since a refusal).

use super::machines::{Cluster, Models, Within};
use super::schema::GPU_MILLI;
use super::sharing::Sharer;

/// What a look for room found: the containers held, counted up to those asked for (below, a
/// bound), and a machine that alone held them all, if one was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    pub held: u32,
    pub witness: Option<u32>,
}

impl Cluster {
    /// How many containers have been given back: taking resources never makes room, so only
    /// the machines given something back since a refusal can have room it lacked.
    pub fn releases(&self) -> usize {
        self.release_log.len()
    }

    /// A bound on the extra containers of `request` the machines `within` can hold now beyond
    /// what they held after release `since`: the room of each machine given something back
    /// since (`None` when more than `most` were).
    pub fn room_released_since(
        &self,
        request: [u32; 3],
        within: Within,
        since: usize,
        most: usize,
    ) -> Option<u32> {
        let released = &self.release_log[since..];
        (released.len() <= most).then(|| {
            (released.iter())
                .map(|&m| self.room_on(m, request, within))
                .fold(0u32, u32::saturating_add)
        })
    }

    /// How many containers of `request` machine `m` can hold now.
    fn room(&self, m: usize, request: [u32; 3], sharer: Option<Sharer>) -> u32 {
        let f = &self.free[m];
        let by = |free: u32, need: u32| free.checked_div(need).unwrap_or(u32::MAX);
        let mut n = by(f.cpu, request[0]).min(by(f.mem, request[1]));
        let g = request[2];
        if g > 0 && n > 0 {
            let gpus = &f.gpu_free[..f.gpus];
            n = n.min(if g < GPU_MILLI {
                // a GPU wholly free holds no share: only those partly taken are checked
                (gpus.iter().enumerate())
                    .map(|(k, &free)| {
                        let n = free as u32 / g;
                        let partly = (free as u32) < GPU_MILLI;
                        if n > 0 && partly && !self.share_allowed(m, k, sharer) {
                            0
                        } else {
                            n
                        }
                    })
                    .sum()
            } else {
                let whole = gpus
                    .iter()
                    .filter(|&&free| free as u32 == GPU_MILLI)
                    .count() as u32;
                whole / (g / GPU_MILLI)
            });
        }
        n
    }

    /// Whether `count` containers of `request` fit now on the machines `within`, together.
    pub fn can_place(&self, request: [u32; 3], count: u32, within: impl Into<Within>) -> bool {
        self.room_up_to(request, count, within.into()).held >= count
    }

    /// How many containers of `request` the machines `within` hold now, counted up to `count`.
    pub fn room_up_to(&self, request: [u32; 3], count: u32, within: Within) -> Room {
        let Within { models, sharer } = within;
        let short = |free: [u64; 3]| (0..3).any(|r| (request[r] as u64) * (count as u64) > free[r]);
        // refused by free totals alone: at most one container short
        let refused = Room {
            held: count.saturating_sub(1),
            witness: None,
        };
        if short(self.free_total) {
            return refused;
        }
        let mut found = Room {
            held: 0,
            witness: None,
        };
        let mut take = |m: u32| {
            let room = self.room(m as usize, request, sharer);
            found.held = found.held.saturating_add(room);
            if room >= count {
                found.witness = Some(m);
            }
            found.held >= count
        };
        if models == Models::ANY {
            self.candidates(request).iter().rev().any(|&(_, m)| take(m));
        } else {
            let allowed = || (0..self.by_label.len()).filter(|&k| models.holds(k as u8));
            let free = allowed().fold([0u64; 3], |sum, k| {
                std::array::from_fn(|r| sum[r] + self.label_free[k][r])
            });
            if short(free) {
                return refused;
            }
            // only the allowed models' machines, emptiest first: this counts, it does not choose
            allowed().any(|k| self.by_label[k].iter().rev().any(|&(_, m)| take(m)));
        }
        found.held = found.held.min(count);
        found
    }

    /// How many containers of `request` machine `m` holds now, if it is `within`.
    pub fn room_on(&self, m: u32, request: [u32; 3], within: Within) -> u32 {
        if self.is_within(m as usize, within.models) {
            self.room(m as usize, request, within.sharer)
        } else {
            0
        }
    }
}
