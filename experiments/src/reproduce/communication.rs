//! communication: virtual time and bits to target for optimisers and topologies x gradient
//! compression x bandwidth on the single-job workload (static allocation, tuned rates), and
//! how the schedulers compare as communication comes to dominate: static, raes and the learned
//! agents with HB-ASGD, and raes against static for every configuration (issue 18).

use std::collections::BTreeMap;

use super::context::{Context, Tuned, mean, mean_ci, paired_p, values};
use super::protocol::CommunicationProtocol;
use crate::sweep::journal::Row;
use crate::sweep::spec::{SweepSpec, TrainSettings};

/// The override set of configuration `c` with compression `k` at bandwidth `b`.
fn set_name(c: usize, k: usize, b: usize) -> String {
    format!("c{c}-k{k}-b{b}")
}

fn overrides(
    cx: &Context,
    p: &CommunicationProtocol,
    tuned: &Tuned,
    c: usize,
    k: usize,
    b: usize,
) -> BTreeMap<String, toml::Value> {
    let config = &p.configurations[c];
    let rate = tuned[config.rate_of.as_deref().unwrap_or(&config.optimizer)];
    let mut set = cx.optimizer_set(&config.optimizer, rate);
    set.extend(config.set.clone());
    // a string, so the sweep hands the inline table to the workload as written
    set.insert(
        "job.compression".into(),
        toml::Value::String(p.compressions[k].1.clone()),
    );
    set.insert(
        "sim.bandwidth_scale".into(),
        toml::Value::Float(p.bandwidth_scales[b]),
    );
    set
}

pub fn communication(cx: &Context, tuned: &Tuned) -> anyhow::Result<String> {
    let p = &cx.protocol.communication;
    let mut sets = BTreeMap::new();
    for c in 0..p.configurations.len() {
        for k in 0..p.compressions.len() {
            for b in 0..p.bandwidth_scales.len() {
                sets.insert(set_name(c, k, b), overrides(cx, p, tuned, c, k, b));
            }
        }
    }
    let rows = cx.sweep(&SweepSpec {
        name: "communication".into(),
        policies: vec!["static".into()],
        workloads: vec![cx.paper.clone()],
        seeds: cx.seeds(),
        overrides: sets,
        train: TrainSettings::default(),
    })?;
    let mut text = format!(
        "## Communication: compression, topologies and bandwidth (communication)\n\n`{}` (static allocation on paper-10node, {} seeds; every link's bandwidth times `sim.bandwidth_scale`; learning rates as tuned above, local SGD at synchronous SGD's; compression is not tuned separately). Virtual seconds and gigabits sent until the validation loss reaches the target (an episode that does not reach it counts its full length and bits); p: the time against the same configuration uncompressed, paired by seed (Wilcoxon signed-rank; paired t).\n\n",
        cx.command("communication"),
        cx.args.seeds
    );
    let metric = |name: &str, c, k, b| values(&rows, "static", &set_name(c, k, b), name);
    for (b, scale) in p.bandwidth_scales.iter().enumerate() {
        text += &format!(
            "### Bandwidth x {scale}\n\n| configuration | compression | virtual s to target | Gbit to target | reached | p (time vs none; Wilcoxon; paired t) |\n| --- | --- | --- | --- | --- | --- |\n"
        );
        let mut best = (f64::INFINITY, String::new());
        for (c, config) in p.configurations.iter().enumerate() {
            let reference = metric("completion_time_s", c, 0, b);
            for (k, (label, _)) in p.compressions.iter().enumerate() {
                let time = metric("completion_time_s", c, k, b);
                let gigabits: Vec<f64> = metric("bits_sent", c, k, b)
                    .iter()
                    .map(|bits| bits / 1e9)
                    .collect();
                let reached = metric("target_reached", c, k, b);
                let p_value = if k == 0 {
                    String::new()
                } else {
                    paired_p(&time, &reference).cell()
                };
                if mean(&time) < best.0 {
                    best = (mean(&time), format!("{} with {label}", config.label));
                }
                text += &format!(
                    "| {} | {label} | {} | {} | {}/{} | {p_value} |\n",
                    config.label,
                    mean_ci(&time),
                    mean_ci(&gigabits),
                    reached.iter().filter(|&&r| r > 0.5).count(),
                    reached.len()
                );
            }
        }
        text += &format!(
            "\nFastest to target at bandwidth x {scale}: {} ({:.1} virtual s).\n\n",
            best.1, best.0
        );
    }
    text += &schedulers(cx, p, tuned)?;
    text += &raes_per_configuration(cx, p, tuned, &rows)?;
    Ok(text)
}

/// The schedulers with the first configuration, uncompressed, at every bandwidth.
fn schedulers(cx: &Context, p: &CommunicationProtocol, tuned: &Tuned) -> anyhow::Result<String> {
    let sets: BTreeMap<_, _> = (0..p.bandwidth_scales.len())
        .map(|b| (set_name(0, 0, b), overrides(cx, p, tuned, 0, 0, b)))
        .collect();
    let rows = cx.sweep(&SweepSpec {
        name: "communication-schedulers".into(),
        policies: p.policies.clone(),
        workloads: vec![cx.paper.clone()],
        seeds: cx.seeds(),
        overrides: sets,
        train: TrainSettings {
            steps: p.train_steps,
            ..TrainSettings::default()
        },
    })?;
    let reference = &p.policies[0];
    let mut text = format!(
        "### Schedulers as communication comes to dominate\n\n{}, uncompressed; virtual seconds to target, p against `{reference}`. Each `train:AGENT` is trained {} rounds at that bandwidth (seed 0, default hyperparameters) before its episodes.\n\n",
        p.configurations[0].label, p.train_steps
    );
    for (b, scale) in p.bandwidth_scales.iter().enumerate() {
        let base = values(&rows, reference, &set_name(0, 0, b), "completion_time_s");
        let cells: Vec<String> = p
            .policies
            .iter()
            .map(|policy| {
                let time = values(&rows, policy, &set_name(0, 0, b), "completion_time_s");
                let versus = if policy == reference {
                    String::new()
                } else {
                    format!(" ({})", change(&time, &base))
                };
                format!("`{policy}` {}{versus}", mean_ci(&time))
            })
            .collect();
        text += &format!("- bandwidth x {scale}: {}\n", cells.join("; "));
    }
    Ok(text + "\n")
}

/// `raes` against `static` for every configuration, uncompressed, at every bandwidth (the
/// static rows are the main sweep's).
fn raes_per_configuration(
    cx: &Context,
    p: &CommunicationProtocol,
    tuned: &Tuned,
    static_rows: &[Row],
) -> anyhow::Result<String> {
    let rows = cx.sweep(&SweepSpec {
        name: "communication-raes".into(),
        policies: vec!["raes".into()],
        workloads: vec![cx.paper.clone()],
        seeds: cx.seeds(),
        overrides: (0..p.configurations.len())
            .flat_map(|c| (0..p.bandwidth_scales.len()).map(move |b| (c, b)))
            .map(|(c, b)| (set_name(c, 0, b), overrides(cx, p, tuned, c, 0, b)))
            .collect(),
        train: TrainSettings::default(),
    })?;
    let mut text = format!(
        "RAES against static for every configuration, uncompressed: virtual seconds to target, the change and the paired p-values (Wilcoxon; paired t).\n\n| configuration | {} |\n| --- |{}\n",
        p.bandwidth_scales
            .iter()
            .map(|scale| format!("bandwidth x {scale}"))
            .collect::<Vec<_>>()
            .join(" | "),
        " --- |".repeat(p.bandwidth_scales.len())
    );
    for (c, config) in p.configurations.iter().enumerate() {
        let line: Vec<String> = (0..p.bandwidth_scales.len())
            .map(|b| {
                let set = set_name(c, 0, b);
                let base = values(static_rows, "static", &set, "completion_time_s");
                let time = values(&rows, "raes", &set, "completion_time_s");
                format!(
                    "{:.1} → {:.1} ({})",
                    mean(&base),
                    mean(&time),
                    change(&time, &base)
                )
            })
            .collect();
        text += &format!("| {} | {} |\n", config.label, line.join(" | "));
    }
    Ok(text + "\n")
}

/// `+12%, p=0.062; p=0.034`: how the mean of `time` differs from that of `base`, and the
/// paired p-values.
fn change(time: &[f64], base: &[f64]) -> String {
    format!(
        "{:+.0}%, {}",
        100.0 * (mean(time) / mean(base) - 1.0),
        paired_p(time, base).cell()
    )
}
