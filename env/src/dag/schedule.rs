//! Building a schedule a task at a time (insertion-based, as in HEFT: a task takes the
//! earliest idle gap on its GPU that starts after its data has arrived and is long enough),
//! and checking any schedule against the problem.

use super::problem::Problem;
use crate::error::{EnvError, Result};

/// Where and when every task runs (NaN start and finish while a task is not placed).
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub gpu: Vec<usize>,
    pub start: Vec<f64>,
    pub finish: Vec<f64>,
}

impl Schedule {
    /// The latest finish of a placed task (0 when none is).
    pub fn makespan_s(&self) -> f64 {
        self.finish
            .iter()
            .filter(|f| !f.is_nan())
            .fold(0.0, |a, &b| a.max(b))
    }

    /// Each job's completion time: its last task's finish less its release.
    pub fn job_completion_s(&self, problem: &Problem) -> Vec<f64> {
        let mut done = vec![0.0f64; problem.jobs.len()];
        let mut release = vec![f64::INFINITY; problem.jobs.len()];
        for (t, task) in problem.tasks.iter().enumerate() {
            done[task.job] = done[task.job].max(self.finish[t]);
            release[task.job] = release[task.job].min(task.release_s);
        }
        done.iter().zip(&release).map(|(d, r)| d - r).collect()
    }

    /// Every rule a schedule must keep: each task once, on a GPU it fits, for its execution
    /// time, not before its release nor before its parents' data has arrived, and no two
    /// tasks at once on a GPU. The first broken rule is the error.
    pub fn validate(&self, problem: &Problem) -> Result<()> {
        const SLACK: f64 = 1e-9;
        let n = problem.len();
        if self.gpu.len() != n || self.start.len() != n || self.finish.len() != n {
            return Err(EnvError::BrokenSchedule(format!(
                "{} entries for {n} tasks",
                self.gpu.len()
            )));
        }
        let name = |t: usize| &problem.tasks[t].name;
        for t in 0..n {
            let (g, s, f) = (self.gpu[t], self.start[t], self.finish[t]);
            if g >= problem.gpus() || !problem.fits(t, g) {
                return Err(EnvError::BrokenSchedule(format!(
                    "{} is on GPU {g}, which cannot hold it",
                    name(t)
                )));
            }
            let tolerance = SLACK * f.abs().max(1.0);
            if !s.is_finite() || (f - s - problem.exec_s(t, g)).abs() > tolerance {
                return Err(EnvError::BrokenSchedule(format!(
                    "{} runs {s}..{f} for {} s",
                    name(t),
                    problem.exec_s(t, g)
                )));
            }
            if s + tolerance < problem.release_s(t) {
                return Err(EnvError::BrokenSchedule(format!(
                    "{} starts at {s} before its release",
                    name(t)
                )));
            }
            for &(p, data) in problem.preds(t) {
                let arrives = self.finish[p] + problem.transfer_s(data, self.gpu[p], g);
                if s + tolerance < arrives {
                    return Err(EnvError::BrokenSchedule(format!(
                        "{} starts at {s} before {}'s data arrives at {arrives}",
                        name(t),
                        name(p)
                    )));
                }
            }
        }
        let mut by_gpu: Vec<Vec<usize>> = vec![Vec::new(); problem.gpus()];
        for t in 0..n {
            by_gpu[self.gpu[t]].push(t);
        }
        for (g, tasks) in by_gpu.iter_mut().enumerate() {
            tasks.sort_by(|&a, &b| self.start[a].total_cmp(&self.start[b]));
            for pair in tasks.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                if self.start[b] + SLACK * self.finish[a].abs().max(1.0) < self.finish[a] {
                    return Err(EnvError::BrokenSchedule(format!(
                        "{} and {} overlap on GPU {g}",
                        name(a),
                        name(b)
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A schedule under construction.
#[derive(Debug, Clone)]
pub struct Builder {
    schedule: Schedule,
    /// Per GPU, its busy intervals sorted by start.
    busy: Vec<Vec<(f64, f64)>>,
    placed: usize,
}

impl Builder {
    pub fn new(problem: &Problem) -> Self {
        let n = problem.len();
        Builder {
            schedule: Schedule {
                gpu: vec![usize::MAX; n],
                start: vec![f64::NAN; n],
                finish: vec![f64::NAN; n],
            },
            busy: vec![Vec::new(); problem.gpus()],
            placed: 0,
        }
    }

    /// Empties it for another schedule of the same problem, keeping its allocations.
    pub fn clear(&mut self) {
        self.schedule.gpu.fill(usize::MAX);
        self.schedule.start.fill(f64::NAN);
        self.schedule.finish.fill(f64::NAN);
        self.busy.iter_mut().for_each(Vec::clear);
        self.placed = 0;
    }

    pub fn placed(&self) -> usize {
        self.placed
    }
    pub fn is_placed(&self, task: usize) -> bool {
        self.schedule.gpu[task] != usize::MAX
    }
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }
    pub fn into_schedule(self) -> Schedule {
        self.schedule
    }
    /// When `gpu` has run everything placed on it so far.
    pub fn gpu_free_s(&self, gpu: usize) -> f64 {
        self.busy[gpu].last().map_or(0.0, |&(_, end)| end)
    }
    /// Seconds of work placed on `gpu`.
    pub fn gpu_busy_s(&self, gpu: usize) -> f64 {
        self.busy[gpu].iter().map(|(s, e)| e - s).sum()
    }
    pub fn makespan_s(&self) -> f64 {
        (0..self.busy.len())
            .map(|g| self.gpu_free_s(g))
            .fold(0.0, f64::max)
    }

    /// When `task`'s inputs are all on `gpu` (and it is released); its parents must be placed.
    #[inline]
    pub fn data_ready_s(&self, problem: &Problem, task: usize, gpu: usize) -> f64 {
        problem
            .preds(task)
            .iter()
            .map(|&(p, data)| {
                debug_assert!(self.is_placed(p), "parents are placed first");
                self.schedule.finish[p] + problem.transfer_s(data, self.schedule.gpu[p], gpu)
            })
            .fold(problem.release_s(task), later)
    }

    /// The earliest start of `task` on `gpu`: the first idle gap after its data arrives
    /// that holds it.
    pub fn earliest_start_s(&self, problem: &Problem, task: usize, gpu: usize) -> f64 {
        self.earliest_start_after_s(problem, task, gpu, self.data_ready_s(problem, task, gpu))
    }

    /// [`Self::earliest_start_s`] given when the data is there ([`Self::data_ready_s`]).
    pub fn earliest_start_after_s(
        &self,
        problem: &Problem,
        task: usize,
        gpu: usize,
        ready_s: f64,
    ) -> f64 {
        self.slot(problem, task, gpu, ready_s).0
    }

    /// The earliest start at or after `ready_s` and where its interval goes in the GPU's list.
    #[inline]
    fn slot(&self, problem: &Problem, task: usize, gpu: usize, ready_s: f64) -> (f64, usize) {
        let duration = problem.exec_s(task, gpu);
        let busy = &self.busy[gpu];
        let mut start = ready_s;
        // the first interval ending after the data arrives: a scan back from the end, since
        // tasks in rank order mostly land near it (cheaper than a binary search's branches)
        let mut at = busy
            .iter()
            .rposition(|&(_, end)| end <= start)
            .map_or(0, |i| i + 1);
        for &(s, e) in &busy[at..] {
            if s >= start + duration {
                break;
            }
            start = later(start, e);
            at += 1;
        }
        (start, at)
    }

    /// Earliest finish time of `task` on `gpu` (infinite where it does not fit).
    pub fn eft_s(&self, problem: &Problem, task: usize, gpu: usize) -> f64 {
        if !problem.fits(task, gpu) {
            return f64::INFINITY;
        }
        self.earliest_start_s(problem, task, gpu) + problem.exec_s(task, gpu)
    }

    /// The GPU of least earliest finish time, ties to the lower index.
    pub fn best_gpu(&self, problem: &Problem, task: usize) -> usize {
        (0..problem.gpus())
            .map(|g| (self.eft_s(problem, task, g), g))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("a problem has GPUs")
            .1
    }

    /// Places `task` on `gpu` at its earliest start; returns `(start, finish)`.
    pub fn place(&mut self, problem: &Problem, task: usize, gpu: usize) -> (f64, f64) {
        debug_assert!(problem.fits(task, gpu) && !self.is_placed(task));
        let ready = self.data_ready_s(problem, task, gpu);
        let (start, at) = self.slot(problem, task, gpu, ready);
        let finish = start + problem.exec_s(task, gpu);
        self.busy[gpu].insert(at, (start, finish));
        self.schedule.gpu[task] = gpu;
        self.schedule.start[task] = start;
        self.schedule.finish[task] = finish;
        self.placed += 1;
        (start, finish)
    }

    /// Places every task of `order` on its GPU in `assignment`: the env's executor, and the
    /// decoder of the metaheuristics' plans. Returns the makespan.
    pub fn play(&mut self, problem: &Problem, order: &[usize], assignment: &[usize]) -> f64 {
        self.clear();
        for &t in order {
            self.place(problem, t, assignment[t]);
        }
        self.makespan_s()
    }
}

/// The later of two times, which are never NaN here: one `maxsd`, where `f64::max`'s NaN
/// handling costs the decoder's hot loops several instructions more.
#[inline(always)]
fn later(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}
