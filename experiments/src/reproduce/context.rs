//! What every section of `schedlab reproduce` shares: where its sweeps, figures and document
//! go, the protocol, and the arithmetic over sweep rows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::protocol::Protocol;
use crate::output::{number, p_text, write_atomic};
use crate::stats::{paired, summarize, wilcoxon};
use crate::sweep::journal::Row;
use crate::sweep::run::{SweepOptions, forget_policies_not_in, run as run_sweep};
use crate::sweep::spec::{Shard, SweepSpec};

/// The command line's choices.
pub struct Settings {
    /// Seeds 0..N per cell.
    pub seeds: u64,
    /// Rounds of PPO and DQN training for table1.
    pub steps: u64,
    /// Sweep folders.
    pub out: PathBuf,
    /// The document to (re)write.
    pub doc: PathBuf,
    /// Where the figures go (linked from the document by relative path).
    pub figures: PathBuf,
    /// The protocol file; None: the shipped one (`data/experiments/reproduce.toml`).
    pub protocol: Option<PathBuf>,
    /// Play finished training runs of the output folder whatever sources trained them.
    pub reuse_runs: bool,
}

/// The chosen learning rate per optimiser.
pub type Tuned = BTreeMap<String, f64>;

pub struct Context<'a> {
    pub args: &'a Settings,
    pub protocol: Protocol,
    /// The single-job workload's file.
    pub paper: PathBuf,
}

impl Context<'_> {
    pub fn seeds(&self) -> Vec<u64> {
        (0..self.args.seeds).collect()
    }

    /// Runs `spec` in its folder of the output; rows of policies the spec no longer names (a
    /// protocol's scheduler whose spec changed) are dropped first, so the rest are kept.
    pub fn sweep(&self, spec: &SweepSpec) -> anyhow::Result<Vec<Row>> {
        println!("sweep {}: {} episodes", spec.name, spec.grid().len());
        // a protocol builds its specs in code, so they are checked here as a spec file would be
        spec.check()
            .with_context(|| format!("sweep `{}`", spec.name))?;
        forget_policies_not_in(&self.args.out.join(&spec.name), spec)?;
        let rows = run_sweep(
            spec,
            &SweepOptions {
                out: self.args.out.join(&spec.name),
                shard: Shard::WHOLE,
                runs: self.args.out.join(&spec.name).join("runs"),
                jobs: None,
                // a section's rows are this build's: those of other sources are played again
                replay_other_sources: true,
            },
        )?;
        write_atomic(
            &self.args.out.join(&spec.name).join("spec.toml"),
            toml::to_string(spec)?.as_bytes(),
        )?;
        Ok(rows)
    }

    pub fn figure(&self, name: &str) -> anyhow::Result<PathBuf> {
        std::fs::create_dir_all(&self.args.figures)?;
        Ok(self.args.figures.join(name))
    }

    /// The figure's path as the document links it.
    pub fn link(&self, name: &str) -> String {
        let doc_dir = self.args.doc.parent().unwrap_or(Path::new(""));
        let fig = self.args.figures.join(name);
        fig.strip_prefix(doc_dir)
            .unwrap_or(&fig)
            .display()
            .to_string()
    }

    pub fn command(&self, target: &str) -> String {
        format!(
            "schedlab reproduce {target} --seeds {} --steps {}",
            self.args.seeds, self.args.steps
        )
    }

    /// The single-job workload with `optimizer` at `lr` and the protocol's rounds.
    pub fn optimizer_set(&self, optimizer: &str, lr: f64) -> BTreeMap<String, toml::Value> {
        BTreeMap::from([
            (
                "job.optimizer".to_owned(),
                toml::Value::String(optimizer.into()),
            ),
            ("job.lr".to_owned(), toml::Value::Float(lr)),
            (
                "episode.round_interval_s".to_owned(),
                toml::Value::Float(self.protocol.round_s),
            ),
            (
                "episode.max_rounds".to_owned(),
                toml::Value::Integer(self.protocol.max_rounds),
            ),
        ])
    }

    /// Each optimiser at its tuned learning rate, by optimiser name.
    pub fn optimizer_sets(&self, tuned: &Tuned) -> BTreeMap<String, BTreeMap<String, toml::Value>> {
        self.protocol
            .optimizers
            .iter()
            .map(|o| (o.name.clone(), self.optimizer_set(&o.name, tuned[&o.name])))
            .collect()
    }

    /// The optimisers by a metric's mean (static allocation), smallest first:
    /// (mean, name, label).
    pub fn ordered(&self, rows: &[Row], metric: &str) -> Vec<(f64, String, String)> {
        let mut order: Vec<_> = self
            .protocol
            .optimizers
            .iter()
            .map(|o| {
                (
                    mean(&values(rows, "static", &o.name, metric)),
                    o.name.clone(),
                    o.label.clone(),
                )
            })
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        order
    }
}

/// A metric's values over seeds for one policy and override set.
pub fn values(rows: &[Row], policy: &str, overrides: &str, metric: &str) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.key.policy == policy && r.key.overrides == overrides)
        .filter_map(|r| r.metrics.iter().find(|(n, _)| n == metric).map(|m| m.1))
        .collect()
}

/// One cell against a reference cell on one metric, their episodes paired by seed: a sweep
/// plays every cell on the same seeds in the same order ([`values`] keeps the grid's order),
/// and a seed fixes what an episode is dealt (data split, background load, arrivals) whatever
/// the policy, so a paired test removes the seeds' difficulty that Welch's test counts as
/// noise. Wilcoxon's signed-rank test assumes no normality, but with 5 seeds its smallest
/// two-sided p is 0.0625; the paired t-test's p is given beside it.
pub struct PairedP {
    pub wilcoxon: f64,
    pub t: f64,
}

pub fn paired_p(v: &[f64], reference: &[f64]) -> PairedP {
    PairedP {
        wilcoxon: wilcoxon(v, reference),
        t: paired(v, reference),
    }
}

impl PairedP {
    /// `p=0.062; p=0.004`, for a column headed `p (Wilcoxon; paired t)`.
    pub fn cell(&self) -> String {
        if self.wilcoxon.is_nan() && self.t.is_nan() {
            return String::new();
        }
        format!("{}; {}", p_text(self.wilcoxon), p_text(self.t))
    }

    /// `Wilcoxon p=0.062, paired t p=0.004`, for prose.
    pub fn prose(&self) -> String {
        format!(
            "Wilcoxon {}, paired t {}",
            p_text(self.wilcoxon),
            p_text(self.t)
        )
    }
}

/// `mean ± ci95` of values.
pub fn mean_ci(v: &[f64]) -> String {
    let s = summarize(v);
    format!("{} ± {}", number(s.mean), number(s.ci95))
}

pub fn mean(v: &[f64]) -> f64 {
    summarize(v).mean
}

/// Mean virtual seconds per parameter-server update of an optimiser's episodes.
pub fn seconds_per_update(rows: &[Row], optimizer: &str) -> f64 {
    let time = values(rows, "static", optimizer, "completion_time_s");
    let updates = values(rows, "static", optimizer, "iterations");
    let per: Vec<f64> = time
        .iter()
        .zip(&updates)
        .filter(|(_, u)| **u > 0.0)
        .map(|(t, u)| t / u)
        .collect();
    mean(&per)
}

/// `A (1) < B (2) < ...`
pub fn ranked(order: &[(f64, String, String)]) -> String {
    order
        .iter()
        .map(|(v, _, label)| format!("{label} ({})", number(*v)))
        .collect::<Vec<_>>()
        .join(" < ")
}

#[cfg(test)]
mod tests {
    use super::paired_p;
    use crate::stats::welch;

    #[test]
    fn pairing_by_seed_removes_the_seeds_difficulty_that_welch_counts_as_noise() {
        // every seed one second slower than the reference on that seed, the seeds 10 s apart
        let reference = [10.0, 20.0, 30.0, 40.0, 50.0];
        let slower: Vec<f64> = reference.iter().map(|t| t + 1.0 + t / 1000.0).collect();
        assert!(welch(&slower, &reference).2 > 0.8);
        let p = paired_p(&slower, &reference);
        assert!(p.t < 0.001, "{}", p.t);
        // five pairs all one way: Wilcoxon's smallest two-sided p
        assert_eq!(p.wilcoxon, 0.0625);
        assert_eq!(p.cell(), "p=0.062; p<0.001");
        assert_eq!(p.prose(), "Wilcoxon p=0.062, paired t p<0.001");
        assert_eq!(paired_p(&slower, &reference[..4]).cell(), "");
    }
}
