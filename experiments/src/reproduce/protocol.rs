//! The data of `schedlab reproduce`: its protocol and the reference paper's figures, read from
//! `data/experiments/reproduce.toml` (each figure written once, there).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use serde::Deserialize;

/// The file this reads, relative to the repository's `data/`.
pub const PROTOCOL_FILE: &str = "experiments/reproduce.toml";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Protocol {
    /// The single-job workload of every single-job section, in `data/workloads/`.
    pub workload: String,
    /// The jobs workload of table1's second half.
    pub jobs_workload: String,
    /// Scheduling rounds of the single-job sections (virtual seconds), and their number.
    pub round_s: f64,
    pub max_rounds: i64,
    pub tuning: Tuning,
    pub optimizers: Vec<Optimizer>,
    pub table1: Table1,
    pub table2: Table2,
    pub dag: DagProtocol,
    pub network: NetworkProtocol,
    pub communication: CommunicationProtocol,
    pub learned: LearnedProtocol,
    pub heterogeneity: HeterogeneityProtocol,
    pub fidelity: FidelityProtocol,
    pub learners: LearnersProtocol,
    pub leaderboard: LeaderboardProtocol,
}

/// The leaderboard: entries scored on every suite they play (docs/benchmark.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardProtocol {
    /// Where each result goes, as `RESULTS/SUITE/ENTRY.json`, and the table made of them.
    pub results: String,
    pub document: String,
    /// The suite and heuristic whose scoring time the section reports (issue 69's bar).
    pub timed_suite: String,
    pub timed_policy: String,
    pub suites: Vec<LeaderboardSuite>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardSuite {
    pub id: String,
    /// Heuristics (options inline) and shipped trained policies.
    pub entries: Vec<String>,
    /// The entries that play on real processes too, where this machine can.
    #[serde(default)]
    pub real: Vec<String>,
    /// Why a heuristic of the suite's kind is not an entry (Markdown).
    #[serde(default)]
    pub left_out: String,
}

/// The heterogeneity section: heterogeneity-aware schedulers against model-blind ones on the
/// heterogeneous workloads' held-out windows (issue 68).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeterogeneityProtocol {
    /// Model-blind schedulers (with inline options), the baseline among them.
    pub agnostic: Vec<String>,
    /// Heterogeneity-aware schedulers.
    pub aware: Vec<String>,
    /// What every row is paired against.
    pub baseline: String,
    /// Seeds 0..N of every window.
    pub eval_seeds: u64,
    /// Overrides of every episode.
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    pub traces: Vec<HeterogeneityTrace>,
    /// Gavel's published figures for the same comparison, and what differs (Markdown).
    pub paper: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeterogeneityTrace {
    pub name: String,
    /// The folder of held-out windows, in `data/workloads/`.
    pub heldout: String,
    /// Trained policies shipped for this trace (data/policies/), trained on its family alone.
    #[serde(default)]
    pub shipped: Vec<String>,
    /// Other mappings of models to play the same windows under.
    #[serde(default)]
    pub sensitivity: Vec<SensitivityCase>,
}

/// A stated assumption varied: its name and the overrides that vary it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitivityCase {
    pub name: String,
    pub set: BTreeMap<String, toml::Value>,
}

/// The learners section: PPO, DQN and A2C on tasks with known answers beside reference
/// implementations' curves at the same settings (issue 67).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnersProtocol {
    /// Workloads in `data/workloads/`, each a task the references also ran (by file stem).
    pub tasks: Vec<String>,
    /// Env steps per point of a learning curve: the mean return of the training episodes that
    /// ended in it.
    pub bin_steps: u64,
    /// Greedy episodes played by each trained run at the end.
    pub greedy_episodes: u64,
    /// The reference implementations, in order of preference: a learner is measured against
    /// the first that recorded runs of its agent's name, and set beside all of them.
    pub references: Vec<LearnersReference>,
    pub learners: Vec<LearnedRun>,
}

/// One reference implementation's recorded curves and runs, in `data/`
/// (`examples/record_cleanrl_reference.py`, `examples/record_sb3_reference.py`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnersReference {
    pub name: String,
    pub curves: String,
    pub runs: String,
}

/// The fidelity section: policies played in the simulator and on real processes (issue 55).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FidelityProtocol {
    /// Seeds of the compared episodes, and of the calibration's (apart from them).
    pub seeds: Vec<u64>,
    pub calibrate_seeds: Vec<u64>,
    /// The single-job workload's learned scheduler, trained on it.
    pub learner: LearnedRun,
    pub single_job: FidelityCase,
    pub jobs: FidelityCase,
    /// The jobs window through Slurm, where a cluster answers.
    pub slurm: Option<FidelityCase>,
}

/// One workload of the fidelity section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FidelityCase {
    /// In `data/workloads/`.
    pub workload: String,
    pub policies: Vec<String>,
    /// The policies of the calibration's real episodes.
    pub calibrate: Vec<String>,
    /// Workload settings of every episode, real and simulated.
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
}

/// The learned section: learners trained on each trace's training family against the best
/// heuristic on the trace's held-out windows (issue 15).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnedProtocol {
    /// The heuristics; the one with the lowest mean JCT on a trace's windows is its bar.
    pub heuristics: Vec<String>,
    /// Shipped trained schedulers (`data/policies/`) played beside them on every trace.
    pub shipped: Vec<String>,
    /// Seeds 0..N of every held-out window.
    pub eval_seeds: u64,
    /// Overrides of every evaluation episode (the interface the learners were trained on).
    pub set: BTreeMap<String, toml::Value>,
    /// Wall-clock seconds a learner may train, warm start included.
    pub budget_s: f64,
    /// Greedy evaluation episodes on the family while training (0: none, all time trains).
    pub train_eval_episodes: usize,
    /// Validation: every policy plays the family on seeds 0..N (windows of the training
    /// period; training draws its episodes on other seeds), which picks what ships.
    pub validation_episodes: u64,
    /// Episodes in the training curves' moving average.
    pub training_smoothing: usize,
    pub traces: Vec<LearnedTrace>,
    pub learners: Vec<LearnedRun>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnedTrace {
    pub name: String,
    /// The training family, in `data/workloads/`.
    pub family: String,
    /// The folder of held-out windows, in `data/workloads/`.
    pub heldout: String,
    /// A folder of windows from a still later period, in `data/workloads/`: a second test set
    /// cut after the held-out results were known, reported beside the bar.
    #[serde(default)]
    pub later: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnedRun {
    pub label: String,
    pub agent: String,
    /// Env rounds of RL after any warm start (0: the clone alone).
    pub steps: u64,
    /// Hyperparameters as `schedlab train --set` takes them (`warm_start` included).
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    /// Settings of the training workload (dotted keys, as `schedlab train --set` takes them),
    /// such as `reward.remaining_potential`; the windows a policy is evaluated on are played as
    /// they are.
    #[serde(default)]
    pub workload_set: BTreeMap<String, toml::Value>,
    /// Training seeds, each its own run and row.
    #[serde(default = "first_seed")]
    pub seeds: Vec<u64>,
    /// A DAG learner's training workload in `data/workloads/` (default: the section's
    /// generated one); jobs learners train on each trace's family and take none.
    #[serde(default)]
    pub workload: Option<String>,
    /// A DAG learner's inline play options: each trained run is also played with each, in a
    /// row of its own (`episodes=1024`: the learned DAG scheduler's sampled decoding).
    #[serde(default)]
    pub play: Vec<String>,
}

fn first_seed() -> Vec<u64> {
    vec![0]
}

/// The communication section: optimisers and topologies x compression x bandwidth (issue 18).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommunicationProtocol {
    pub configurations: Vec<CommunicationConfig>,
    /// Compressions by label, each a `job.compression` value; the first is the uncompressed
    /// reference of the p-values.
    pub compressions: Vec<(String, String)>,
    /// `sim.bandwidth_scale` values; the last is the tight one.
    pub bandwidth_scales: Vec<f64>,
    /// Schedulers compared per bandwidth with the first configuration, uncompressed;
    /// `train:AGENT` is trained at each bandwidth first.
    pub policies: Vec<String>,
    /// Rounds each `train:AGENT` of `policies` trains per bandwidth.
    pub train_steps: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommunicationConfig {
    pub label: String,
    pub optimizer: String,
    /// The optimiser whose tuned rate it takes (default: its own).
    #[serde(default)]
    pub rate_of: Option<String>,
    /// Further `job` overrides (`job.local_steps`, `job.topology`).
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
}

/// The network section: allocation dynamics and consensus training (issue 17).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkProtocol {
    pub centres: usize,
    pub edge_probability: f64,
    /// Range the centres' upper bounds are drawn from.
    pub max_cpus: (f64, f64),
    pub demand_per_centre: f64,
    /// Log quantisers' rho (each also run as the uniform quantiser with its bits).
    pub rhos: Vec<f64>,
    pub dropout: f64,
    pub dropout_period: usize,
    pub redraw_every: usize,
    /// Iterations at which the gap is recorded; the last ends the run.
    pub checkpoints: Vec<usize>,
    pub training_centres: usize,
    pub training_iterations: usize,
    pub training_step: f32,
    /// Shipped network workloads the schedulers are compared on, through the env.
    pub env_workloads: Vec<String>,
    pub env_policies: Vec<String>,
    /// The scheduler the others are tested against (the literature's baseline).
    pub env_reference: String,
}

/// The DAG section: schedulers against WORL-RTGS (Du et al. 2025).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DagProtocol {
    /// The generated workload of the size, heterogeneity and bandwidth axes, in
    /// `data/workloads/`.
    pub workload: String,
    /// Real DAGs on the same platform (the DDQN's observation fixes the GPU count), of a
    /// period no learner trained on.
    pub trace_workload: String,
    /// Real DAGs of the SPD-FTG study.
    pub correlation_workload: String,
    pub policies: Vec<String>,
    /// The scheduler every other is tested against.
    pub reference: String,
    /// WORL-RTGS's default guide (a shipped policy) and what it was trained on, as the
    /// document says it.
    pub guide: String,
    pub guide_trained_on: String,
    /// Plan evaluations of GA, WOA and WORL-RTGS.
    pub evaluations: usize,
    pub tasks: Vec<usize>,
    /// Tasks on the heterogeneity and bandwidth axes and in the stability study.
    pub sweep_tasks: usize,
    pub heterogeneity: Vec<f64>,
    pub inter_mbps: Vec<f64>,
    pub correlation_shares: Vec<f64>,
    pub correlation_per_share: usize,
    /// Searches per instance in the stability study.
    pub search_seeds: u64,
    /// Baseline sets of the headline, by name.
    pub baseline_sets: Vec<(String, Vec<String>)>,
    pub paper_reduction_percent: f64,
    /// The scheduler a learned one must beat (issue 36's DAG bar): every row is compared
    /// with it, paired on the same instances.
    pub bar_baseline: String,
    /// Settings (as the headline names them) the bar reads one by one.
    pub bar_settings: Vec<String>,
    /// Learners trained by the section on `workload`, each seed its own run and row.
    pub learners: Vec<LearnedRun>,
    /// Greedy evaluation episodes on the training workload at the end of each training.
    pub train_eval_episodes: usize,
    /// Played only in the wall-time table, after `policies`: shipped learned schedulers and
    /// their play options (`dag-gnn:episodes=1024`).
    #[serde(default)]
    pub timed: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tuning {
    pub seeds: Vec<u64>,
    pub sgd_lrs: Vec<f64>,
    pub adam_lrs: Vec<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Optimizer {
    pub name: String,
    pub label: String,
    /// Fig. 2's iterations to target, as the paper prints it.
    #[serde(default)]
    pub paper_iterations: Option<String>,
    /// Its own learning-rate grid (default: `tuning.adam_lrs` for Adam, else `sgd_lrs`).
    #[serde(default)]
    pub lrs: Option<Vec<f64>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table1 {
    pub policies: Vec<String>,
    /// Workload settings the `train:*` policies train under (a shaped reward), beside the
    /// optimiser's; every policy is measured without them.
    #[serde(default)]
    pub learner_set: BTreeMap<String, toml::Value>,
    pub jobs_policies: Vec<String>,
    pub training_smoothing: usize,
    /// Per scheduler, the paper's GPU utilisation and fragmentation (percent).
    pub paper: BTreeMap<String, PaperResourceUse>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperResourceUse {
    pub gpu_util: f64,
    pub fragmentation: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table2 {
    pub policies: Vec<String>,
    /// Learned agents (table1's `train:*` policies, trained on HB-ASGD) given rows of their own
    /// with HB-ASGD, from table1's episodes: the same workload, optimiser set and seeds.
    #[serde(default)]
    pub learned: Vec<Table2Learned>,
    /// Seeds no training or tuning uses, on which the learned agents are played again beside
    /// HB-ASGD + static and + RAES.
    #[serde(default)]
    pub unseen_seeds: Vec<u64>,
    /// The row the ratios divide by.
    pub reference: String,
    pub rows: Vec<Table2Row>,
}

/// A learned agent's row of table2.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table2Learned {
    pub label: String,
    pub policy: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table2Row {
    pub label: String,
    pub optimizer: String,
    pub policy: String,
    pub paper_hours: f64,
}

/// The paper's optimiser, the only one of table1 (whose question is the schedulers').
pub const HB_ASGD: &str = "hb_asgd";

impl Protocol {
    /// Reads and checks the protocol file at `path`.
    pub fn load(path: &Path) -> anyhow::Result<Protocol> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let protocol: Protocol =
            toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
        protocol
            .check()
            .with_context(|| format!("{}", path.display()))?;
        Ok(protocol)
    }

    fn check(&self) -> anyhow::Result<()> {
        let names: Vec<&str> = self.optimizers.iter().map(|o| o.name.as_str()).collect();
        anyhow::ensure!(
            names.contains(&HB_ASGD),
            "`optimizers` must include `{HB_ASGD}`, the paper's"
        );
        for row in &self.table2.rows {
            anyhow::ensure!(
                names.contains(&row.optimizer.as_str()),
                "table2 row `{}`: unknown optimizer `{}`",
                row.label,
                row.optimizer
            );
            anyhow::ensure!(
                self.table2.policies.contains(&row.policy),
                "table2 row `{}`: policy `{}` is not in table2.policies",
                row.label,
                row.policy
            );
        }
        for learned in &self.table2.learned {
            anyhow::ensure!(
                self.table1.policies.contains(&learned.policy),
                "table2 learned row `{}`: policy `{}` is not in table1.policies, whose episodes it reads",
                learned.label,
                learned.policy
            );
        }
        if let Some(seed) = self
            .table2
            .unseen_seeds
            .iter()
            .find(|s| self.tuning.seeds.contains(s))
        {
            anyhow::bail!("table2.unseen_seeds: seed {seed} is a tuning seed");
        }
        self.reference()?;
        for c in &self.communication.configurations {
            let rate = c.rate_of.as_deref().unwrap_or(&c.optimizer);
            anyhow::ensure!(
                names.contains(&rate),
                "communication configuration `{}`: no tuned rate for `{rate}`",
                c.label
            );
        }
        anyhow::ensure!(
            !self.communication.compressions.is_empty()
                && !self.communication.bandwidth_scales.is_empty()
                && !self.communication.configurations.is_empty(),
            "communication: empty axis"
        );
        let learned = &self.learned;
        anyhow::ensure!(
            !learned.heuristics.is_empty() && !learned.traces.is_empty() && learned.eval_seeds > 0,
            "learned: no heuristics, traces or evaluation seeds"
        );
        for (k, run) in learned.learners.iter().enumerate() {
            anyhow::ensure!(
                learned.learners[..k].iter().all(|r| r.label != run.label),
                "learned: two learners are labelled `{}`",
                run.label
            );
            anyhow::ensure!(
                run.play.is_empty(),
                "learned: learner `{}`: `play` options are for DAG learners ([[dag.learners]])",
                run.label
            );
        }
        anyhow::ensure!(
            !self.tuning.sgd_lrs.is_empty()
                && !self.tuning.adam_lrs.is_empty()
                && self
                    .optimizers
                    .iter()
                    .all(|o| o.lrs.as_ref().is_none_or(|l| !l.is_empty())),
            "tuning: empty learning-rate grid"
        );
        Ok(())
    }

    /// Table 2's reference row.
    pub fn reference(&self) -> anyhow::Result<&Table2Row> {
        self.table2
            .rows
            .iter()
            .find(|r| r.label == self.table2.reference)
            .with_context(|| format!("table2.reference `{}` names no row", self.table2.reference))
    }

    /// The learning rates tried for `optimizer`.
    pub fn lr_grid(&self, optimizer: &str) -> &[f64] {
        let own = self.optimizers.iter().find(|o| o.name == optimizer);
        if let Some(lrs) = own.and_then(|o| o.lrs.as_deref()) {
            lrs
        } else if optimizer == "adam" {
            &self.tuning.adam_lrs
        } else {
            &self.tuning.sgd_lrs
        }
    }

    /// The table2 row of `optimizer` with `policy`, if there is one.
    pub fn table2_row(&self, optimizer: &str, policy: &str) -> Option<&Table2Row> {
        self.table2
            .rows
            .iter()
            .find(|r| r.optimizer == optimizer && r.policy == policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_protocol_loads_and_bad_ones_are_refused() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let protocol = Protocol::load(&data.join(PROTOCOL_FILE)).unwrap();
        assert_eq!(protocol.reference().unwrap().paper_hours, 9.8);
        assert_eq!(protocol.table1.paper["raes"].gpu_util, 89.4);
        // an optimiser's own grid wins over the shared one
        assert_eq!(protocol.lr_grid("momentum"), [0.005, 0.01, 0.02, 0.04]);
        assert_eq!(protocol.lr_grid("sync_sgd"), protocol.tuning.sgd_lrs);
        assert_eq!(protocol.lr_grid("adam"), protocol.tuning.adam_lrs);
        let text = std::fs::read_to_string(data.join(PROTOCOL_FILE)).unwrap();
        let bad: Protocol =
            toml::from_str(&text.replace("reference = \"HB-ASGD + RAES\"", "reference = \"x\""))
                .unwrap();
        assert!(
            bad.check()
                .unwrap_err()
                .to_string()
                .contains("names no row")
        );
        // a learned row of table2 reads table1's episodes, so its policy must be table1's
        let bad: Protocol = toml::from_str(&text.replace(
            "{ label = \"HB-ASGD + DQN\", policy = \"train:dqn\" }",
            "{ label = \"HB-ASGD + DQN\", policy = \"train:dqm\" }",
        ))
        .unwrap();
        let err = bad.check().unwrap_err().to_string();
        assert!(err.contains("train:dqm") && err.contains("table1"), "{err}");
        // the learned rows' unseen seeds are not the seeds the rates were tuned on
        let bad: Protocol = toml::from_str(
            &text.replace("unseen_seeds = [2000, 2001", "unseen_seeds = [1001, 2001"),
        )
        .unwrap();
        let err = bad.check().unwrap_err().to_string();
        assert!(err.contains("seed 1001 is a tuning seed"), "{err}");
        assert!(toml::from_str::<Protocol>(&text.replace("round_s", "round_secs")).is_err());
        // play options are played by the DAG section only; on a jobs learner they are refused
        let bad: Protocol = toml::from_str(&text.replace(
            "label = \"BC of raes\"",
            "label = \"BC of raes\"\nplay = [\"episodes=2\"]",
        ))
        .unwrap();
        let err = bad.check().unwrap_err().to_string();
        assert!(
            err.contains("BC of raes") && err.contains("DAG learners"),
            "{err}"
        );
    }
}
