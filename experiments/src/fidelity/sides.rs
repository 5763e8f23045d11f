//! A workload loaded twice from the one reading of its file, for the simulator and for real
//! execution, and the simulator again with calibrated settings on top.

use schedlab_env::execution::Execution;
use schedlab_env::workload_file::WorkloadFile;

use crate::workloads::Loaded;

/// The backend a fidelity or calibration run plays its real episodes on (`--execution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RealBackend {
    /// Processes in control groups schedlab makes on this machine.
    Real,
    /// A Slurm cluster (jobs workloads; `deploy/slurm/cluster.sh up N`).
    Slurm,
}

impl RealBackend {
    pub fn execution(self) -> Execution {
        match self {
            RealBackend::Real => Execution::Real,
            RealBackend::Slurm => Execution::Slurm,
        }
    }
}

/// A workload loaded for the simulator and for real execution.
pub struct Sides {
    pub(super) file: WorkloadFile,
    overrides: Vec<(String, String)>,
    pub sim: Loaded,
    pub real: Loaded,
}

impl Sides {
    /// Both sides of the workload file `file` (already read) under `overrides`, the real one
    /// on `execution`'s backend (`Real` or `Slurm`).
    pub fn of(
        file: &WorkloadFile,
        overrides: &[(String, String)],
        execution: Execution,
    ) -> anyhow::Result<Sides> {
        anyhow::ensure!(
            execution.is_real(),
            "the real side of a fidelity run executes for real: `real` or `slurm`, not `sim`"
        );
        let load = |execution: &str| {
            let mut all = overrides.to_vec();
            all.push(("execution".into(), execution.into()));
            crate::workloads::load_file(file, &all)
        };
        Ok(Sides {
            file: file.clone(),
            overrides: overrides.to_vec(),
            sim: load("sim")?,
            real: load(execution.name())?,
        })
    }

    /// The simulator with `settings` on top.
    pub(super) fn with(&self, settings: &[(String, String)]) -> anyhow::Result<Loaded> {
        let mut all = self.overrides.clone();
        all.extend(settings.iter().cloned());
        all.push(("execution".into(), "sim".into()));
        crate::workloads::load_file(&self.file, &all)
    }
}

#[cfg(test)]
mod tests {
    use schedlab_env::workload_file::reads_of;

    use super::*;

    /// `calibrate` and `fidelity` read their workload file once (`WorkloadFile::read`) and load
    /// both sides, and the calibrated simulator, from that text.
    #[test]
    fn both_sides_and_the_calibrated_simulator_load_without_reading_the_file_again() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data/workloads/philly-real.toml");
        let file = WorkloadFile::read(&path).unwrap();
        let after_read = reads_of(&path);
        let sides = Sides::of(&file, &[], Execution::Real).unwrap();
        sides
            .with(&[("episode.speed_factor".into(), "1.1".into())])
            .unwrap();
        assert_eq!(reads_of(&path), after_read);
        assert!(!sides.sim.executes_for_real());
        assert!(sides.real.executes_for_real());
    }
}
