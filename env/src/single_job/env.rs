//! One cluster running one training job.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::Serialize;

use super::features::{
    HISTORY, HISTORY_FEATURES, JOB_FEATURES, JOB_GROUP, NODE_FEATURES, NODE_GROUP,
};
use super::metrics::{MetricSums, SingleJobMetrics};
use crate::cluster::{Amounts, Background, Ladder, Resource};
use crate::error::{EnvError, Result};
use crate::execution::Execution;
use crate::gym::{
    ActionError, ActionSpace, Environment, Field, Observation, ObservationSpace, Step, StepInfo,
};
use crate::real::single_job::RealTraining;
use crate::single_job::scenario::Scenario;
use crate::single_job::sim::rules;
use crate::single_job::sim::{CostModel, TrainingSim, WorkerRound};
use crate::single_job::training::{PushRecord, Training};

/// Diagnostics beside the observation.
#[derive(Debug, Clone, Serialize)]
pub struct SingleJobInfo {
    pub time_s: f64,
    pub round: usize,
    pub iterations: u64,
    /// Validation loss at the latest check (at `job.eval_every`, and at the end).
    pub val_loss: f64,
    /// Mean minibatch loss of the gradients pushed in the last round.
    pub train_loss: f64,
    pub lr_factor: f64,
    /// The allocation in force during the last round, per node `[cpu, mem, gpu]`.
    pub allocation: Vec<Amounts>,
    /// What each worker did in the last round.
    pub workers: Vec<WorkerRound>,
    /// Peak background `[cpu, mem]` on each node during the last round.
    pub background_peak: Vec<[f64; 2]>,
    /// Trace background load that did not fit under `max_share` in this episode, over all
    /// nodes: `[core-seconds, GB-seconds]` (0 for other sources).
    pub background_clipped: [f64; 2],
    /// Every push of the last round as measured on real processes (`execution = "real"`;
    /// empty in the simulator): what `schedlab fidelity` calibrates the simulator on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub real_pushes: Vec<PushRecord>,
    /// Set when the episode ended.
    pub metrics: Option<SingleJobMetrics>,
}

struct Episode {
    sim: Box<dyn Training>,
    background: Background,
    round: usize,
    history: Vec<VecDeque<[f32; HISTORY_FEATURES]>>,
    last_workers: Vec<WorkerRound>,
    last_alloc: Vec<Amounts>,
    last_background_peak: Vec<[f64; 2]>,
    last_round_s: f64,
    last_pushes: Vec<PushRecord>,
    train_loss: f64,
    sums: MetricSums,
    done: bool,
    mask: Vec<bool>,
    /// Free amount per node and resource for the coming round (capacity minus peak background).
    free_next: Vec<Amounts>,
}

pub struct SingleJobEnv {
    scenario: Arc<Scenario>,
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    reference_rate: f64,
    cost: CostModel,
    episode: Option<Episode>,
}

impl SingleJobEnv {
    pub fn new(scenario: Arc<Scenario>) -> Self {
        let nodes = scenario.nodes.len();
        let action_space = action_space(nodes, &scenario.workload.containers);
        let observation_space = ObservationSpace::new(&[
            (NODE_GROUP, nodes, NODE_FEATURES),
            (JOB_GROUP, 1, JOB_FEATURES),
        ]);
        let cost = CostModel::new(&scenario.workload.sim, &scenario.workload.job);
        let reference_rate = reference_rate(&scenario);
        SingleJobEnv {
            cost,
            scenario,
            action_space,
            observation_space,
            reference_rate,
            episode: None,
        }
    }

    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.scenario
    }
    pub fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    pub fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }

    /// Starts an episode. Everything random in it (initial parameters, minibatches, straggler
    /// noise, background load, trace offset) derives from `seed`.
    pub fn reset(&mut self, seed: u64) -> Result<(Observation, SingleJobInfo)> {
        // a real episode still running holds the machine: end it before the next starts
        if let Some(mut old) = self.episode.take() {
            old.sim.finish()?;
        }
        let w = &self.scenario.workload;
        let horizon = w.episode.max_time_s + w.episode.round_interval_s;
        let background = Background::generate(
            &w.background,
            self.scenario.trace.as_ref(),
            &self.scenario.nodes,
            horizon,
            seed ^ 0x9e37_79b9_7f4a_7c15,
        );
        let nodes = self.scenario.nodes.len();
        let sim: Box<dyn Training> = match w.execution {
            Execution::Sim => Box::new(TrainingSim::new(Arc::clone(&self.scenario), seed)?),
            Execution::Real | Execution::Slurm => {
                Box::new(RealTraining::start(Arc::clone(&self.scenario), seed)?)
            }
        };
        let mut episode = Episode {
            sim,
            background,
            round: 0,
            history: vec![VecDeque::from(vec![[0.0; HISTORY_FEATURES]; HISTORY]); nodes],
            last_workers: vec![WorkerRound::default(); nodes],
            last_alloc: vec![[0.0; 3]; nodes],
            last_background_peak: vec![[0.0; 2]; nodes],
            last_round_s: 0.0,
            last_pushes: Vec::new(),
            train_loss: f64::NAN,
            sums: MetricSums::default(),
            done: false,
            mask: Vec::new(),
            free_next: Vec::new(),
        };
        self.prepare_round(&mut episode);
        let observation = self.observe(&episode);
        let info = self.info(&episode, None);
        self.episode = Some(episode);
        Ok((observation, info))
    }

    /// Full validation passes of the current episode so far (0 before the first reset).
    pub fn validations(&self) -> u64 {
        self.episode.as_ref().map_or(0, |e| e.sim.validations())
    }

    /// The mask of the current state (also inside every observation).
    pub fn action_mask(&self) -> Option<&[bool]> {
        self.episode.as_ref().map(|e| e.mask.as_slice())
    }

    /// Translates an action into amounts, refusing malformed or infeasible ones.
    pub fn allocation_of(&self, action: &[usize]) -> Result<Vec<Amounts>> {
        let episode = self.episode.as_ref().ok_or(EnvError::EpisodeOver)?;
        let space = &self.action_space;
        if let Err(error) = space.check(action, &episode.mask) {
            return Err(match error {
                ActionError::Masked { dim, level, .. } => {
                    let (node, r) = (space.unit_of(dim), Resource::ALL[space.field_of(dim)]);
                    EnvError::Infeasible {
                        node,
                        node_name: self.scenario.nodes[node].name.clone(),
                        resource: r.name(),
                        level,
                        requested: self.scenario.workload.containers.amount(r, level),
                        free: episode.free_next[node][r as usize],
                    }
                }
                other => EnvError::BadAction(other.to_string()),
            });
        }
        let ladder = &self.scenario.workload.containers;
        let mut alloc = vec![[0.0; 3]; space.units()];
        for (d, &level) in action.iter().enumerate() {
            let r = Resource::ALL[space.field_of(d)];
            alloc[space.unit_of(d)][r as usize] = ladder.amount(r, level);
        }
        for a in &mut alloc {
            if a[0] == 0.0 || a[1] == 0.0 {
                *a = [0.0; 3];
            }
        }
        Ok(alloc)
    }

    /// Runs one scheduling round under `action`.
    pub fn step(&mut self, action: &[usize]) -> Result<Step<SingleJobInfo>> {
        if self.episode.as_ref().is_none_or(|e| e.done) {
            return Err(EnvError::EpisodeOver);
        }
        let alloc = self.allocation_of(action)?;
        let mut episode = self.episode.take().expect("checked above");
        let result = self.run_round(&mut episode, alloc);
        let step = result.map(|(reward, terminated, truncated)| {
            let metrics = (terminated || truncated).then(|| self.metrics(&episode));
            episode.done = terminated || truncated;
            if !episode.done {
                self.prepare_round(&mut episode);
            }
            Step {
                observation: self.observe(&episode),
                reward,
                terminated,
                truncated,
                info: self.info(&episode, metrics),
            }
        });
        if step.is_err() {
            episode.done = true;
        }
        let finished = if episode.done {
            episode.sim.finish()
        } else {
            Ok(())
        };
        self.episode = Some(episode);
        let step = step?;
        finished?;
        Ok(step)
    }

    /// One round: simulate it, account for it, score it, remember it, and tell whether the
    /// episode ended `(reward, terminated, truncated)`.
    fn run_round(&self, episode: &mut Episode, alloc: Vec<Amounts>) -> Result<(f64, bool, bool)> {
        let w = &self.scenario.workload;
        let t0 = episode.sim.now();
        let (t_end, reached, workers) = self.simulate(episode, &alloc, t0)?;
        episode.last_pushes = episode.sim.take_pushes();
        let dt = t_end - t0;
        let round = self.account(episode, &alloc, &workers, t0, t_end);
        let mut reward = self.reward(&round, dt);
        episode.sums.add(&round);
        self.remember(episode, alloc, workers, t0, t_end);
        let limit = episode.round >= w.episode.max_rounds || t_end >= w.episode.max_time_s - 1e-9;
        // at a limit, validate the final parameters: they may have just reached the target
        let terminated = reached.is_some() || (limit && episode.sim.validate()?.is_some());
        let truncated = limit && !terminated;
        if terminated || truncated {
            reward -=
                w.reward.lambda_episode_idle * episode.sums.held_idle_share(&w.prices.per_second());
        }
        episode.sums.episode_return += reward;
        Ok((reward, terminated, truncated))
    }

    /// Runs the training under `alloc` from `t0` to the round's end or the target, whichever
    /// comes first: `(end, time the target was reached, what each worker did)`.
    fn simulate(
        &self,
        episode: &mut Episode,
        alloc: &[Amounts],
        t0: f64,
    ) -> Result<(f64, Option<f64>, Vec<WorkerRound>)> {
        let w = &self.scenario.workload;
        let t1 = (t0 + w.episode.round_interval_s).min(w.episode.max_time_s);
        let background_cpu: Vec<f64> = episode
            .background
            .nodes
            .iter()
            .map(|bg| bg.mean_over(t0, t1).0)
            .collect();
        let interference: Vec<f64> = self
            .scenario
            .nodes
            .iter()
            .zip(&background_cpu)
            .map(|(node, &cpu)| self.cost.interference(node, cpu))
            .collect();
        episode
            .sim
            .set_allocation(alloc, &background_cpu, &interference, self.reference_rate)?;
        let reached = episode.sim.run_until(t1)?;
        let t_end = reached.unwrap_or(t1);
        let workers = episode.sim.close_round(t_end)?;
        Ok((t_end, reached, workers))
    }

    /// The round's resource-seconds: allocated, used, capacity, free and stranded (free
    /// pieces no container of the ladder can use, segment by segment of background load),
    /// and the price of what was allocated but not used.
    fn account(
        &self,
        episode: &Episode,
        alloc: &[Amounts],
        workers: &[WorkerRound],
        t0: f64,
        t_end: f64,
    ) -> MetricSums {
        let w = &self.scenario.workload;
        let dt = t_end - t0;
        let prices = w.prices.per_second();
        let ladder = &w.containers;
        let smallest = Resource::ALL.map(|r| ladder.smallest(r));
        let mut round = MetricSums::default();
        for (n, node) in self.scenario.nodes.iter().enumerate() {
            let cap = node.capacity();
            let used = [
                workers[n].cpu_used_s,
                workers[n].mem_used_gb_s,
                workers[n].gpu_used_s,
            ];
            for r in 0..3 {
                round.allocated[r] += alloc[n][r] * dt;
                round.used[r] += used[r];
                round.capacity[r] += cap[r] * dt;
            }
            for (span, bg_cpu, bg_mem) in episode.background.nodes[n].segments(t0, t_end) {
                let free = [
                    cap[0] - bg_cpu - alloc[n][0],
                    cap[1] - bg_mem - alloc[n][1],
                    cap[2] - alloc[n][2],
                ]
                .map(|f| f.max(0.0));
                let fits =
                    free[0] >= smallest[0].unwrap_or(0.0) && free[1] >= smallest[1].unwrap_or(0.0);
                let gpu_fits = fits && smallest[2].is_some_and(|s| free[2] >= s);
                for (r, amount) in free.iter().enumerate() {
                    round.free[r] += span * amount;
                    let stranded = if r == 2 { !gpu_fits } else { !fits };
                    if stranded {
                        round.stranded[r] += span * amount;
                    }
                }
            }
        }
        round.idle_cost = (0..3)
            .map(|r| prices[r] * (round.allocated[r] - round.used[r]).max(0.0))
            .sum();
        round
    }

    /// `-(lambda_time * dt / round_interval + lambda_idle * idle cost / capacity cost
    /// + lambda_held_idle * dt / round_interval * idle cost / held cost)`; the episode's last
    /// round also pays `lambda_episode_idle` times the episode's idle cost over its held cost.
    fn reward(&self, round: &MetricSums, dt: f64) -> f64 {
        let w = &self.scenario.workload;
        let prices = w.prices.per_second();
        let rounds = dt / w.episode.round_interval_s;
        -(w.reward.lambda_time * rounds
            + w.reward.lambda_idle * round.cluster_idle_share(&prices)
            + w.reward.lambda_held_idle * rounds * round.held_idle_share(&prices))
    }

    /// Pushes the round into each node's usage history and keeps what the next observation
    /// and info report.
    fn remember(
        &self,
        episode: &mut Episode,
        alloc: Vec<Amounts>,
        workers: Vec<WorkerRound>,
        t0: f64,
        t_end: f64,
    ) {
        let dt = t_end - t0;
        for (n, node) in self.scenario.nodes.iter().enumerate() {
            let cap = node.capacity();
            let share = |v: f64, c: f64| {
                if c > 0.0 && dt > 0.0 {
                    (v / (c * dt)) as f32
                } else {
                    0.0
                }
            };
            let used = [
                workers[n].cpu_used_s,
                workers[n].mem_used_gb_s,
                workers[n].gpu_used_s,
            ];
            let mut entry = [0.0f32; HISTORY_FEATURES];
            for r in 0..3 {
                entry[r] = share(used[r], cap[r]);
                entry[3 + r] = share(alloc[n][r] * dt, cap[r]);
            }
            episode.history[n].pop_front();
            episode.history[n].push_back(entry);
        }
        let pushes: u64 = workers.iter().map(|w| w.gradients).sum();
        episode.train_loss = if pushes > 0 {
            workers.iter().map(|w| w.loss_sum).sum::<f64>() / pushes as f64
        } else {
            f64::NAN
        };
        episode.last_workers = workers;
        episode.last_alloc = alloc;
        episode.last_round_s = dt;
        episode.last_background_peak = episode
            .background
            .nodes
            .iter()
            .map(|bg| bg.max_over(t0, t_end).into())
            .collect();
        episode.round += 1;
    }

    /// Computes the mask for the coming round: a level fits when its amount stays within the
    /// node's capacity minus the peak background load over the whole round.
    fn prepare_round(&self, episode: &mut Episode) {
        let w = &self.scenario.workload;
        let t0 = episode.sim.now();
        let t1 = (t0 + w.episode.round_interval_s).min(w.episode.max_time_s);
        episode.free_next = self
            .scenario
            .nodes
            .iter()
            .zip(&episode.background.nodes)
            .map(|(node, bg)| {
                let (cpu, mem) = bg.max_over(t0, t1);
                [
                    node.cpu_cores - cpu,
                    node.mem_gb - mem,
                    f64::from(node.gpus),
                ]
            })
            .collect();
        let ladder = &w.containers;
        episode.mask = episode
            .free_next
            .iter()
            .flat_map(|free| {
                Resource::ALL.into_iter().flat_map(move |r| {
                    (0..ladder.levels(r))
                        .map(move |level| ladder.amount(r, level) <= free[r as usize] + 1e-9)
                })
            })
            .collect();
    }

    fn observe(&self, episode: &Episode) -> Observation {
        let w = &self.scenario.workload;
        let nodes = &self.scenario.nodes;
        let max_cap = nodes.iter().fold([0.0f64; 3], |m, n| {
            let c = n.capacity();
            [m[0].max(c[0]), m[1].max(c[1]), m[2].max(c[2])]
        });
        let rel = |v: f64, m: f64| if m > 0.0 { (v / m) as f32 } else { 0.0 };
        let mut features = Vec::with_capacity(self.observation_space.len());
        for (n, node) in nodes.iter().enumerate() {
            for entry in &episode.history[n] {
                features.extend_from_slice(entry);
            }
            let worker = &episode.last_workers[n];
            let cap = node.capacity();
            let free = episode.free_next.get(n).copied().unwrap_or(cap);
            features.extend_from_slice(&[
                worker.mean_variance().ln_1p() as f32,
                (worker.mean_delay_s() / w.episode.round_interval_s) as f32,
                (worker.batch as f64 / w.job.base_batch as f64) as f32,
                (worker.mean_staleness() / (w.job.tau + 1) as f64) as f32,
                (worker.samples as f64 / episode.last_round_s.max(1e-12)).ln_1p() as f32,
                rel(cap[0] - free[0], cap[0]),
                rel(cap[1] - free[1], cap[1]),
                node.speed as f32,
                rel(cap[0], max_cap[0]),
                rel(cap[1], max_cap[1]),
                rel(cap[2], max_cap[2]),
            ]);
        }
        let sim = &episode.sim;
        let (l0, l, target) = (sim.initial_loss(), sim.val_loss(), w.job.target_loss);
        let progress = if l0 > target {
            ((l0 - l) / (l0 - target)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        features.extend_from_slice(&[
            (l / l0.max(1e-12)) as f32,
            progress as f32,
            (sim.now() / w.episode.max_time_s) as f32,
            (episode.round as f64 / w.episode.max_rounds as f64) as f32,
            sim.lr_factor() as f32,
        ]);
        Observation {
            features,
            action_mask: episode.mask.clone(),
        }
    }

    fn info(&self, episode: &Episode, metrics: Option<SingleJobMetrics>) -> SingleJobInfo {
        SingleJobInfo {
            time_s: episode.sim.now(),
            round: episode.round,
            iterations: episode.sim.iterations(),
            val_loss: episode.sim.val_loss(),
            train_loss: episode.train_loss,
            lr_factor: episode.sim.lr_factor(),
            allocation: episode.last_alloc.clone(),
            workers: episode.last_workers.clone(),
            background_peak: episode.last_background_peak.clone(),
            background_clipped: episode.background.clipped.into(),
            real_pushes: episode.last_pushes.clone(),
            metrics,
        }
    }

    fn metrics(&self, episode: &Episode) -> SingleJobMetrics {
        let sim = &episode.sim;
        let s = &episode.sums;
        SingleJobMetrics {
            completion_time_s: sim.now(),
            rounds: episode.round,
            iterations: sim.iterations(),
            final_loss: sim.val_loss(),
            target_reached: sim.val_loss() <= self.scenario.workload.job.target_loss,
            gpu_util: s.gpu_util(),
            cpu_util: s.cpu_util(),
            occupancy: s.occupancy(),
            fragmentation: s.fragmentation(),
            idle_cost: s.idle_cost,
            bits_sent: sim.bits_sent() as f64,
            bits_per_worker: sim.bits_sent() as f64 / self.scenario.nodes.len() as f64,
            episode_return: s.episode_return,
        }
    }
}

/// Per node (node-major) and resource `[cpu, mem, gpu]`, a level of the container ladder,
/// 0 = none. A node runs a worker only if its CPU and memory levels are both non-zero;
/// otherwise the node's levels all count as 0.
fn action_space(nodes: usize, ladder: &Ladder) -> ActionSpace {
    let fields = Resource::ALL
        .map(|r| Field::new(r.name(), ladder.levels(r)))
        .to_vec();
    ActionSpace::grid("node", nodes, fields)
}

/// The cluster's nominal rate ([`rules::nominal_rate`]) when every node holds the ladder's
/// middle container (the largest level at or below it that fits).
fn reference_rate(scenario: &Scenario) -> f64 {
    let ladder = &scenario.workload.containers;
    scenario
        .nodes
        .iter()
        .map(|node| {
            let cap = node.capacity();
            let alloc = Resource::ALL.map(|r| {
                (0..=ladder.middle_level(r))
                    .rev()
                    .map(|l| ladder.amount(r, l))
                    .find(|&a| a <= cap[r as usize])
                    .unwrap_or(0.0)
            });
            rules::nominal_rate(node, &alloc)
        })
        .sum()
}

impl StepInfo<SingleJobMetrics> for SingleJobInfo {
    fn metrics(&self) -> Option<&SingleJobMetrics> {
        self.metrics.as_ref()
    }
    fn time_s(&self) -> f64 {
        self.time_s
    }
    fn train_loss(&self) -> f64 {
        self.train_loss
    }
}

impl Environment for SingleJobEnv {
    type Metrics = SingleJobMetrics;
    type Info = SingleJobInfo;

    fn workload_name(&self) -> &str {
        &self.scenario.workload.name
    }
    fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }
    fn step_limit(&self) -> usize {
        self.scenario.workload.episode.max_rounds
    }
    fn reset(&mut self, seed: u64) -> Result<(Observation, SingleJobInfo)> {
        SingleJobEnv::reset(self, seed)
    }
    fn step(&mut self, action: &[usize]) -> Result<Step<SingleJobInfo>> {
        SingleJobEnv::step(self, action)
    }
    fn fresh_copy(&self) -> Self {
        SingleJobEnv::new(Arc::clone(&self.scenario))
    }
}
