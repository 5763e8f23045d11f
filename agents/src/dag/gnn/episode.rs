//! What one episode of the learned DAG scheduler needs, greedy or sampled: the instance as
//! the network sees it, the env's window followed from the choices made, one decision's
//! scores and a choice drawn from them, and the episodes of env copies stepped side by side
//! (sampled decoding, agents/src/dag/gnn/sampled.rs, and training, trainer/src/gnn.rs).

use burn::tensor::{Device, Tensor, TensorData};
use rand::rngs::StdRng;
use schedlab_env::dag::{Problem, ReadyWindow, env_order};
use schedlab_env::{ActionSpace, Environment, Step};

use super::inputs::{CHOICE_INPUTS, TaskInputs, choice_rows};
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

/// One decision of an episode: its choice rows, each row's task, the mask and the choice.
pub struct Decision {
    pub rows: Vec<f32>,
    pub row_tasks: Vec<usize>,
    pub mask: Vec<bool>,
    pub choice: usize,
}

/// Plays one episode of `net` on the instance of `seed` in each of `envs`, stepped side by
/// side with one forward pass per step for every live copy (`device` without autodiff).
/// `choose(copy, scores, mask)` picks each choice; `record(copy, decision, step)` sees what
/// was decided and what the env answered.
pub fn play_side_by_side<E: Environment>(
    envs: &mut [E],
    seed: u64,
    (net, instance, device): (&DagGnn, &GnnInstance, &Device),
    ready_tasks: usize,
    mut choose: impl FnMut(usize, &[f32], &[bool]) -> usize,
    mut record: impl FnMut(usize, Decision, &Step<E::Info>),
) -> schedlab_env::Result<()> {
    let gpus = instance.problem.gpus();
    let mut observations = Vec::with_capacity(envs.len());
    for env in envs.iter_mut() {
        observations.push(env.reset(seed)?.0);
    }
    let mut followers = vec![Follower::new(&instance.problem, ready_tasks); envs.len()];
    let mut live: Vec<usize> = (0..envs.len()).collect();
    while !live.is_empty() {
        let mut rows: Vec<Vec<f32>> = Vec::with_capacity(live.len());
        let mut row_tasks: Vec<Vec<usize>> = Vec::with_capacity(live.len());
        for &c in &live {
            rows.push(choice_rows(&observations[c], ready_tasks, gpus));
            row_tasks.push(followers[c].row_tasks(&instance.problem).to_vec());
        }
        let embeddings: Vec<f32> = row_tasks
            .iter()
            .flat_map(|tasks| instance.embeddings_of(tasks))
            .collect();
        let scores = decision_scores(net, rows.concat(), embeddings, device);
        let width = scores.len() / live.len();
        let mut still = Vec::with_capacity(live.len());
        for (k, &c) in live.iter().enumerate() {
            let mask = std::mem::take(&mut observations[c].action_mask);
            let choice = choose(c, &scores[k * width..(k + 1) * width], &mask);
            followers[c].chose(choice);
            let step = envs[c].step(&[choice])?;
            let decision = Decision {
                rows: std::mem::take(&mut rows[k]),
                row_tasks: std::mem::take(&mut row_tasks[k]),
                mask,
                choice,
            };
            let ended = step.terminated || step.truncated;
            record(c, decision, &step);
            if !ended {
                observations[c] = step.observation;
                still.push(c);
            }
        }
        live = still;
    }
    Ok(())
}
