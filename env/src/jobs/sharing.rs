//! GPU sharing at measured pair throughputs (docs/heterogeneity.md): which jobs hold a share
//! of each GPU, and which job types may share one. A container smaller than a GPU takes a
//! share of one GPU; whole-GPU containers never share, so Gavel's pairs at 2 or more GPUs
//! (all 0.0 in its file) never arise.

use super::schema::MAX_GPUS;

/// A job placing or holding GPU shares: its index and its kind (its template, whose job type
/// the matrix measures).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sharer {
    pub job: u32,
    pub kind: u16,
}

/// Which kinds may share a GPU of each model, from the matrix's pair figures at 1 GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct SharingRules {
    /// Per machine, its model's index; `None` without GPUs.
    machine_model: Vec<Option<usize>>,
    kinds: usize,
    /// `[model][kind][other kind]`: whether they fit on one GPU together.
    fits: Vec<bool>,
}

impl SharingRules {
    /// `fits(model, kind, other)` says whether the two fit on one GPU of `model`.
    pub fn new(
        machine_model: Vec<Option<usize>>,
        models: usize,
        kinds: usize,
        fits: impl Fn(usize, usize, usize) -> bool,
    ) -> Self {
        let mut table = vec![false; models * kinds * kinds];
        for m in 0..models {
            for a in 0..kinds {
                for b in 0..kinds {
                    table[(m * kinds + a) * kinds + b] = fits(m, a, b);
                }
            }
        }
        SharingRules {
            machine_model,
            kinds,
            fits: table,
        }
    }

    fn fit(&self, machine: usize, a: u16, b: u16) -> bool {
        let Some(m) = self.machine_model[machine] else {
            return true;
        };
        let (a, b) = (a as usize, b as usize);
        self.fits[(m * self.kinds + a) * self.kinds + b]
    }
}

/// The jobs holding a share of each GPU, per machine and GPU (`machine * MAX_GPUS + gpu`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Occupancy {
    on: Vec<Vec<Sharer>>,
}

impl Occupancy {
    pub fn new(machines: usize) -> Self {
        Occupancy {
            on: vec![Vec::new(); machines * MAX_GPUS],
        }
    }

    fn at(machine: u32, gpu: usize) -> usize {
        machine as usize * MAX_GPUS + gpu
    }

    /// Whether `sharer` may take a share of GPU `gpu` of `machine`: every other job there fits
    /// beside it.
    pub fn allows(&self, rules: &SharingRules, machine: u32, gpu: usize, sharer: Sharer) -> bool {
        self.on[Self::at(machine, gpu)]
            .iter()
            .filter(|h| h.job != sharer.job)
            .all(|h| {
                rules.fit(machine as usize, sharer.kind, h.kind)
                    && rules.fit(machine as usize, h.kind, sharer.kind)
            })
    }

    pub fn add(&mut self, machine: u32, gpu: usize, sharer: Sharer) {
        self.on[Self::at(machine, gpu)].push(sharer);
    }

    /// Takes one of `sharer`'s shares off the GPU.
    pub fn remove(&mut self, machine: u32, gpu: usize, sharer: Sharer) {
        let held = &mut self.on[Self::at(machine, gpu)];
        let at = held
            .iter()
            .position(|h| *h == sharer)
            .expect("a share was recorded");
        held.swap_remove(at);
    }

    /// The other jobs holding a share of the GPU (one entry per share they hold).
    pub fn others(&self, machine: u32, gpu: usize, job: u32) -> impl Iterator<Item = Sharer> + '_ {
        self.on[Self::at(machine, gpu)]
            .iter()
            .filter(move |h| h.job != job)
            .copied()
    }
}
