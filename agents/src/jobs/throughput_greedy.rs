//! Throughput-greedy placement, heterogeneity-aware: queued jobs in arrival order at their
//! request, with backfilling, each on the GPU model where it runs fastest among those with
//! room for it (read from the observation's model groups); where no single model has room,
//! on any. On a workload without `[heterogeneity]` it is `static` (FIFO with backfilling).

use schedlab_env::EnvKind;
use schedlab_env::Observation;
use schedlab_env::jobs::observe::{FIELD_MODEL, FIELD_PLACEMENT, FIELD_WORKERS};

use super::placement::PLACEMENT;
use crate::context::{JobsContext, SlotView};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "throughput-greedy",
    kinds: &[EnvKind::Jobs],
    help: "FIFO with backfilling, each job on the GPU model it runs fastest on that has room",
    options: &[PLACEMENT],
    build: |ctx, o| {
        Ok(Box::new(ThroughputGreedy {
            ctx: JobsContext::part_of(ctx).clone(),
            placement: o.choice("placement"),
        }))
    },
};

pub struct ThroughputGreedy {
    ctx: JobsContext,
    /// Level 0 best-fit, 1 worst-fit, within the chosen model.
    placement: usize,
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
        ROW.name
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
            if !view.queued() || !ctx.allowed(observation, slot, FIELD_WORKERS, start) {
                continue;
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
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use schedlab_env::jobs::throughputs::Throughputs;
    use schedlab_env::jobs::{JobsEnv, JobsWorkload};

    use crate::context::{EnvContext, JobsContext};
    use crate::registry;
    use crate::rollout::run_episode;

    const RECOMMENDATION: &str = "Recommendation (batch size 2048)";
    const RESNET: &str = "ResNet-50 (batch size 64)";

    fn matrix() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data/throughputs/gavel/simulation_throughputs.json")
    }

    /// A V100 machine (machine 0) and a P100 one, one GPU each; a recommendation job and then
    /// a ResNet-50 one, whose faster models cross (P100 and V100), 100 s each on the reference
    /// V100.
    fn crossing(interface: &str) -> JobsWorkload {
        let machine = |model: &str| {
            format!(
                "[[machines]]\nname = \"{model}\"\ncount = 1\ncpu_cores = 8.0\nmem_gb = 16.0\ngpus = 1\ngpu_model = \"{model}\"\n"
            )
        };
        let template = |name: &str, job_type: &str| {
            format!(
                "[[templates]]\nname = \"{name}\"\ncontention = 0.0\nsize_exponent = 1.0\nutilisation = [0.5, 0.5, 0.5]\njob_type = \"{job_type}\"\n"
            )
        };
        let job = |id: &str, template: &str| {
            format!(
                "[[jobs]]\nid = \"{id}\"\narrival_s = 0.0\nduration_s = 100.0\nworkers = 1\ncpu_milli = 1000\nmem_mib = 1024\ngpu_milli = 1000\ntemplate = \"{template}\"\n"
            )
        };
        let text = format!(
            "kind = \"jobs\"\nname = \"crossing\"\n[episode]\ndecision_interval_s = 0.0\nmax_time_s = 100000.0\nspeed_sigma = 0.0\n[window]\nqueued = 2\nrunning = 2\ninterface = \"{interface}\"\n[heterogeneity]\nthroughputs = {:?}\nreference_model = \"v100\"\n[heterogeneity.models]\nV100 = {{ measured = \"v100\" }}\nP100 = {{ measured = \"p100\" }}\n{}{}{}{}{}{}",
            matrix().display().to_string(),
            machine("V100"),
            machine("P100"),
            template("rec", RECOMMENDATION),
            template("resnet", RESNET),
            job("a", "rec"),
            job("b", "resnet"),
        );
        let file = std::env::temp_dir().join(format!("greedy-{}.toml", std::process::id()));
        std::fs::write(&file, text).unwrap();
        let w = JobsWorkload::load(&file, &[]).unwrap();
        std::fs::remove_file(&file).unwrap();
        w
    }

    fn play(policy: &str, interface: &str) -> Vec<f64> {
        let mut env = JobsEnv::new(Arc::new(crossing(interface)));
        let ctx = EnvContext::Jobs(JobsContext::of(&env));
        let mut policy = registry::build(policy, &ctx, &[]).unwrap();
        let m = run_episode(&mut env, policy.as_mut(), 0).unwrap();
        assert_eq!(m.finished, 2);
        env.completion_times()
    }

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
    }
}
