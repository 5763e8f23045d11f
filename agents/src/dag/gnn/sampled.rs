//! Sampled decoding of the learned DAG scheduler: at `reset` it plays the episode's instance
//! greedily and `samples` times more drawing each choice from its softmax, on copies of the
//! env stepped side by side (one forward pass per step for all of them), and keeps the choices
//! of the shortest episode. This is how neural solvers of combinatorial problems are commonly
//! decoded (Kool, van Hoof and Welling, "Attention, Learn to Solve Routing Problems!", 2019;
//! Kwon et al., "POMO", 2020). The env is deterministic once its instance is drawn, so the
//! kept choices replay the kept episode exactly. It uses the env's own executor as its model,
//! as `ga` and `woa` do; greedy decoding (`samples = 0`) uses none.

use std::sync::Arc;

use burn::tensor::Device;
use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_env::dag::{DagEnv, DagWorkload};
use schedlab_env::{ActionSpace, Environment, StepInfo};

use super::episode::{Follower, GnnInstance, decision_scores, sample_choice};
use super::inputs::choice_rows;
use super::network::DagGnn;
use crate::learned::masked::argmax;

/// Mixed into the episode seed so the draws differ from the env's own use of it.
const SAMPLING_SALT: u64 = 0x5a3d_1e9c_b7f0_2468;

/// Episodes stepped side by side at most: bounds the env copies held at once.
const BATCH: usize = 64;

/// The choices of the shortest of one greedy and `samples` sampled episodes of `net` on
/// `instance` (the instance of `seed` in `workload`); the greedy one wins ties, then the
/// earlier episode.
pub fn shortest_sampled_episode(
    net: &DagGnn,
    device: &Device,
    workload: &Arc<DagWorkload>,
    space: &ActionSpace,
    instance: &GnnInstance,
    seed: u64,
    samples: usize,
) -> Vec<usize> {
    let episodes = Episodes {
        net,
        device,
        workload,
        space,
        instance,
        seed,
    };
    let mut rng = StdRng::seed_from_u64(seed ^ SAMPLING_SALT);
    let mut best: Option<(f64, Vec<usize>)> = None;
    let mut first = 0;
    while first <= samples {
        let copies = BATCH.min(samples + 1 - first);
        for (makespan, choices) in episodes.play(copies, first == 0, &mut rng) {
            if best
                .as_ref()
                .is_none_or(|(shortest, _)| makespan < *shortest)
            {
                best = Some((makespan, choices));
            }
        }
        first += copies;
    }
    best.map(|(_, choices)| choices).unwrap_or_default()
}

/// Episodes of one network on one instance.
struct Episodes<'a> {
    net: &'a DagGnn,
    device: &'a Device,
    workload: &'a Arc<DagWorkload>,
    space: &'a ActionSpace,
    instance: &'a GnnInstance,
    seed: u64,
}

impl Episodes<'_> {
    /// The makespan and choices of each of `copies` episodes (the first greedy where
    /// `greedy_first`, the others sampled), played on env copies stepped side by side with one
    /// forward pass per step for all of them.
    fn play(&self, copies: usize, greedy_first: bool, rng: &mut StdRng) -> Vec<(f64, Vec<usize>)> {
        let (instance, problem) = (self.instance, &self.instance.problem);
        let ready_tasks = self.workload.spec.ready_tasks;
        let gpus = problem.gpus();
        let mut envs: Vec<DagEnv> = (0..copies)
            .map(|_| DagEnv::new(Arc::clone(self.workload)))
            .collect();
        let mut observations: Vec<_> = envs
            .iter_mut()
            .map(|env| {
                env.reset(self.seed)
                    .expect("a DAG env resets on any seed")
                    .0
            })
            .collect();
        let mut followers = vec![Follower::new(problem, ready_tasks); copies];
        let mut played: Vec<(f64, Vec<usize>)> = vec![(f64::INFINITY, Vec::new()); copies];
        let mut live: Vec<usize> = (0..copies).collect();
        while !live.is_empty() {
            let mut rows = Vec::new();
            let mut embeddings = Vec::new();
            for &c in &live {
                rows.extend(choice_rows(&observations[c], ready_tasks, gpus));
                embeddings.extend(instance.embeddings_of(followers[c].row_tasks(problem)));
            }
            let scores = decision_scores(self.net, rows, embeddings, self.device);
            let width = scores.len() / live.len();
            let mut still = Vec::with_capacity(live.len());
            for (k, &c) in live.iter().enumerate() {
                let scores = &scores[k * width..(k + 1) * width];
                let mask = &observations[c].action_mask;
                let choice = if c == 0 && greedy_first {
                    argmax(self.space, scores, mask)[0]
                } else {
                    sample_choice(self.space, scores, mask, rng)
                };
                followers[c].chose(choice);
                played[c].1.push(choice);
                let step = envs[c]
                    .step(&[choice])
                    .expect("the scheduler chooses among the allowed GPUs");
                if let Some(metrics) = step.info.metrics() {
                    played[c].0 = metrics.makespan_s;
                }
                if !(step.terminated || step.truncated) {
                    observations[c] = step.observation;
                    still.push(c);
                }
            }
            live = still;
        }
        played
    }
}
