//! DAG workloads: DAGs of tasks (generated, or Alibaba v2018 jobs) placed on heterogeneous
//! GPUs.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schedlab_env::Step;
use schedlab_env::dag::{DagEnv, DagInfo, DagWorkload};

use super::Kind;

/// A DAG workload ready to make envs from.
pub struct Dag {
    pub workload: Arc<DagWorkload>,
    path: PathBuf,
}

impl From<(Arc<DagWorkload>, &Path)> for Dag {
    fn from((workload, path): (Arc<DagWorkload>, &Path)) -> Dag {
        Dag {
            workload,
            path: path.to_owned(),
        }
    }
}

impl Kind for Dag {
    fn name(&self) -> &str {
        self.workload.name()
    }
    fn env(&self) -> DagEnv {
        DagEnv::new(self.workload.clone())
    }
    fn describe(&self) -> String {
        format!(
            "{} ({}, up to {} tasks per episode on {} GPUs)",
            self.workload.name(),
            self.path.display(),
            self.workload.max_tasks(),
            self.workload.platform.gpus()
        )
    }
    fn summary(&self) -> anyhow::Result<String> {
        let w = &self.workload;
        let p = &w.platform;
        // GPU counts per type, in the order the types first appear
        let mut types: Vec<(&str, usize)> = Vec::new();
        for g in 0..p.gpus() {
            let name = p.type_of(g).name.as_str();
            match types.iter_mut().find(|(t, _)| *t == name) {
                Some((_, count)) => *count += 1,
                None => types.push((name, 1)),
            }
        }
        let types: Vec<String> = types.iter().map(|(t, n)| format!("{n} {t}")).collect();
        let mixed = w.spec.mix.as_ref().map_or(String::new(), |mix| {
            format!(", or with probability {} {:?} DAGs", mix.share, mix.dags)
        });
        let mut line = format!(
            "ok {}: {:?} DAGs{mixed}, up to {} tasks per episode, on {} GPUs ({}) in {} machines",
            w.name(),
            w.spec.dags,
            w.max_tasks(),
            p.gpus(),
            types.join(", "),
            p.machines()
        );
        for note in &w.notes {
            line.push_str(&format!("\n  {note}"));
        }
        Ok(line)
    }
    fn step_columns(&self) -> &'static str {
        "placed,task,gpu,start_s,finish_s,makespan_s,reward"
    }
    fn step_row(&self, step: &Step<DagInfo>) -> String {
        let i = &step.info;
        format!(
            "{},{},{},{},{},{},{}",
            i.placed,
            i.task,
            i.gpu.map_or(String::new(), |g| g.to_string()),
            i.start_s,
            i.finish_s,
            i.time_s,
            step.reward
        )
    }
    fn completion_times(&self, env: &DagEnv) -> Option<Vec<f64>> {
        let problem = env.problem()?;
        Some(env.schedule()?.job_completion_s(problem))
    }
}
