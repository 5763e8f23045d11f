//! The fidelity section's Slurm column (`[fidelity.slurm]`, docs/real-execution.md): the
//! jobs window played through a Slurm cluster, beside the simulator, the simulator calibrated
//! on Slurm's own calibration episodes, and the cgroup backend's real episodes; each one's
//! error against Slurm, the policies' ranks and Kendall's tau, and the latencies Slurm added.
//! It needs a running cluster (`deploy/slurm/cluster.sh up N`, `SLURM_CONF` exported); where
//! none answers the column is skipped with a note saying why.

use schedlab_env::execution::Execution;
use schedlab_env::real::slurm::Slurm;
use serde_json::Value;

use super::context::Context;
use super::fidelity_measured::measured;
use crate::fidelity::{Report, kendall_tau, ranks};

/// The column's text; `cgroup` is the jobs window measured on the cgroup backend.
pub(super) fn slurm_column(cx: &Context, cgroup: &Report) -> anyhow::Result<String> {
    let Some(case) = &cx.protocol.fidelity.slurm else {
        return Ok(String::new());
    };
    let mut text = format!(
        "\n### The jobs window through Slurm ({})\n\n",
        case.workload
    );
    if let Err(e) = Slurm::connect() {
        eprintln!("fidelity: the Slurm column is skipped: {e}");
        text += &format!("Not measured on this run: {e}.\n");
        return Ok(text);
    }
    let slurm = measured(cx, "slurm", case, Execution::Slurm)?;
    text += &format!(
        "Mean JCT in virtual seconds: every job a Slurm job submitted held, placed and released by the scheduler's starts, requeued by its preemptions and rescales; the calibrated simulator fitted to Slurm's own calibration episodes ({}); the cgroup column the window above. Errors are against Slurm.\n\n",
        slurm.calibration.describe()
    );
    text += &table(&slurm, cgroup);
    text += &latencies(&slurm);
    Ok(text)
}

/// Per policy: the simulator, calibrated, cgroup and Slurm means, the errors against Slurm
/// and the ranks; then Kendall's tau of each against Slurm.
fn table(slurm: &Report, cgroup: &Report) -> String {
    let metric = |v: &Value| v[&slurm.metric].as_f64().unwrap_or(f64::NAN);
    let cgroup_error = |policy: &str| {
        let errors: Vec<f64> = slurm
            .episodes
            .iter()
            .filter(|e| e.policy == policy)
            .filter_map(|e| {
                let twin = cgroup
                    .episodes
                    .iter()
                    .find(|c| c.policy == e.policy && c.seed == e.seed)?;
                let truth = metric(e.real.metrics());
                Some((metric(twin.real.metrics()) - truth).abs() / truth)
            })
            .collect();
        errors.iter().sum::<f64>() / errors.len().max(1) as f64
    };
    let cgroup_means: Vec<f64> = slurm
        .policies
        .iter()
        .map(|row| {
            (cgroup.policies.iter())
                .find(|c| c.policy == row.policy)
                .map_or(f64::NAN, |c| c.real_s)
        })
        .collect();
    let cgroup_ranks = ranks(&cgroup_means);
    let mut text = "| policy | simulator | calibrated | cgroup | Slurm | error, simulator | error, calibrated | error, cgroup | rank s/c/g/S |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n".to_owned();
    for (k, row) in slurm.policies.iter().enumerate() {
        text += &format!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1}% | {:.1}% | {:.1}% | {}/{}/{}/{} |\n",
            row.policy,
            row.sim_s,
            row.sim_calibrated_s,
            cgroup_means[k],
            row.real_s,
            100.0 * row.sim_error,
            100.0 * row.calibrated_error,
            100.0 * cgroup_error(&row.policy),
            row.sim_rank,
            row.calibrated_rank,
            cgroup_ranks[k],
            row.real_rank
        );
    }
    let slurm_means: Vec<f64> = slurm.policies.iter().map(|r| r.real_s).collect();
    text += &format!(
        "\nOver all episodes: {:.1}% uncalibrated, {:.1}% calibrated; Kendall's tau against Slurm {:.2} (simulator), {:.2} (calibrated), {:.2} (cgroup backend).\n",
        100.0 * slurm.sim_error,
        100.0 * slurm.calibrated_error,
        slurm.sim_tau,
        slurm.calibrated_tau,
        kendall_tau(&cgroup_means, &slurm_means)
    );
    text
}

/// What Slurm added, over the compared episodes: mean wall seconds of its commands and of a
/// release to every worker connected, of a requeue to the job pending again, and the starts'
/// and restarts' mean virtual cost.
fn latencies(slurm: &Report) -> String {
    let reports: Vec<&Value> = slurm
        .episodes
        .iter()
        .filter_map(|e| e.real_execution.as_ref())
        .collect();
    let mean = |f: &dyn Fn(&Value) -> Option<f64>| {
        let values: Vec<f64> = reports.iter().filter_map(|r| f(r)).collect();
        values.iter().sum::<f64>() / values.len().max(1) as f64
    };
    let command = |name: &str| mean(&|r| r["slurm"]["commands"][name]["mean_s"].as_f64());
    format!(
        "\nLatencies Slurm added (wall seconds, means over the compared episodes): `sbatch` {:.3}, `scontrol update` {:.3}, `scontrol release` {:.3}, `scontrol requeuehold` {:.3}, `squeue` {:.3}; a release to every worker connected {:.2}; a requeue to the job pending again and past the second its credential was revoked in {:.2}. A start cost {:.0} virtual s from decision to first iteration, a restart {:.0}.\n",
        command("sbatch"),
        command("scontrol update"),
        command("scontrol release"),
        command("scontrol requeuehold"),
        command("squeue"),
        mean(&|r| r["slurm"]["release_to_workers_s"].as_f64()),
        mean(&|r| r["slurm"]["requeue_s"].as_f64()),
        mean(&|r| r["start_cost_s"].as_f64()),
        mean(&|r| r["restart_cost_s"].as_f64()),
    )
}
