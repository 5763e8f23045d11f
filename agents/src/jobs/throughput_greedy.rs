//! Throughput-greedy placement, heterogeneity-aware: queued jobs in arrival order at their
//! request, with backfilling, each on the GPU model where it runs fastest among those with
//! room for it (read from the observation's model groups); where no single model has room,
//! on any. On a workload without `[heterogeneity]` it is `static` (FIFO with backfilling).
//! `gavel-fifo` is the same without backfilling: Gavel's heterogeneity-aware FIFO
//! (Narayanan et al., 2020) starts jobs strictly in arrival order, each on its fastest model
//! with room; unlike Gavel's, which recomputes its allocation each round, it never moves a
//! running job.

use schedlab_env::EnvKind;
use schedlab_env::Observation;
use schedlab_env::jobs::observe::{FIELD_MODEL, FIELD_PLACEMENT, FIELD_WORKERS};

use super::placement::PLACEMENT;
use crate::context::{EnvContext, JobsContext, SlotView};
use crate::options::{Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "throughput-greedy",
    kinds: &[EnvKind::Jobs],
    help: "FIFO with backfilling, each job on the GPU model it runs fastest on that has room",
    options: &[PLACEMENT],
    build: |ctx, o| build(ctx, o, ROW.name, true),
};

pub const GAVEL_FIFO: SchedulerRow = SchedulerRow {
    name: "gavel-fifo",
    kinds: &[EnvKind::Jobs],
    help: "Gavel's heterogeneity-aware FIFO: strict arrival order, each job on the GPU model it runs fastest on that has room",
    options: &[PLACEMENT],
    build: |ctx, o| build(ctx, o, GAVEL_FIFO.name, false),
};

fn build(
    ctx: &EnvContext,
    o: &Options,
    name: &'static str,
    backfill: bool,
) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(ThroughputGreedy {
        name,
        ctx: JobsContext::part_of(ctx).clone(),
        placement: o.choice("placement"),
        backfill,
    }))
}

pub struct ThroughputGreedy {
    name: &'static str,
    ctx: JobsContext,
    /// Level 0 best-fit, 1 worst-fit, within the chosen model.
    placement: usize,
    /// Start later jobs when an earlier one does not fit.
    backfill: bool,
}

impl ThroughputGreedy {
    /// The model level (0: any) for `view`: its fastest model with room for `gpus`, as the mask
    /// and what this step has already given out (`free`) allow.
    fn model_for(
        &self,
        observation: &Observation,
        view: &SlotView,
        gpus: f64,
        free: &[f64],
    ) -> usize {
        let speeds = self.ctx.model_speeds(observation, view.slot);
        let mut order: Vec<usize> = (0..self.ctx.models()).collect();
        order.sort_by(|&a, &b| speeds[b].total_cmp(&speeds[a]));
        order
            .into_iter()
            .find(|&k| {
                free[k] + 1e-9 >= gpus
                    && self.ctx.allowed(observation, view.slot, FIELD_MODEL, k + 1)
            })
            .map_or(0, |k| k + 1)
    }
}

impl Policy for ThroughputGreedy {
    fn name(&self) -> &str {
        self.name
    }

    fn reset(&mut self, _seed: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let ctx = &self.ctx;
        let mut action = ctx.keep_all(observation);
        let start = ctx.requested_workers_level;
        let models = ctx.models();
        let mut free = if models > 0 {
            ctx.free_gpus_per_model(observation)
        } else {
            Vec::new()
        };
        // the window lists queued jobs in arrival order, and the env applies starts in slot order
        for slot in 0..ctx.slots() {
            let view = ctx.slot(observation, slot);
            if !view.queued() {
                continue;
            }
            if !ctx.allowed(observation, slot, FIELD_WORKERS, start) {
                if self.backfill {
                    continue;
                }
                break;
            }
            action[ctx.dim(slot, FIELD_WORKERS)] = start;
            action[ctx.dim(slot, FIELD_PLACEMENT)] = self.placement;
            let gpus = ctx.gpus_asked(&view, start);
            if models > 0 && gpus > 0.0 {
                let model = self.model_for(observation, &view, gpus, &free);
                action[ctx.dim(slot, FIELD_MODEL)] = model;
                if model > 0 {
                    free[model - 1] -= gpus;
                }
            }
        }
        action
    }
}

#[cfg(test)]
mod tests {
    use schedlab_env::jobs::throughputs::Throughputs;

    use super::super::crossing::{RECOMMENDATION, RESNET, matrix, play};

    /// Each job goes to the model it runs fastest on, so each runs at its best ratio, through
    /// either interface; FIFO with best-fit, model-blind, puts the first on the V100 and the
    /// second on the P100.
    #[test]
    fn each_job_runs_on_its_fastest_model_where_fifo_swaps_them() {
        let t = Throughputs::read(&matrix()).unwrap();
        let ratio = |model: &str, job_type: &str| {
            t.alone(model, false, job_type, 1).unwrap()
                / t.alone("v100", false, job_type, 1).unwrap()
        };
        let greedy = play("throughput-greedy", "per-slot");
        let fifo = play("fifo", "per-slot");
        // the one-choice interface offers the models too, and the adapter plays the same plan
        assert_eq!(play("throughput-greedy", "one-choice"), greedy);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6 * b;
        assert!(
            close(greedy[0], 100.0 / ratio("p100", RECOMMENDATION)),
            "{greedy:?}"
        );
        assert!(close(greedy[1], 100.0), "{greedy:?}");
        assert!(
            close(fifo[0], 100.0) && close(fifo[1], 100.0 / ratio("p100", RESNET)),
            "{fifo:?}"
        );
        assert!(greedy.iter().sum::<f64>() < fifo.iter().sum::<f64>());
        // the rows that read the throughputs (Gavel's, and RAES pricing each model's time)
        // place them as greedy does
        for policy in ["gavel-fifo", "gavel-max-min", "gavel-ftf", "raes"] {
            assert_eq!(play(policy, "per-slot"), greedy, "{policy}");
        }
    }
}
