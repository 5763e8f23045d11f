//! `schedlab fidelity`: policies played in the simulator and on real processes, the
//! simulator's error before and after calibration, and the policies' ranks both ways.

use schedlab_env::workload_file::WorkloadFile;
use std::path::PathBuf;

use clap::Args;
use schedlab_env::execution::Execution;
use schedlab_experiments::fidelity::{
    Plan, RealBackend, Report, default_calibration_policies, measure,
};
use schedlab_experiments::output::write_atomic;
use schedlab_experiments::play::{episode_bar, parse_seeds};
use schedlab_experiments::settings::Settings;

#[derive(Args)]
pub struct FidelityArgs {
    /// A single-job or jobs workload file.
    #[arg(long)]
    workload: PathBuf,
    /// Policies to compare, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    policy: Vec<String>,
    /// Seeds: `0..1` (inclusive), `7` or `1,5,9`.
    #[arg(long, default_value = "0..1")]
    seeds: String,
    /// The policies whose real episodes calibrate the simulator, comma-separated (default:
    /// random,greedy,periodic on a single job, static,periodic on a jobs window).
    #[arg(long, value_delimiter = ',')]
    calibrate_policy: Option<Vec<String>>,
    /// Seeds of the calibration's episodes, apart from `--seeds`.
    #[arg(long, default_value = "100")]
    calibrate_seeds: String,
    /// `real`: the real side on processes in control groups on this machine (as root);
    /// `slurm`: through the Slurm cluster `SLURM_CONF` names (jobs workloads;
    /// `deploy/slurm/cluster.sh up N`).
    #[arg(long, value_enum, default_value_t = RealBackend::Real)]
    execution: RealBackend,
    /// Write `{"episodes": [{"policy", "seed", "sim", "sim_calibrated", "real"}], ...}`
    /// (atomically; the real side is `"slurm"` under `--execution slurm`); each side holds
    /// the episode's metrics.
    #[arg(long)]
    json: Option<PathBuf>,
    /// `KEY=VALUE`, repeatable: dotted keys override the workload (`real.time_scale=0.1`),
    /// plain keys are policy options.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

pub fn run(args: FidelityArgs) -> anyhow::Result<()> {
    let file = WorkloadFile::read(&args.workload)?;
    let (settings, loaded) = Settings::load_file(&args.overrides, &file, &args.policy)?;
    schedlab_experiments::settings::remove_real_runs_on_interrupt();
    let plan = Plan {
        policies: args.policy.clone(),
        seeds: parse_seeds(&args.seeds)?,
        calibration_policies: args
            .calibrate_policy
            .clone()
            .unwrap_or_else(|| default_calibration_policies(loaded.env_kind())),
        calibration_seeds: parse_seeds(&args.calibrate_seeds)?,
    };
    let episodes = plan.calibration_policies.len() * plan.calibration_seeds.len()
        + plan.policies.len() * plan.seeds.len();
    let bar = episode_bar(episodes as u64, "real episodes".into())?;
    let execution = args.execution.execution();
    let real_side = (&settings.workload[..], execution);
    let report = measure(&file, real_side, &settings.policy, &plan, &bar)?;
    bar.finish_and_clear();
    print_report(&report, execution);
    if let Some(path) = &args.json {
        write_atomic(path, serde_json::to_string_pretty(&report)?.as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn print_report(report: &Report, execution: Execution) {
    let machine = match execution {
        Execution::Slurm => "real processes Slurm ran",
        _ => "real processes",
    };
    println!(
        "{}: {} (virtual s), simulator against {machine} (GPUs emulated as CPU quota)",
        report.workload, report.metric
    );
    println!("calibration: {}", report.calibration.describe());
    println!(
        "{:<24} {:>9} {:>9} {:>9} {:>9} {:>9} {:>13}",
        "policy",
        "sim",
        "sim cal.",
        execution.name(),
        "err sim",
        "err cal.",
        "rank s/c/r"
    );
    for row in &report.policies {
        println!(
            "{:<24} {:>9.2} {:>9.2} {:>9.2} {:>8.1}% {:>8.1}% {:>13}",
            row.policy,
            row.sim_s,
            row.sim_calibrated_s,
            row.real_s,
            100.0 * row.sim_error,
            100.0 * row.calibrated_error,
            format!("{}/{}/{}", row.sim_rank, row.calibrated_rank, row.real_rank)
        );
    }
    println!(
        "mean absolute relative error: {:.1}% uncalibrated, {:.1}% calibrated; Kendall's tau of the policies' order against {}: {:.2} and {:.2}",
        100.0 * report.sim_error,
        100.0 * report.calibrated_error,
        execution.name(),
        report.sim_tau,
        report.calibrated_tau
    );
}
