//! Network workloads: computing centres sharing a CPU demand and training by consensus.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schedlab_env::Step;
use schedlab_env::network::{NetworkEnv, NetworkInfo, NetworkWorkload};

use super::Kind;

/// A network workload ready to make envs from.
pub struct Network {
    pub workload: Arc<NetworkWorkload>,
    path: PathBuf,
}

impl From<(Arc<NetworkWorkload>, &Path)> for Network {
    fn from((workload, path): (Arc<NetworkWorkload>, &Path)) -> Network {
        Network {
            workload,
            path: path.to_owned(),
        }
    }
}

impl Kind for Network {
    fn name(&self) -> &str {
        self.workload.name()
    }
    fn env(&self) -> NetworkEnv {
        NetworkEnv::new(self.workload.clone())
    }
    fn describe(&self) -> String {
        let w = &self.workload;
        format!(
            "{} ({}, {} centres, {} edges, {} iterations)",
            w.name(),
            self.path.display(),
            w.centres(),
            w.base.edges().len(),
            w.spec.episode.iterations
        )
    }
    fn summary(&self) -> anyhow::Result<String> {
        let w = &self.workload;
        let spectrum = w.base.laplacian_spectrum();
        let mut line = format!(
            "ok {}: {} centres, demand {} CPUs, {:?} graph of {} edges (algebraic connectivity {:.4}, {:?}), channel {:?} ({} bits a message), {} model on {} rows x {} features, {} iterations",
            w.name(),
            w.centres(),
            w.demand(),
            w.spec.graph.shape,
            w.base.edges().len(),
            spectrum.get(1).copied().unwrap_or(0.0),
            w.spec.graph.switching,
            w.spec.channel,
            w.spec.channel.bits(),
            schedlab_env::model::Model::name(&*w.model),
            w.data.len(),
            w.data.features.cols(),
            w.spec.episode.iterations
        );
        if w.dropped_rows > 0 {
            line += &format!(", {} rows dropped for missing values", w.dropped_rows);
        }
        Ok(line)
    }
    fn step_columns(&self) -> &'static str {
        "iteration,cost_gap,residual,bits,time_s,reward"
    }
    fn step_row(&self, step: &Step<NetworkInfo>) -> String {
        let i = &step.info;
        format!(
            "{},{},{},{},{},{}",
            i.iteration, i.cost_gap, i.residual, i.bits, i.time_s, step.reward
        )
    }
}
