//! What one episode of the learned DAG scheduler needs, greedy or sampled: the instance as
//! the network sees it, the env's window followed from the choices made, one decision's
//! scores and a choice drawn from them.

use burn::tensor::{Device, Tensor, TensorData};
use rand::rngs::StdRng;
use schedlab_env::ActionSpace;
use schedlab_env::dag::{Problem, ReadyWindow, env_order};

use super::inputs::{CHOICE_INPUTS, TaskInputs};
use super::network::DagGnn;
use crate::learned::masked::sample;

/// An episode's instance as the network sees it: its inputs and task embeddings.
pub struct GnnInstance {
    pub problem: Problem,
    pub inputs: TaskInputs,
    embeddings: Vec<f32>,
    width: usize,
}

impl GnnInstance {
    /// Embeds `problem`'s tasks with `net` (no gradients: on `device` without autodiff).
    pub fn new(net: &DagGnn, problem: Problem, device: &Device) -> Self {
        let inputs = TaskInputs::of(&problem);
        let embeddings = net
            .embed(&inputs, device)
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 embeddings");
        GnnInstance {
            problem,
            inputs,
            embeddings,
            width: net.embedding_width(),
        }
    }

    /// The embeddings of `tasks`, row after row.
    pub fn embeddings_of(&self, tasks: &[usize]) -> Vec<f32> {
        tasks
            .iter()
            .flat_map(|&t| &self.embeddings[t * self.width..(t + 1) * self.width])
            .copied()
            .collect()
    }
}

/// The env's window in one episode, followed from the choices made.
#[derive(Debug, Clone)]
pub struct Follower {
    window: ReadyWindow,
    ready_tasks: usize,
    gpus: usize,
    row_tasks: Vec<usize>,
}

impl Follower {
    pub fn new(problem: &Problem, ready_tasks: usize) -> Self {
        Follower {
            window: ReadyWindow::new(env_order(problem)),
            ready_tasks,
            gpus: problem.gpus(),
            row_tasks: Vec::new(),
        }
    }

    /// The task of each choice row of the decision at hand (task 0 in an empty slot, whose
    /// choices the mask hides).
    pub fn row_tasks(&mut self, problem: &Problem) -> &[usize] {
        let slots = match self.ready_tasks {
            0 => vec![self.window.next_task()],
            k => self.window.tasks(problem, k),
        };
        let k = self.ready_tasks.max(1);
        self.row_tasks = (0..k * self.gpus)
            .map(|row| slots.get(row / self.gpus).copied().unwrap_or(0))
            .collect();
        &self.row_tasks
    }

    /// Records choice `row` of the decision [`Follower::row_tasks`] last described.
    pub fn chose(&mut self, row: usize) {
        self.window.mark_placed(self.row_tasks[row]);
    }
}

/// One decision's scores: `rows` `[choices, CHOICE_INPUTS]` of the observation with the
/// embeddings of their tasks.
pub fn decision_scores(
    net: &DagGnn,
    rows: Vec<f32>,
    embeddings: Vec<f32>,
    device: &Device,
) -> Vec<f32> {
    let choices = rows.len() / CHOICE_INPUTS;
    let width = embeddings.len() / choices;
    let rows = Tensor::<2>::from_data(TensorData::new(rows, [choices, CHOICE_INPUTS]), device);
    let embeddings = Tensor::<2>::from_data(TensorData::new(embeddings, [choices, width]), device);
    net.score(rows, embeddings)
        .into_data()
        .try_into_vec::<f32>()
        .expect("f32 scores")
}

/// A choice drawn from the softmax of `scores` over the allowed ones.
pub fn sample_choice(
    space: &ActionSpace,
    scores: &[f32],
    mask: &[bool],
    rng: &mut StdRng,
) -> usize {
    // shifted by the largest allowed score so `exp` cannot overflow
    let top = scores
        .iter()
        .zip(mask)
        .filter(|(_, allowed)| **allowed)
        .map(|(s, _)| *s)
        .fold(f32::NEG_INFINITY, f32::max);
    let shifted: Vec<f32> = scores.iter().map(|s| s - top).collect();
    sample(space, &shifted, mask, rng)[0]
}
