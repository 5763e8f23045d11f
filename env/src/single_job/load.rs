//! Reading a single-job workload file: the TOML with its overrides, read once
//! (`crate::workload_file`), its sections checked (`checks.rs`), and the scenario loaded
//! from it, the kind's loaded form (`gym::Workload`).

use std::path::Path;
use std::sync::Arc;

use super::env::SingleJobEnv;
use super::scenario::Scenario;
use super::schema::SingleJobWorkload;
use crate::error::Result;
use crate::workload_file::WorkloadFile;

impl SingleJobWorkload {
    /// Reads and validates a workload file.
    pub fn load(path: &Path) -> Result<SingleJobWorkload> {
        Self::load_with_overrides(path, &[])
    }

    /// Reads a workload, then sets `key.path=value` overrides (TOML values; a bare word is
    /// taken as a string) before validating, as `--set` does on the command line.
    pub fn load_with_overrides(
        path: &Path,
        overrides: &[(String, String)],
    ) -> Result<SingleJobWorkload> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// [`Self::load_with_overrides`] of a file already read.
    pub fn load_file(
        file: &WorkloadFile,
        overrides: &[(String, String)],
    ) -> Result<SingleJobWorkload> {
        let workload: SingleJobWorkload = file.load_as(overrides)?;
        workload.check(&file.path)?;
        Ok(workload)
    }
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Arc<Scenario>> {
        Self::load_with_overrides(path, &[])
    }

    pub fn load_with_overrides(
        path: &Path,
        overrides: &[(String, String)],
    ) -> Result<Arc<Scenario>> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// The scenario of a file already read, with `overrides` set.
    pub fn load_file(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Arc<Scenario>> {
        let workload = SingleJobWorkload::load_file(file, overrides)?;
        Self::from_workload(&file.path, workload)
    }
}

impl crate::gym::Workload for Arc<Scenario> {
    type Env = SingleJobEnv;

    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        Scenario::load_file(file, overrides)
    }

    fn env(&self) -> Self::Env {
        SingleJobEnv::new(Arc::clone(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::EnvError;
    use crate::kinds::EnvKind;
    use crate::single_job::schema::OptimizerKind;
    use crate::testkit::{two_node_workload, write_workload};

    fn config_error(text: &str) -> (String, String) {
        let path = write_workload(text);
        match SingleJobWorkload::load(&path).unwrap_err() {
            EnvError::Config {
                path: p,
                key,
                message,
            } => {
                assert_eq!(p, path, "the error names the file");
                (key, message)
            }
            other => panic!("expected a config error, got {other}"),
        }
    }

    #[test]
    fn a_valid_workload_loads() {
        let w =
            SingleJobWorkload::load(&write_workload(&two_node_workload("hb_asgd", ""))).unwrap();
        assert_eq!(w.expanded_nodes().len(), 2);
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let (_, message) = config_error(&two_node_workload("hb_asgd", "learning_rate = 3"));
        assert!(
            message.contains("unknown field `learning_rate`"),
            "{message}"
        );
    }

    #[test]
    fn missing_fields_are_refused_by_name() {
        let text = two_node_workload("hb_asgd", "").replace("target_loss = 0.05\n", "");
        let (_, message) = config_error(&text);
        assert!(message.contains("missing field `target_loss`"), "{message}");
    }

    #[test]
    fn negative_capacities_name_the_node_and_field() {
        let text = two_node_workload("hb_asgd", "").replacen("cpu_cores = 4", "cpu_cores = -4", 1);
        let (key, message) = config_error(&text);
        assert_eq!(key, "nodes[0].cpu_cores");
        assert!(message.contains("-4"), "{message}");
    }

    /// GPUs come whole, as a jobs cluster's machines' do: a share of one is refused by name.
    #[test]
    fn a_fraction_of_a_gpu_is_refused_by_name() {
        let text = two_node_workload("hb_asgd", "").replacen(
            "cpu_cores = 4\n",
            "cpu_cores = 4\ngpus = 1.5\n",
            1,
        );
        let (_, message) = config_error(&text);
        assert!(
            message.contains("1.5") && message.contains("u32"),
            "{message}"
        );
        let whole = two_node_workload("hb_asgd", "").replacen(
            "cpu_cores = 4\n",
            "cpu_cores = 4\ngpus = 0\n",
            1,
        );
        assert!(SingleJobWorkload::load(&write_workload(&whole)).is_ok());
    }

    #[test]
    fn negative_reward_weights_name_the_key() {
        let text = two_node_workload("hb_asgd", "[reward]\nlambda_held_idle = -0.5");
        let (key, message) = config_error(&text);
        assert_eq!(key, "reward.lambda_held_idle");
        assert!(message.contains("-0.5"), "{message}");
    }

    #[test]
    fn a_missing_dataset_names_the_key() {
        let text = two_node_workload("hb_asgd", "").replace("digits.csv.gz", "nothere.csv");
        let (key, message) = config_error(&text);
        assert_eq!(key, "job.dataset.path");
        assert!(message.contains("nothere.csv"), "{message}");
    }

    #[test]
    fn overrides_set_nested_keys_and_are_validated() {
        let path = write_workload(&two_node_workload("hb_asgd", ""));
        let w = SingleJobWorkload::load_with_overrides(
            &path,
            &[
                ("job.optimizer".into(), "sync_sgd".into()),
                ("job.lr".into(), "0.5".into()),
            ],
        )
        .unwrap();
        assert_eq!((w.job.optimizer, w.job.lr), (OptimizerKind::SyncSgd, 0.5));
        let err = SingleJobWorkload::load_with_overrides(&path, &[("job.lr".into(), "-1".into())])
            .unwrap_err()
            .to_string();
        assert!(err.contains("job.lr"), "{err}");
        let err = SingleJobWorkload::load_with_overrides(&path, &[("nope.lr".into(), "1".into())])
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `nope`"), "{err}");
        let w = SingleJobWorkload::load_with_overrides(
            &path,
            &[("sim.latency_s".into(), "0.5".into())],
        )
        .unwrap();
        assert_eq!(w.sim.latency_s, 0.5, "a defaulted section can be set");
        // communication options name their key when they do not fit the optimiser
        for (key, value) in [
            ("job.backup_workers", "1"),
            ("job.compression", "{ kind = \"top-k\", ratio = 0.0 }"),
            ("job.compression", "{ kind = \"qsgd\", levels = 0 }"),
            ("job.momentum", "1.0"),
            ("job.dataset.validation_rows", "0"),
            ("job.eval_every", "0"),
            ("job.eval_every", "0s"),
            ("job.topology", "ring-all-reduce"),
            ("job.local_steps", "4"),
        ] {
            let err = SingleJobWorkload::load_with_overrides(&path, &[(key.into(), value.into())])
                .unwrap_err()
                .to_string();
            assert!(err.contains(key), "{key}: {err}");
        }
        let err = SingleJobWorkload::load_with_overrides(
            &path,
            &[
                ("job.optimizer".into(), "sync_sgd".into()),
                ("job.staleness_bound".into(), "2".into()),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("job.staleness_bound"), "{err}");
    }

    #[test]
    fn every_shipped_workload_validates() {
        let dir = crate::testkit::data_dir().join("workloads");
        let mut count = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            // other kinds (jobs, DAG) are checked by their own tests and the CLI tests
            let is_toml = path.extension().is_some_and(|e| e == "toml");
            if !is_toml || EnvKind::of_file(&path).unwrap() != EnvKind::SingleJob {
                continue;
            }
            SingleJobWorkload::load(&path).unwrap_or_else(|e| panic!("{e}"));
            count += 1;
        }
        assert!(count >= 3);
    }
}
