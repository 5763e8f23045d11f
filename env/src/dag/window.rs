//! The tasks a decision may place: the ready ones (every predecessor placed), in the env's
//! order ([`super::env_order`]). Shared by the env and by schedulers that follow its window
//! from their own choices (the learned DAG scheduler), so both see the same tasks per slot.

/// The env's order and which of its tasks are placed.
#[derive(Debug, Clone)]
pub struct ReadyWindow {
    order: Vec<usize>,
    placed: Vec<bool>,
    /// Where the first unplaced task of the order is.
    first_unplaced: usize,
}

impl ReadyWindow {
    /// Nothing placed yet, over `order` (topological: its first unplaced task is ready).
    pub fn new(order: Vec<usize>) -> Self {
        ReadyWindow {
            placed: vec![false; order.len()],
            order,
            first_unplaced: 0,
        }
    }

    /// The env's next task: the first unplaced one of the order.
    pub fn next_task(&self) -> usize {
        self.order[self.first_unplaced]
    }

    /// The first `k` ready tasks of the order, the next task first.
    pub fn tasks(&self, problem: &super::Problem, k: usize) -> Vec<usize> {
        self.order[self.first_unplaced..]
            .iter()
            .copied()
            .filter(|&t| !self.placed[t] && problem.preds(t).iter().all(|&(q, _)| self.placed[q]))
            .take(k)
            .collect()
    }

    pub fn mark_placed(&mut self, task: usize) {
        self.placed[task] = true;
        while self.first_unplaced < self.order.len() && self.placed[self.order[self.first_unplaced]]
        {
            self.first_unplaced += 1;
        }
    }

    pub fn is_done(&self) -> bool {
        self.first_unplaced == self.order.len()
    }
}
