//! What a kind of workload is to the command line: [`Kind`], which each kind's adapter
//! implements (its env, its per-step log, its one-line summary; its metric columns are its
//! metrics', in env), and [`KindRow`], which env's table of kinds gives it.

use schedlab_agents::SchedulingEnv;
use schedlab_env::gym::MetricColumn;
use schedlab_env::{EnvKind, Environment, EpisodeSummary, Step};

/// The metrics an env of kind `K` reports at the end of an episode.
pub type MetricsOf<K> = <<K as KindRow>::Env as Environment>::Metrics;
/// What each step of an env of kind `K` reports.
pub type InfoOf<K> = <<K as KindRow>::Env as Environment>::Info;

/// What env's table of kinds gives each kind's adapter here (implemented from the table in
/// `loaded.rs`).
pub trait KindRow: Sync + Sized {
    type Env: SchedulingEnv;
    const ENV_KIND: EnvKind;
}

/// A loaded workload of one kind.
pub trait Kind: KindRow {
    /// The workload's name.
    fn name(&self) -> &str;
    /// A fresh env with no episode started.
    fn env(&self) -> Self::Env;
    /// Every metric of an episode, as table and result columns (the metrics' own).
    fn columns(&self) -> &'static [MetricColumn<MetricsOf<Self>>] {
        <MetricsOf<Self> as EpisodeSummary>::COLUMNS
    }
    /// The heading of a comparison table: name, file and size.
    fn describe(&self) -> String;
    /// `schedlab workload validate`'s line.
    fn summary(&self) -> anyhow::Result<String>;
    /// The header of `run --rounds-csv` (after the seed column), and one step's row.
    fn step_columns(&self) -> &'static str;
    fn step_row(&self, step: &Step<InfoOf<Self>>) -> String;
    /// Every job's completion time (seconds) in the env's current episode, where the env has
    /// jobs to time.
    fn completion_times(&self, _env: &Self::Env) -> Option<Vec<f64>> {
        None
    }
    /// The settings a policy trained here must be played with elsewhere (its network's
    /// shape); none where the shapes follow from the data.
    fn play_settings(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// A table printed beside the episodes' metrics table (`run`): the jobs cluster's per
    /// tenant; none where the kind has no breakdown or the episodes give none.
    fn breakdown(&self, _episodes: &[MetricsOf<Self>]) -> Option<String> {
        None
    }
    /// Whether its episodes run on real processes (`execution = "real"`).
    fn executes_for_real(&self) -> bool {
        false
    }
}
