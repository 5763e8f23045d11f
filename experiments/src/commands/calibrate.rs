//! `schedlab calibrate`: real episodes of the calibration policies, the simulator's constants
//! fitted to them (`schedlab_experiments::fidelity`), written into a copy of the workload file
//! beside it (its relative paths stay right), which the simulator then reads.

use std::path::{Path, PathBuf};

use clap::Args;
use schedlab_env::workload_file::{WorkloadFile, set_key};
use schedlab_experiments::fidelity::{
    Plan, RealBackend, Sides, calibrate_on, default_calibration_policies,
};
use schedlab_experiments::output::write_atomic;
use schedlab_experiments::play::{episode_bar, parse_seeds};
use schedlab_experiments::settings::Settings;
use schedlab_experiments::workloads::declared_kind;

#[derive(Args)]
pub struct CalibrateArgs {
    /// A single-job or jobs workload file.
    #[arg(long)]
    workload: PathBuf,
    /// The policies whose real episodes the fit reads, comma-separated (default:
    /// random,greedy,periodic on a single job, static,periodic on a jobs window).
    #[arg(long, value_delimiter = ',')]
    policy: Option<Vec<String>>,
    /// Seeds of those episodes (keep the ones you evaluate on apart).
    #[arg(long, default_value = "100")]
    seeds: String,
    /// `real`: real episodes on processes in control groups on this machine (as root);
    /// `slurm`: through the Slurm cluster `SLURM_CONF` names (jobs workloads).
    #[arg(long, value_enum, default_value_t = RealBackend::Real)]
    execution: RealBackend,
    /// The calibrated workload file, in the workload's folder (default: NAME.calibrated.toml
    /// beside it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// `KEY=VALUE`, repeatable: dotted keys override the workload, plain keys are policy
    /// options.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

pub fn run(args: CalibrateArgs) -> anyhow::Result<()> {
    let file = WorkloadFile::read(&args.workload)?;
    let policies = match &args.policy {
        Some(policies) => policies.clone(),
        None => default_calibration_policies(declared_kind(&file)?),
    };
    let (settings, _) = Settings::load_file(&args.overrides, &file, &policies)?;
    schedlab_experiments::settings::remove_real_runs_on_interrupt();
    let out = output_path(&args.workload, args.out.as_deref())?;
    let plan = Plan {
        policies: Vec::new(),
        seeds: Vec::new(),
        calibration_policies: policies.clone(),
        calibration_seeds: parse_seeds(&args.seeds)?,
    };
    let episodes = plan.calibration_policies.len() * plan.calibration_seeds.len();
    let bar = episode_bar(episodes as u64, "real episodes".into())?;
    let sides = Sides::of(&file, &settings.workload, args.execution.execution())?;
    let (fitted, fitted_settings) = calibrate_on(&sides, &settings.policy, &plan, &bar)?;
    bar.finish_and_clear();
    let mut table: toml::Table = toml::from_str(&file.text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.workload.display()))?;
    for (key, value) in settings.workload.iter().chain(&fitted_settings) {
        set_key(&mut table, key, value)
            .map_err(|e| anyhow::anyhow!("`{key}` in {}: {e}", args.workload.display()))?;
    }
    table.insert("execution".into(), toml::Value::String("sim".into()));
    let header = format!(
        "# {} calibrated by `schedlab calibrate` on real episodes of {} (seeds {}):\n# {}\n",
        args.workload.display(),
        policies.join(","),
        args.seeds,
        serde_json::to_string(&fitted)?
    );
    write_atomic(
        &out,
        format!("{header}{}", toml::to_string(&table)?).as_bytes(),
    )?;
    for (key, value) in &fitted_settings {
        println!("{key} = {value}");
    }
    println!(
        "wrote {}; `schedlab fidelity` measures the error on other policies and seeds",
        out.display()
    );
    Ok(())
}

/// `out`, or NAME.calibrated.toml beside `workload`; refused outside the workload's folder,
/// where the file's relative paths would no longer hold.
fn output_path(workload: &Path, out: Option<&Path>) -> anyhow::Result<PathBuf> {
    let folder = workload.parent().unwrap_or(Path::new("."));
    let Some(out) = out else {
        let stem = workload
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("workload");
        return Ok(folder.join(format!("{stem}.calibrated.toml")));
    };
    let out_folder = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let same = std::fs::canonicalize(out_folder).ok() == std::fs::canonicalize(folder).ok();
    anyhow::ensure!(
        same,
        "--out {}: write the calibrated workload in {}'s folder, where its relative paths (data, templates) still resolve",
        out.display(),
        workload.display()
    );
    Ok(out.to_owned())
}
