//! Machines with free CPU, memory and per-GPU shares; placing containers on them best-fit or
//! worst-fit, all or nothing, on any machine or only on those of some GPU models, with GPU
//! shares beside others only where their job types fit together (`sharing.rs`); and the
//! GPU-sharing-aware fragmentation of what stays free (`fragmentation.rs`). How many
//! containers of a request fit now is counted in `room.rs`.
//!
//! Machines are indexed by how much they have free, so best-fit and worst-fit look at the
//! fullest or emptiest machines first instead of scanning the whole cluster.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::fragmentation::{WeightedShapes, popular_shapes, stranded};
use super::schema::{GPU_MILLI, MAX_GPUS, MachineSpec};
use super::sharing::{Occupancy, Sharer, SharingRules};

/// Which machine a container goes to among those it fits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The machine left with the least free capacity (packs, keeps whole machines free).
    BestFit,
    /// The machine left with the most free capacity (spreads).
    WorstFit,
}

impl Placement {
    pub const ALL: [Placement; 2] = [Placement::BestFit, Placement::WorstFit];
}

/// A set of the cluster's GPU models (the machines' `gpu_model` labels): the machines a job
/// constrained to some models may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Models(u64);

impl Models {
    /// Every machine, whatever its model.
    pub const ANY: Models = Models(u64::MAX);
    /// No machine.
    pub const NONE: Models = Models(0);

    /// The machines in both sets.
    pub fn and(self, other: Models) -> Models {
        Models(self.0 & other.0)
    }

    pub(super) fn holds(self, label: u8) -> bool {
        self.0 & (1 << label) != 0
    }
}

/// Where a request may go: the machines of some models, and, where GPU sharing follows the
/// matrix's pairs, the job whose shares must fit beside the jobs already on a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Within {
    pub models: Models,
    pub sharer: Option<Sharer>,
}

impl From<Models> for Within {
    fn from(models: Models) -> Self {
        Within {
            models,
            sharer: None,
        }
    }
}

/// Most distinct `gpu_model` labels a cluster may have when a job is constrained to some.
pub const MAX_MODEL_LABELS: usize = 64;

/// One placed container: its machine and what it took, per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Container {
    pub machine: u32,
    pub cpu: u32,
    pub mem: u32,
    pub gpu_take: [u16; MAX_GPUS],
    /// The job holding the share, where the container holds less than a GPU and sharing
    /// follows the matrix's pairs.
    pub sharer: Option<Sharer>,
}

impl Container {
    pub fn gpu_milli(&self) -> u32 {
        self.gpu_take.iter().map(|&g| g as u32).sum()
    }
}

#[derive(Debug, Clone)]
pub(super) struct Machine {
    pub(super) cpu: u32,
    pub(super) mem: u32,
    pub(super) gpus: usize,
    pub(super) gpu_free: [u16; MAX_GPUS],
}

/// The cluster's free resources, with running totals kept for O(1) queries.
#[derive(Debug, Clone)]
pub struct Cluster {
    capacity: Vec<Machine>,
    pub(super) free: Vec<Machine>,
    /// Free `[cpu, mem, gpu]` over all machines.
    pub(super) free_total: [u64; 3],
    capacity_total: [u64; 3],
    /// The workload's common request shapes, what fragmentation is measured against.
    gpu_shapes: WeightedShapes,
    cpu_shapes: WeightedShapes,
    /// Per machine and over all, the expected free `[gpu, cpu]` a job could not use
    /// (thousandths of milli-units).
    stranded: Vec<[u64; 2]>,
    stranded_total: [u64; 2],
    largest: [u32; 3],
    /// Per machine, its free resources as shares of the cluster's, summed (as `f64` bits,
    /// which order like the values for non-negative numbers).
    fullness_key: Vec<u64>,
    /// `(key, machine)` of every machine, and of the machines with GPUs.
    by_free: BTreeSet<(u64, u32)>,
    gpu_by_free: BTreeSet<(u64, u32)>,
    /// Distinct `gpu_model` labels in the order machines first show them, and each
    /// machine's index among them.
    labels: Vec<String>,
    machine_label: Vec<u8>,
    /// `(key, machine)` of the machines of each label, so a check within some models reads
    /// only their machines.
    pub(super) by_label: Vec<BTreeSet<(u64, u32)>>,
    /// Per label, its machines' free `[cpu, mem, gpu]` and total GPU milli-units.
    pub(super) label_free: Vec<[u64; 3]>,
    label_gpus: Vec<u64>,
    /// The machine of every container given back, in order (`refusals.rs`).
    pub(super) release_log: Vec<u32>,
    /// With GPU sharing at the matrix's pairs: which kinds may share, and who holds shares.
    sharing: Option<Arc<SharingRules>>,
    occupancy: Occupancy,
}

impl Cluster {
    /// Machines expanded by count; `shapes` are the workload's container requests.
    pub fn new(specs: &[MachineSpec], shapes: &[[u32; 3]]) -> Self {
        let capacity: Vec<Machine> = specs
            .iter()
            .flat_map(|s| {
                let gpus = s.gpus as usize;
                let mut gpu_free = [0u16; MAX_GPUS];
                gpu_free[..gpus].fill(GPU_MILLI as u16);
                std::iter::repeat_n(
                    Machine {
                        cpu: s.cpu_milli(),
                        mem: s.mem_mib(),
                        gpus,
                        gpu_free,
                    },
                    s.count,
                )
            })
            .collect();
        let mut capacity_total = [0u64; 3];
        for m in &capacity {
            capacity_total[0] += m.cpu as u64;
            capacity_total[1] += m.mem as u64;
            capacity_total[2] += (m.gpus as u32 * GPU_MILLI) as u64;
        }
        let mut labels: Vec<String> = Vec::new();
        let mut machine_label = Vec::with_capacity(capacity.len());
        for spec in specs {
            let label = match labels.iter().position(|l| *l == spec.gpu_model) {
                Some(k) => k,
                None => {
                    labels.push(spec.gpu_model.clone());
                    labels.len() - 1
                }
            };
            // beyond the set's width a label is only refused where a job is constrained
            let label = label.min(MAX_MODEL_LABELS - 1) as u8;
            machine_label.extend(std::iter::repeat_n(label, spec.count));
        }
        let mut largest = [1u32; 3];
        for m in &capacity {
            let c = [m.cpu, m.mem, m.gpus as u32 * GPU_MILLI];
            (0..3).for_each(|r| largest[r] = largest[r].max(c[r]));
        }
        let mut cluster = Cluster {
            free: capacity.clone(),
            stranded: vec![[0, 0]; capacity.len()],
            fullness_key: vec![0; capacity.len()],
            capacity,
            free_total: capacity_total,
            capacity_total,
            gpu_shapes: popular_shapes(shapes, true),
            cpu_shapes: popular_shapes(shapes, false),
            stranded_total: [0, 0],
            largest,
            by_free: BTreeSet::new(),
            gpu_by_free: BTreeSet::new(),
            by_label: vec![BTreeSet::new(); labels.len().min(MAX_MODEL_LABELS)],
            label_free: vec![[0; 3]; labels.len().min(MAX_MODEL_LABELS)],
            label_gpus: vec![0; labels.len().min(MAX_MODEL_LABELS)],
            release_log: Vec::new(),
            labels,
            machine_label,
            sharing: None,
            occupancy: Occupancy::default(),
        };
        for m in 0..cluster.free.len() {
            let label = cluster.machine_label[m] as usize;
            let free = cluster.capacity_of(m);
            (0..3).for_each(|r| cluster.label_free[label][r] += free[r] as u64);
            cluster.label_gpus[label] += free[2] as u64;
            cluster.refresh(m, true);
        }
        cluster
    }

    /// Shares of a GPU go only beside jobs whose kinds `rules` lets share it.
    pub fn with_sharing(mut self, rules: SharingRules) -> Self {
        self.sharing = Some(Arc::new(rules));
        self.occupancy = Occupancy::new(self.free.len());
        self
    }

    /// The other jobs holding a share of the GPU `container` holds a share of (one entry per
    /// share); none where it holds whole GPUs or sharing is free.
    pub fn co_sharers(&self, container: &Container) -> impl Iterator<Item = Sharer> + '_ {
        let (machine, take) = (container.machine, container.gpu_take);
        container.sharer.into_iter().flat_map(move |s| {
            (0..MAX_GPUS)
                .filter(move |&k| take[k] > 0)
                .flat_map(move |k| self.occupancy.others(machine, k, s.job))
        })
    }

    /// Whether `sharer` may take a share of GPU `gpu` of machine `m`.
    pub(super) fn share_allowed(&self, m: usize, gpu: usize, sharer: Option<Sharer>) -> bool {
        match (&self.sharing, sharer) {
            (Some(rules), Some(s)) => self.occupancy.allows(rules, m as u32, gpu, s),
            _ => true,
        }
    }

    /// The machines of the named GPU models; `None` when one is no machine's model, or the
    /// cluster has more than [`MAX_MODEL_LABELS`] models.
    pub fn models(&self, names: &[String]) -> Option<Models> {
        if self.labels.len() > MAX_MODEL_LABELS {
            return None;
        }
        names.iter().try_fold(Models(0), |set, name| {
            let k = self.labels.iter().position(|l| l == name)?;
            Some(Models(set.0 | 1 << k))
        })
    }

    /// Free and total GPU milli-units of the machines of the models in `models`.
    pub fn gpus_within(&self, models: Models) -> [u64; 2] {
        (0..self.label_gpus.len())
            .filter(|&k| models.holds(k as u8))
            .fold([0, 0], |sum, k| {
                [sum[0] + self.label_free[k][2], sum[1] + self.label_gpus[k]]
            })
    }

    /// The models of the machines `containers` are on.
    pub fn models_holding(&self, containers: &[Container]) -> Models {
        Models(containers.iter().fold(0, |set, c| {
            set | 1 << self.machine_label[c.machine as usize]
        }))
    }

    /// Whether machine `m` is of a model in `within`.
    pub fn is_within(&self, m: usize, within: Models) -> bool {
        within == Models::ANY || within.holds(self.machine_label[m])
    }

    pub fn machines(&self) -> usize {
        self.free.len()
    }

    pub fn free_total(&self) -> [u64; 3] {
        self.free_total
    }

    pub fn capacity_total(&self) -> [u64; 3] {
        self.capacity_total
    }

    /// Expected free `[gpu, cpu]` milli-units a job of the workload could not use now.
    pub fn stranded_total(&self) -> [f64; 2] {
        self.stranded_total.map(|v| v as f64 / 1000.0)
    }

    /// Free `[cpu, mem, gpu]` of one machine (GPU summed over its GPUs).
    pub fn free_of(&self, machine: usize) -> [u32; 3] {
        let m = &self.free[machine];
        [m.cpu, m.mem, m.gpu_free.iter().map(|&g| g as u32).sum()]
    }

    /// Capacity `[cpu, mem, gpu]` of one machine.
    pub fn capacity_of(&self, machine: usize) -> [u32; 3] {
        let m = &self.capacity[machine];
        [m.cpu, m.mem, m.gpus as u32 * GPU_MILLI]
    }

    /// The largest machine's `[cpu, mem, gpu]`.
    pub fn largest(&self) -> [u32; 3] {
        self.largest
    }

    /// The machines a request may go to, emptiest last.
    pub(super) fn candidates(&self, request: [u32; 3]) -> &BTreeSet<(u64, u32)> {
        if request[2] > 0 {
            &self.gpu_by_free
        } else {
            &self.by_free
        }
    }

    /// Places `count` containers of `request` on the machines `within`, one at a time on the
    /// machine `placement` prefers; all or nothing (`None` leaves the cluster unchanged).
    pub fn place(
        &mut self,
        request: [u32; 3],
        count: u32,
        placement: Placement,
        within: impl Into<Within>,
    ) -> Option<Vec<Container>> {
        let within = within.into();
        if !self.can_place(request, count, within) {
            return None;
        }
        let mut placed = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let machine = self.choose(request, placement, within)?;
            placed.push(self.take(machine, request, placement, within.sharer));
        }
        Some(placed)
    }

    /// Best-fit: the machine left with the least free capacity, i.e. the fullest one with
    /// room (the request takes the same share from any machine); worst-fit: the emptiest.
    fn choose(&self, request: [u32; 3], placement: Placement, within: Within) -> Option<usize> {
        let set = self.candidates(request);
        let has_room = |&&(_, m): &&(u64, u32)| self.room_on(m, request, within) > 0;
        match placement {
            Placement::BestFit => set.iter().find(has_room),
            Placement::WorstFit => set.iter().rev().find(has_room),
        }
        .map(|&(_, m)| m as usize)
    }

    fn take(
        &mut self,
        machine: usize,
        request: [u32; 3],
        placement: Placement,
        sharer: Option<Sharer>,
    ) -> Container {
        let share = request[2] > 0 && request[2] < GPU_MILLI;
        let allowed: [bool; MAX_GPUS] =
            std::array::from_fn(|k| !share || self.share_allowed(machine, k, sharer));
        let f = &mut self.free[machine];
        f.cpu -= request[0];
        f.mem -= request[1];
        let mut gpu_take = [0u16; MAX_GPUS];
        let g = request[2];
        if g >= GPU_MILLI {
            let mut need = g / GPU_MILLI;
            for (take, free) in gpu_take.iter_mut().zip(&mut f.gpu_free[..f.gpus]) {
                if need > 0 && *free as u32 == GPU_MILLI {
                    *take = GPU_MILLI as u16;
                    *free = 0;
                    need -= 1;
                }
            }
        } else if g > 0 {
            // a share goes on the fullest GPU it fits (best-fit) or the emptiest (worst-fit)
            let fitting = (0..f.gpus).filter(|&k| allowed[k] && f.gpu_free[k] as u32 >= g);
            let k = match placement {
                Placement::BestFit => fitting.min_by_key(|&k| f.gpu_free[k]),
                Placement::WorstFit => fitting.max_by_key(|&k| f.gpu_free[k]),
            }
            .expect("room() checked a GPU has the share");
            gpu_take[k] = g as u16;
            f.gpu_free[k] -= g as u16;
        }
        let taken = Container {
            machine: machine as u32,
            cpu: request[0],
            mem: request[1],
            gpu_take,
            sharer: sharer.filter(|_| self.sharing.is_some() && g > 0 && g < GPU_MILLI),
        };
        if let Some(s) = taken.sharer {
            (0..MAX_GPUS)
                .filter(|&k| gpu_take[k] > 0)
                .for_each(|k| self.occupancy.add(machine as u32, k, s));
        }
        self.free_total[0] -= request[0] as u64;
        self.free_total[1] -= request[1] as u64;
        self.free_total[2] -= taken.gpu_milli() as u64;
        let label = &mut self.label_free[self.machine_label[machine] as usize];
        label[0] -= request[0] as u64;
        label[1] -= request[1] as u64;
        label[2] -= taken.gpu_milli() as u64;
        self.refresh(machine, false);
        taken
    }

    /// Takes back exactly what a released container held (undoing `release`).
    pub fn reinstate(&mut self, container: &Container) {
        self.adjust(container, false);
        self.refresh(container.machine as usize, false);
    }

    /// Returns a container's resources to its machine.
    pub fn release(&mut self, container: &Container) {
        self.adjust(container, true);
        self.release_log.push(container.machine);
        self.refresh(container.machine as usize, false);
    }

    /// Frees containers only to ask [`Cluster::can_place`] what would fit without them; the
    /// index and fragmentation stay as they were, so [`Cluster::end_probe`] must follow.
    pub fn begin_probe(&mut self, containers: &[Container]) {
        containers.iter().for_each(|c| self.adjust(c, true));
    }

    /// Takes back what [`Cluster::begin_probe`] freed.
    pub fn end_probe(&mut self, containers: &[Container]) {
        containers.iter().for_each(|c| self.adjust(c, false));
    }

    /// Adds a container's resources to its machine's free amounts (`give`) or takes them.
    fn adjust(&mut self, container: &Container, give: bool) {
        if let Some(s) = container.sharer {
            for k in (0..MAX_GPUS).filter(|&k| container.gpu_take[k] > 0) {
                if give {
                    self.occupancy.remove(container.machine, k, s);
                } else {
                    self.occupancy.add(container.machine, k, s);
                }
            }
        }
        let f = &mut self.free[container.machine as usize];
        let step = |free: &mut u32, amount: u32| {
            *free = if give { *free + amount } else { *free - amount }
        };
        step(&mut f.cpu, container.cpu);
        step(&mut f.mem, container.mem);
        for k in 0..MAX_GPUS {
            let mut g = f.gpu_free[k] as u32;
            step(&mut g, container.gpu_take[k] as u32);
            f.gpu_free[k] = g as u16;
        }
        let amounts = [container.cpu, container.mem, container.gpu_milli()];
        let label = &mut self.label_free[self.machine_label[container.machine as usize] as usize];
        for (free, amount) in label.iter_mut().zip(amounts) {
            *free = if give {
                *free + amount as u64
            } else {
                *free - amount as u64
            };
        }
        for (total, amount) in self.free_total.iter_mut().zip(amounts) {
            *total = if give {
                *total + amount as u64
            } else {
                *total - amount as u64
            };
        }
    }

    /// Re-indexes machine `m` and its stranded capacity after a change.
    fn refresh(&mut self, m: usize, new: bool) {
        let key = (self.fullness_key[m], m as u32);
        let label = self.machine_label[m] as usize;
        if !new {
            self.by_free.remove(&key);
            self.gpu_by_free.remove(&key);
            self.by_label[label].remove(&key);
        }
        let f = self.free_of(m);
        let cap = self.capacity_total;
        let free_share: f64 = (0..3)
            .filter(|&r| cap[r] > 0)
            .map(|r| f[r] as f64 / cap[r] as f64)
            .sum();
        self.fullness_key[m] = free_share.to_bits();
        let key = (self.fullness_key[m], m as u32);
        self.by_free.insert(key);
        self.by_label[label].insert(key);
        if self.capacity[m].gpus > 0 {
            self.gpu_by_free.insert(key);
        }
        self.refresh_stranded(m);
    }

    /// Re-measures machine `m`'s stranded capacity (`fragmentation.rs`).
    fn refresh_stranded(&mut self, m: usize) {
        let f = &self.free[m];
        let now = stranded(
            (f.cpu, f.mem, &f.gpu_free[..f.gpus]),
            &self.gpu_shapes,
            &self.cpu_shapes,
        );
        let old = self.stranded[m];
        for k in 0..2 {
            self.stranded_total[k] = self.stranded_total[k] + now[k] - old[k];
        }
        self.stranded[m] = now;
    }
}
