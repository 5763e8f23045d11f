//! Sampled decoding of the learned DAG scheduler: at `reset` it plays the episode's instance
//! greedily and `samples` times more drawing each choice from its softmax, on copies of the
//! env stepped side by side in batches of 64 (one forward pass per step for a batch; the
//! batches on all threads), and keeps the choices
//! of the shortest episode. This is how neural solvers of combinatorial problems are commonly
//! decoded (Kool, van Hoof and Welling, "Attention, Learn to Solve Routing Problems!", 2019;
//! Kwon et al., "POMO", 2020). The env is deterministic once its instance is drawn, so the
//! kept choices replay the kept episode exactly. It uses the env's own executor as its model,
//! as `ga` and `woa` do; greedy decoding (`samples = 0`) uses none.

use std::sync::Arc;

use burn::tensor::Device;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rayon::prelude::*;
use schedlab_env::dag::{DagEnv, DagWorkload};
use schedlab_env::{ActionSpace, StepInfo};

use super::episode::{GnnInstance, play_side_by_side, sample_choice};
use super::network::DagGnn;
use crate::learned::masked::argmax;

/// Mixed into the episode seed so the draws differ from the env's own use of it.
const SAMPLING_SALT: u64 = 0x5a3d_1e9c_b7f0_2468;

/// Mixed into a batch's generator seed by its index (the first batch's is the episode's).
const BATCH_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// Episodes stepped side by side at most per batch: bounds the env copies one thread holds.
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
    // batches play on the rayon pool, each drawing from its own seeded generator, and are
    // compared in order: any thread count keeps the same episode
    let batches = (samples + 1).div_ceil(BATCH);
    let played: Vec<Vec<(f64, Vec<usize>)>> = (0..batches)
        .into_par_iter()
        .map(|b| {
            let copies = BATCH.min(samples + 1 - b * BATCH);
            let mut rng =
                StdRng::seed_from_u64(seed ^ SAMPLING_SALT ^ (b as u64).wrapping_mul(BATCH_SALT));
            episodes.play(copies, b == 0, &mut rng)
        })
        .collect();
    let mut best: Option<(f64, Vec<usize>)> = None;
    for (makespan, choices) in played.into_iter().flatten() {
        if best
            .as_ref()
            .is_none_or(|(shortest, _)| makespan < *shortest)
        {
            best = Some((makespan, choices));
        }
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
        let mut envs: Vec<DagEnv> = (0..copies)
            .map(|_| DagEnv::new(Arc::clone(self.workload)))
            .collect();
        let mut played: Vec<(f64, Vec<usize>)> = vec![(f64::INFINITY, Vec::new()); copies];
        play_side_by_side(
            &mut envs,
            self.seed,
            (self.net, self.instance, self.device),
            self.workload.spec.ready_tasks,
            |c, scores, mask| {
                if c == 0 && greedy_first {
                    argmax(self.space, scores, mask)[0]
                } else {
                    sample_choice(self.space, scores, mask, rng)
                }
            },
            |c, decision, step| {
                played[c].1.push(decision.choice);
                if let Some(metrics) = step.info.metrics() {
                    played[c].0 = metrics.makespan_s;
                }
            },
        )
        .expect("a DAG env resets on any seed, and the scheduler chooses among the allowed GPUs");
        played
    }
}
