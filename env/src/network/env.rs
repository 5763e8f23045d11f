//! The network env: n centres share a CPU demand and train one model by consensus over a
//! communication graph. Each step is one iteration: the scheduler moves CPUs along the edges
//! present in this iteration's graph (a flow per edge on a log ladder, [`FlowLadder`]), then
//! every centre runs one gradient-tracking iteration on its shard, which takes the local epoch
//! its CPUs give it ([`CentreCost::epoch_s`]); the iteration waits for the slowest centre, and
//! the virtual clock advances by that. Flows are antisymmetric, so the demand is met at every
//! iteration whatever the action; the mask keeps every centre above half its lower bound
//! (where the costs' step-size bound holds).
//!
//! What a centre sends each iteration passes through the workload's channel: its quantised
//! marginal cost to each neighbour (the observation shows these messages) and its quantised
//! model and tracker (the training). Reward: minus the allocation's cost gap to the
//! centralised optimum, so the return is minus the gap summed over the iterations.

use std::sync::Arc;

use super::allocation::{lipschitz, step_size, uniform};
use super::cost::total_cost;
use super::instance::{Instance, NetworkWorkload};
use super::metrics::NetworkMetrics;
use super::training::{ConsensusTraining, centralised_objective};
use crate::error::{EnvError, Result};
use crate::gym::{ActionSpace, Environment, Field, Observation, ObservationSpace, Step, StepInfo};
use crate::model::Model;

/// Per centre: CPUs over the mean demand, place within its bounds, the marginal cost it
/// sends, upper bound over the mean demand, share of the work times the centres, degree now
/// over its base degree.
pub const CENTRE_FEATURES: usize = 6;
/// Per base edge: present now, weight now, the messages of its first and second centre.
pub const EDGE_FEATURES: usize = 4;
/// The iteration's step size `1 / (L lambda)`, progress through the episode, the smallest
/// flow over the mean demand.
pub const NETWORK_FEATURES: usize = 3;

/// What a step reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NetworkInfo {
    pub iteration: usize,
    pub cost_gap: f64,
    /// `|sum_i x_i - b| / b` after the step.
    pub residual: f64,
    pub time_s: f64,
    /// Bits sent so far, allocation and training.
    pub bits: f64,
    pub metrics: Option<NetworkMetrics>,
}

impl StepInfo<NetworkMetrics> for NetworkInfo {
    fn metrics(&self) -> Option<&NetworkMetrics> {
        self.metrics.as_ref()
    }
    fn time_s(&self) -> f64 {
        self.time_s
    }
}

struct Episode {
    instance: Instance,
    x: Vec<f64>,
    training: ConsensusTraining,
    lipschitz: f64,
    /// Each centre's quantised marginal cost at `x` (this iteration's messages).
    sent: Vec<f64>,
    /// Per base edge, its weight in this iteration's graph (`None`: dropped).
    present: Vec<Option<f64>>,
    /// The flows allowed this iteration (observed, then checked against).
    mask: Vec<bool>,
    iteration: usize,
    time_s: f64,
    bits_allocation: f64,
    bits_training: f64,
    gap: f64,
    gap_sum: f64,
    residual_max: f64,
    episode_return: f64,
}

pub struct NetworkEnv {
    workload: Arc<NetworkWorkload>,
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    /// Base edges at each centre: the sending end's room is shared among them.
    base_degree: Vec<usize>,
    episode: Option<Episode>,
}

impl NetworkEnv {
    pub fn new(workload: Arc<NetworkWorkload>) -> Self {
        let edges = workload.base.edges().len();
        let n = workload.centres();
        let mut base_degree = vec![0; n];
        for &(i, j, _) in workload.base.edges() {
            base_degree[i] += 1;
            base_degree[j] += 1;
        }
        NetworkEnv {
            action_space: ActionSpace::grid(
                "edge",
                edges,
                vec![Field::new("flow", workload.spec.flows.choices())],
            ),
            observation_space: ObservationSpace::new(&[
                ("centre", n, CENTRE_FEATURES),
                ("edge", edges, EDGE_FEATURES),
                ("network", 1, NETWORK_FEATURES),
            ]),
            base_degree,
            workload,
            episode: None,
        }
    }

    pub fn workload(&self) -> &Arc<NetworkWorkload> {
        &self.workload
    }

    /// The current allocation (none before the first `reset`).
    pub fn allocation(&self) -> Option<&[f64]> {
        self.episode.as_ref().map(|e| e.x.as_slice())
    }

    /// Refreshes what the iteration's graph and allocation fix: messages, present edges and
    /// the mask.
    fn prepare(&self, e: &mut Episode) {
        let q = self.workload.spec.channel;
        for (i, cost) in e.instance.costs.iter().enumerate() {
            e.sent[i] = q.quantize(cost.marginal(e.x[i]));
        }
        // a dropout graph keeps the base graph's edge order
        let current = e.instance.graphs.current().edges();
        let mut at = 0;
        for (k, &(i, j, _)) in self.workload.base.edges().iter().enumerate() {
            e.present[k] = match current.get(at) {
                Some(&(a, b, w)) if (a, b) == (i, j) => {
                    at += 1;
                    Some(w)
                }
                _ => None,
            };
        }
        e.mask = self.mask(e);
    }

    fn mask(&self, e: &Episode) -> Vec<bool> {
        let ladder = self.workload.spec.flows;
        let choices = ladder.choices();
        let room =
            |c: usize| (e.x[c] - 0.5 * e.instance.costs[c].min) / self.base_degree[c].max(1) as f64;
        let mut mask = vec![false; self.workload.base.edges().len() * choices];
        for (k, &(i, j, _)) in self.workload.base.edges().iter().enumerate() {
            let dim = &mut mask[k * choices..(k + 1) * choices];
            dim[ladder.none()] = true;
            if e.present[k].is_none() {
                continue;
            }
            for (choice, allowed) in dim.iter_mut().enumerate() {
                let flow = ladder.flow(choice);
                let sender = if flow > 0.0 { i } else { j };
                *allowed |= flow.abs() <= room(sender);
            }
        }
        mask
    }

    fn observe(&self, e: &Episode) -> Observation {
        let w = &self.workload;
        let n = w.centres();
        let mean_demand = w.spec.centres.demand_per_centre;
        let total_work: f64 = e.instance.costs.iter().map(|c| c.work_s).sum();
        let mut degree_now = vec![0usize; n];
        for &(i, j, _) in e.instance.graphs.current().edges() {
            degree_now[i] += 1;
            degree_now[j] += 1;
        }
        let mut features = vec![0.0f32; self.observation_space.len()];
        let centres = self.observation_space.group("centre");
        for (i, c) in e.instance.costs.iter().enumerate() {
            let at = centres.offset + i * CENTRE_FEATURES;
            features[at..at + CENTRE_FEATURES].copy_from_slice(&[
                (e.x[i] / mean_demand) as f32,
                ((e.x[i] - c.min) / (c.max - c.min).max(f64::MIN_POSITIVE)) as f32,
                e.sent[i] as f32,
                (c.max / mean_demand) as f32,
                (n as f64 * c.work_s / total_work) as f32,
                degree_now[i] as f32 / self.base_degree[i].max(1) as f32,
            ]);
        }
        let edges = self.observation_space.group("edge");
        for (k, &(i, j, _)) in w.base.edges().iter().enumerate() {
            let at = edges.offset + k * EDGE_FEATURES;
            let weight = e.present[k].unwrap_or(0.0);
            features[at..at + EDGE_FEATURES].copy_from_slice(&[
                f32::from(u8::from(e.present[k].is_some())),
                weight as f32,
                e.sent[i] as f32,
                e.sent[j] as f32,
            ]);
        }
        let at = self.observation_space.group("network").offset;
        features[at..at + NETWORK_FEATURES].copy_from_slice(&[
            step_size(e.lipschitz, e.instance.graphs.current()) as f32,
            e.iteration as f32 / w.spec.episode.iterations as f32,
            (w.spec.flows.smallest / mean_demand) as f32,
        ]);
        Observation {
            features,
            action_mask: e.mask.clone(),
        }
    }

    fn info(e: &Episode, demand: f64) -> NetworkInfo {
        NetworkInfo {
            iteration: e.iteration,
            cost_gap: e.gap,
            residual: (e.x.iter().sum::<f64>() - demand).abs() / demand,
            time_s: e.time_s,
            bits: e.bits_allocation + e.bits_training,
            metrics: None,
        }
    }

    fn metrics(&self, e: &Episode) -> NetworkMetrics {
        let w = &self.workload;
        let mean = e.training.mean_params();
        let (train_loss, _) = centralised_objective(&*w.model, &w.data, &mean, w.spec.training.l2);
        let (central_loss, central_score) = w.central();
        NetworkMetrics {
            cost_gap: e.gap,
            cost_gap_mean: e.gap_sum / e.iteration as f64,
            residual_max: e.residual_max,
            disagreement: e.training.disagreement(),
            train_loss,
            loss_gap: (train_loss - central_loss) / central_loss.abs().max(f64::MIN_POSITIVE),
            model_score: w.model.score(&mean, &w.data),
            central_score,
            bits_allocation: e.bits_allocation,
            bits_training: e.bits_training,
            time_s: e.time_s,
            iterations: e.iteration,
            episode_return: e.episode_return,
        }
    }
}

impl Environment for NetworkEnv {
    type Metrics = NetworkMetrics;
    type Info = NetworkInfo;

    fn workload_name(&self) -> &str {
        self.workload.name()
    }
    fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }
    fn step_limit(&self) -> usize {
        self.workload.spec.episode.iterations
    }

    fn reset(&mut self, seed: u64) -> Result<(Observation, NetworkInfo)> {
        let w = &self.workload;
        let instance = w.instance(seed);
        let x = uniform(w.centres(), w.demand());
        let training = ConsensusTraining::new(
            w.model.clone(),
            w.data.clone(),
            instance.shards.clone(),
            w.spec.training.l2,
            w.spec.training.step,
            w.spec.channel,
            &vec![0.0; w.model.num_params()],
        );
        let gap = (total_cost(&instance.costs, &x) - instance.optimal_cost) / instance.optimal_cost;
        let mut episode = Episode {
            lipschitz: lipschitz(&instance.costs),
            sent: vec![0.0; w.centres()],
            present: vec![None; w.base.edges().len()],
            mask: Vec::new(),
            instance,
            x,
            training,
            iteration: 0,
            time_s: 0.0,
            bits_allocation: 0.0,
            bits_training: 0.0,
            gap,
            gap_sum: 0.0,
            residual_max: 0.0,
            episode_return: 0.0,
        };
        self.prepare(&mut episode);
        let observation = self.observe(&episode);
        let info = Self::info(&episode, w.demand());
        self.episode = Some(episode);
        Ok((observation, info))
    }

    fn step(&mut self, action: &[usize]) -> Result<Step<NetworkInfo>> {
        let iterations = self.workload.spec.episode.iterations;
        let e = self.episode.as_ref().ok_or(EnvError::EpisodeOver)?;
        if e.iteration == iterations {
            return Err(EnvError::EpisodeOver);
        }
        self.action_space
            .check(action, &e.mask)
            .map_err(|err| EnvError::BadAction(err.to_string()))?;
        let mut e = self.episode.take().expect("checked above");
        let w = Arc::clone(&self.workload);
        let ladder = w.spec.flows;
        for (&(i, j, _), &choice) in w.base.edges().iter().zip(action) {
            let flow = ladder.flow(choice);
            e.x[i] -= flow;
            e.x[j] += flow;
        }
        let current = e.instance.graphs.current();
        e.bits_allocation += 2.0 * current.edges().len() as f64 * f64::from(w.spec.channel.bits());
        e.bits_training += e.training.step(current) as f64;
        e.time_s += e
            .instance
            .costs
            .iter()
            .zip(&e.x)
            .map(|(c, &x)| c.epoch_s(x))
            .fold(0.0, f64::max);
        e.gap = (total_cost(&e.instance.costs, &e.x) - e.instance.optimal_cost)
            / e.instance.optimal_cost;
        e.gap_sum += e.gap;
        e.episode_return -= e.gap;
        e.iteration += 1;
        let demand = w.demand();
        let mut info = Self::info(&e, demand);
        e.residual_max = e.residual_max.max(info.residual);
        e.instance
            .graphs
            .advance()
            .map_err(|e| EnvError::config(&w.path, "graph", e.to_string()))?;
        self.prepare(&mut e);
        let done = e.iteration == iterations;
        if done {
            info.metrics = Some(self.metrics(&e));
        }
        let observation = self.observe(&e);
        let reward = -e.gap;
        self.episode = Some(e);
        Ok(Step {
            observation,
            reward,
            terminated: done,
            truncated: false,
            info,
        })
    }

    fn fresh_copy(&self) -> Self {
        NetworkEnv::new(Arc::clone(&self.workload))
    }
}
