//! The learned DAG scheduler acting in the env: at `reset` it draws the episode's instance
//! from the workload (as [`super::super::PlanPolicy`] does) and embeds its tasks once; each
//! decision scores every (task, GPU) choice and takes the best allowed one (or, sampling,
//! replays the kept episode's choices). It follows the env's window of ready tasks from its
//! own choices ([`super::Follower`] over the env's own `ReadyWindow`), so it knows which task
//! each slot holds.

use std::sync::Arc;

use burn::module::Module;
use burn::tensor::Device;
use schedlab_env::dag::DagWorkload;
use schedlab_env::{ActionSpace, Observation};

use super::episode::{Follower, GnnInstance, decision_scores};
use super::inputs::choice_rows;
use super::network::DagGnn;
use crate::learned::masked::argmax;
use crate::policy::Policy;

/// The learned DAG scheduler: greedy (the best-scored allowed choice), or with `samples` the
/// choices of the shortest of its greedy and sampled episodes ([`super::sampled`]).
pub struct GnnPolicy {
    net: DagGnn,
    device: Device,
    workload: Arc<DagWorkload>,
    space: ActionSpace,
    samples: usize,
    episode: Option<(GnnInstance, Follower)>,
    /// The kept episode's choices still to make, when sampling.
    planned: std::vec::IntoIter<usize>,
}

impl GnnPolicy {
    pub fn new(net: DagGnn, workload: Arc<DagWorkload>, space: ActionSpace) -> Self {
        let device = crate::learned::batch::inference_device(&net);
        GnnPolicy {
            net: net.valid(),
            device,
            workload,
            space,
            samples: 0,
            episode: None,
            planned: Vec::new().into_iter(),
        }
    }

    /// Decodes each episode as the shortest of the greedy one and `samples` sampled ones.
    pub fn with_samples(self, samples: usize) -> Self {
        GnnPolicy { samples, ..self }
    }
}

impl Policy for GnnPolicy {
    fn name(&self) -> &str {
        "dag-gnn"
    }

    fn reset(&mut self, seed: u64) {
        let instance = GnnInstance::new(&self.net, self.workload.instance(seed), &self.device);
        let follower = Follower::new(&instance.problem, self.workload.spec.ready_tasks);
        self.planned = if self.samples > 0 {
            super::sampled::shortest_sampled_episode(
                &self.net,
                &self.device,
                &self.workload,
                &self.space,
                &instance,
                seed,
                self.samples,
            )
            .into_iter()
        } else {
            Vec::new().into_iter()
        };
        self.episode = Some((instance, follower));
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        if let Some(choice) = self.planned.next() {
            return vec![choice];
        }
        let (instance, follower) = self
            .episode
            .as_mut()
            .expect("the env resets the policy before its first decision");
        let gpus = instance.problem.gpus();
        let rows = choice_rows(observation, self.workload.spec.ready_tasks, gpus);
        let embeddings = instance.embeddings_of(follower.row_tasks(&instance.problem));
        let scores = decision_scores(&self.net, rows, embeddings, &self.device);
        let choice = argmax(&self.space, &scores, &observation.action_mask)[0];
        follower.chose(choice);
        vec![choice]
    }
}
