//! network: the all-time-feasible allocation dynamics against the centralised optimum and
//! fixed splits (among them Rikos et al. 2021's fixed point), on static and switching
//! graphs with exact, log-quantised and uniformly quantised messages; and ridge regression by
//! consensus over the same channels (Doostmohammadian et al. 2025; issue 17).

use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_env::data::{Dataset, FeatureScaling, NaPolicy, load_csv, prepare};
use schedlab_env::model::{LinearLoss, LinearModel, Model};
use schedlab_env::network::{
    CentreCost, ConsensusTraining, Dynamics, GraphKind, GraphSequence, NetworkMetrics, Quantizer,
    Switching, Weights, capacity_proportional, centralised_descent, centralised_objective, optimum,
    proportional, sampled_costs, shards, total_cost, uniform,
};

use super::context::{Context, paired_p};
use super::protocol::NetworkProtocol;
use crate::paths::{data_root, shipped_workload};
use crate::play::play_seeds;
use crate::plots::{self, XScale};
use crate::stats::summarize;
use crate::workloads::Network;

/// `mean ± ci95` in scientific notation: gaps run over many orders of magnitude.
fn sci(v: &[f64]) -> String {
    let s = summarize(v);
    format!("{:.2e} ± {:.1e}", s.mean, s.ci95)
}

/// A channel of the study, by name.
fn channels(p: &NetworkProtocol) -> Vec<(String, Quantizer)> {
    let log = |rho| Quantizer::Log {
        rho,
        smallest: 1e-6,
        largest: 1e3,
    };
    let mut out = vec![("exact".to_owned(), Quantizer::Exact)];
    for &rho in &p.rhos {
        out.push((format!("log rho={rho}"), log(rho)));
        let twin = log(rho).uniform_twin();
        out.push((format!("uniform {} bits", twin.bits()), twin));
    }
    out
}

fn switchings(p: &NetworkProtocol) -> Vec<(&'static str, Switching)> {
    vec![
        ("static", Switching::Static),
        (
            "dropout",
            Switching::Dropout {
                p: p.dropout,
                period: p.dropout_period,
            },
        ),
        (
            "redraw",
            Switching::Redraw {
                every: p.redraw_every,
            },
        ),
    ]
}

/// One run's record: the cost gap at each checkpoint, the largest feasibility residual, the
/// bits sent.
struct Record {
    gaps: Vec<f64>,
    residual: f64,
    bits: u64,
}

/// The section's heading and what it plays.
fn intro(cx: &Context, p: &NetworkProtocol) -> String {
    format!(
        "## A network of computing centres (network)\n\n`{}` ({} seeds; {} centres on Erdős-Rényi graphs with edge probability {} and Metropolis weights; costs from the seeded generator `sampled_costs`, upper bounds {}-{} CPUs; demand {} CPUs a centre; the dynamics start from the uniform split). Cost gap = (cost − optimum) / optimum, the optimum by bisection on the common marginal cost; mean ± 95% CI over seeds. The capacity-proportional split is the allocation Rikos et al. 2021's distributed CPU scheduler reaches (its fixed point here; in the env below, the `rikos` scheduler reaches it by quantised averaging). Only the paper's abstract is at hand.\n\n",
        cx.command("network"),
        cx.args.seeds,
        p.centres,
        p.edge_probability,
        p.max_cpus.0,
        p.max_cpus.1,
        p.demand_per_centre
    )
}

pub fn network(cx: &Context) -> anyhow::Result<String> {
    let p = &cx.protocol.network;
    let checkpoints: Vec<usize> = p.checkpoints.clone();
    let iterations = *checkpoints.last().expect("checkpoints");
    let kind = GraphKind::ErdosRenyi {
        p: p.edge_probability,
    };
    let mut text = intro(cx, p);
    let cases: Vec<Case> = cx
        .seeds()
        .into_iter()
        .map(|seed| Case::new(p, seed))
        .collect();
    let fixed = fixed_splits(p, &cases);
    let rikos = super::context::mean(&fixed[2].1);
    text += "| fixed split | cost gap |\n| --- | --- |\n";
    for (name, gaps) in &fixed {
        text += &format!("| {name} | {} |\n", sci(gaps));
    }
    let header: Vec<String> = checkpoints.iter().map(|c| c.to_string()).collect();
    text += &format!(
        "\n### Allocation dynamics: cost gap after each number of iterations\n\n| graph | messages | {} | largest \\|Σx − b\\| / b | bits sent (all centres) | gap / Rikos's after {} |\n| --- | --- |{} --- | --- | --- |\n",
        header.join(" | "),
        iterations,
        " --- |".repeat(header.len())
    );
    let mut series = Vec::new();
    let mut static_exact: Vec<f64> = Vec::new();
    for (graph_name, switching) in switchings(p) {
        for (channel, quantizer) in channels(p) {
            let records: Vec<Record> = cases
                .iter()
                .map(|case| allocate(p, case, kind, switching, quantizer, &checkpoints))
                .collect::<anyhow::Result<_>>()?;
            let at = |k: usize| records.iter().map(|r| r.gaps[k]).collect::<Vec<f64>>();
            let cells: Vec<String> = (0..checkpoints.len()).map(|k| sci(&at(k))).collect();
            let residual = records.iter().map(|r| r.residual).fold(0.0, f64::max);
            let bits = records.iter().map(|r| r.bits as f64).sum::<f64>() / records.len() as f64;
            let last = super::context::mean(&at(checkpoints.len() - 1));
            if (graph_name, channel.as_str()) == ("static", "exact") {
                static_exact = (0..checkpoints.len())
                    .map(|k| super::context::mean(&at(k)))
                    .collect();
            }
            text += &format!(
                "| {graph_name} | {channel} | {} | {residual:.1e} | {bits:.3e} | {:.2e} |\n",
                cells.join(" | "),
                last / rikos
            );
            if graph_name == "static" || channel == "exact" {
                let line = checkpoints
                    .iter()
                    .enumerate()
                    .map(|(k, &c)| (c as f64, super::context::mean(&at(k)).max(1e-16).log10()))
                    .collect();
                series.push((format!("{graph_name}, {channel}"), line));
            }
        }
    }
    let figure = "network-gap.png";
    plots::lines(
        &cx.figure(figure)?,
        "Allocation cost gap against iterations",
        ("iterations", "log10 cost gap"),
        &series,
        XScale::Log,
    )?;
    text += &format!("\n![cost gap against iterations]({})\n\n", cx.link(figure));
    text += &training(cx, p, kind)?;
    text += &schedulers(cx, p)?;
    text += &reading(&checkpoints, rikos, &static_exact, &fixed[0].1);
    Ok(text)
}

/// Every seed's cost gap under the fixed splits: uniform, work-proportional and
/// capacity-proportional (the allocation Rikos et al. 2021's scheduler reaches).
fn fixed_splits(p: &NetworkProtocol, cases: &[Case]) -> Vec<(&'static str, Vec<f64>)> {
    let demand = p.demand_per_centre * p.centres as f64;
    let mut fixed: Vec<(&str, Vec<f64>)> = vec![
        ("uniform", Vec::new()),
        ("work-proportional", Vec::new()),
        ("capacity-proportional (Rikos et al. 2021)", Vec::new()),
    ];
    for case in cases {
        fixed[0].1.push(case.gap(&uniform(p.centres, demand)));
        fixed[1]
            .1
            .push(case.gap(&proportional(&case.costs, demand)));
        fixed[2]
            .1
            .push(case.gap(&capacity_proportional(&case.costs, demand)));
    }
    fixed
}

/// The section's reading: the dynamics against the capacity-proportional split's gap
/// `rikos` and the uniform split's.
fn reading(
    checkpoints: &[usize],
    rikos: f64,
    static_exact: &[f64],
    uniform_gaps: &[f64],
) -> String {
    let better = |gap: f64| 100.0 * (1.0 - gap / rikos);
    let iterations = *checkpoints.last().expect("checkpoints");
    let early = checkpoints.iter().position(|&c| c >= 100).unwrap_or(0);
    format!(
        "**Reading.** Every method keeps the demand at every iteration (largest residual above: rounding only). The paper reports a cost optimality gap more than 50% better than existing CPU scheduling solutions. Against the capacity-proportional split (gap {rikos:.3}), the unquantised dynamics on a static graph are {:.0}% better after {} iterations and {:.1}% after {iterations}; but the uniform split alone is already {:.0}% better, since that baseline balances load to capacity, blind to costs: the size of such a claim rests on the baseline. Log-quantised messages settle at a gap that shrinks with rho, on a fraction of the exact messages' bits (table); the uniform quantiser with the same bits, whose steps are absolute, stalls once the marginal costs' differences fall below its step. The conservative step (the costs' curvature at half their lower bounds) makes the first hundred iterations slow.\n\n",
        better(static_exact[early]),
        checkpoints[early],
        better(static_exact[checkpoints.len() - 1]),
        better(super::context::mean(uniform_gaps)),
    )
}

/// The schedulers through the env on the shipped network workloads: the cost gap at the
/// end and over the episode, the virtual time the allocation gives the training, and the
/// mean gap's ratio to the reference's with the p-values paired by seed.
fn schedulers(cx: &Context, p: &NetworkProtocol) -> anyhow::Result<String> {
    let mut text = format!(
        "### Schedulers in the network env\n\nEach step moves CPUs along the edges present (a flow per edge on a log ladder from 1e-6 CPUs, so the demand holds whatever a scheduler does) and runs one gradient-tracking iteration; the iteration lasts the slowest centre's local epoch on its CPUs. `consensus` follows the dynamics above (`step=theory`: 1/(L λ); `step=local`: per edge from the ends' own curvature, a heuristic); `rikos`, `proportional` and `optimum` steer to their split by quantised averaging of each centre's excess (`optimum` is an oracle reference); `uniform` keeps the even split; `random` picks allowed flows. Mean ± 95% CI over {} seeds; ratio of the mean gap to `{}`'s, with p paired by seed (Wilcoxon signed-rank; paired t).\n\n| workload | scheduler | cost gap at the end | mean cost gap | virtual hours | mean gap / {} (p) |\n| --- | --- | --- | --- | --- | --- |\n",
        cx.args.seeds, p.env_reference, p.env_reference
    );
    let seeds = cx.seeds();
    let mut readings = Vec::new();
    for name in &p.env_workloads {
        let path = shipped_workload(name);
        let loaded = crate::workloads::load(&path, &[])?;
        let w: &Network = loaded.expect("reproduce network", &path)?;
        let bar = indicatif::ProgressBar::hidden();
        let mut results: Vec<(&String, Vec<NetworkMetrics>)> = Vec::new();
        for spec in &p.env_policies {
            results.push((spec, play_seeds(w, spec, &[], &seeds, &bar)?));
        }
        let mean_gaps = |metrics: &[NetworkMetrics]| -> Vec<f64> {
            metrics.iter().map(|m| m.cost_gap_mean).collect()
        };
        let reference = results
            .iter()
            .find(|(spec, _)| **spec == p.env_reference)
            .map(|(_, m)| mean_gaps(m))
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "env_reference {} is not among env_policies",
                    p.env_reference
                )
            })?;
        for (spec, metrics) in &results {
            let gaps = mean_gaps(metrics);
            let ratio = super::context::mean(&gaps) / super::context::mean(&reference);
            let versus = if **spec == p.env_reference {
                "1".to_owned()
            } else {
                format!("{ratio:.3} ({})", paired_p(&gaps, &reference).cell())
            };
            let last: Vec<f64> = metrics.iter().map(|m| m.cost_gap).collect();
            let hours: Vec<f64> = metrics.iter().map(|m| m.time_s / 3600.0).collect();
            text += &format!(
                "| {} | {spec} | {} | {} | {} | {versus} |\n",
                w.workload.name(),
                sci(&last),
                sci(&gaps),
                super::context::mean_ci(&hours)
            );
        }
        let fastest = results
            .iter()
            .map(|(spec, m)| {
                (
                    spec,
                    super::context::mean(&m.iter().map(|m| m.time_s).collect::<Vec<_>>()),
                )
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("policies");
        readings.push(format!(
            "on `{}` the shortest virtual time is `{}`'s",
            w.workload.name(),
            fastest.0
        ));
    }
    text += &format!(
        "\nThe training's iterates do not depend on the allocation, so loss, disagreement and accuracy are the same under every scheduler (in `schedlab compare`); the allocation sets how long they take: {}.\n",
        readings.join("; ")
    );
    Ok(text + "\n")
}

/// One seed's centres: their costs and the optimum's cost.
struct Case {
    seed: u64,
    costs: Vec<CentreCost>,
    optimal: f64,
}

impl Case {
    fn new(p: &NetworkProtocol, seed: u64) -> Self {
        let costs = sampled_costs(p.centres, p.max_cpus, &mut StdRng::seed_from_u64(seed));
        let (best, _) = optimum(&costs, p.demand_per_centre * p.centres as f64);
        Case {
            seed,
            optimal: total_cost(&costs, &best),
            costs,
        }
    }

    /// The cost gap of allocation `x`.
    fn gap(&self, x: &[f64]) -> f64 {
        (total_cost(&self.costs, x) - self.optimal) / self.optimal
    }
}

fn allocate(
    p: &NetworkProtocol,
    case: &Case,
    kind: GraphKind,
    switching: Switching,
    quantizer: Quantizer,
    checkpoints: &[usize],
) -> anyhow::Result<Record> {
    let demand = p.demand_per_centre * p.centres as f64;
    let mut graphs =
        GraphSequence::new(kind, p.centres, Weights::Metropolis, switching, case.seed)?;
    let mut dynamics = Dynamics::new(&case.costs, quantizer);
    let mut x = uniform(p.centres, demand);
    let (mut gaps, mut residual, mut bits) = (Vec::new(), 0.0f64, 0u64);
    for k in 1..=*checkpoints.last().expect("checkpoints") {
        bits += dynamics.step(graphs.current(), &mut x)?;
        residual = residual.max((x.iter().sum::<f64>() - demand).abs() / demand);
        if checkpoints.contains(&k) {
            gaps.push(case.gap(&x));
        }
        graphs.advance()?;
    }
    Ok(Record {
        gaps,
        residual,
        bits,
    })
}

/// Each checkpoint's values as a table cell, joined.
fn sci_cells(values: &[Vec<f64>]) -> String {
    values
        .iter()
        .map(|v| sci(v))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Ridge regression on diabetes: the model, the training rows, the penalty and the loss of
/// the centralised optimum.
struct Ridge {
    model: Arc<LinearModel>,
    data: Arc<Dataset>,
    l2: f32,
    best: f64,
}

impl Ridge {
    fn on_diabetes() -> anyhow::Result<Ridge> {
        let relative = "datasets/diabetes/diabetes.csv";
        let file = data_root(relative).join(relative);
        let (x, y, _) = load_csv(&file, "target", &[], NaPolicy::Error)?;
        let data = Arc::new(prepare((x, y), None, false, 0.2, 0, FeatureScaling::Standard)?.train);
        let model = Arc::new(
            LinearModel::new(LinearLoss::Squared, data.features.cols(), data.task)
                .expect("ridge fits regression"),
        );
        let l2 = 0.01;
        let mut central = vec![0.0f32; model.num_params()];
        centralised_descent(&*model, &data, l2, 0.05, 20_000, &mut central);
        let (best, _) = centralised_objective(&*model, &data, &central, l2);
        Ok(Ridge {
            model,
            data,
            l2,
            best,
        })
    }
}

/// Ridge regression on diabetes by consensus, over a static and a dropout graph, exact and
/// log-quantised: the loss gap to the centralised optimum and the centres' disagreement.
fn training(cx: &Context, p: &NetworkProtocol, kind: GraphKind) -> anyhow::Result<String> {
    let ridge = Ridge::on_diabetes()?;
    let zero = vec![0.0f32; ridge.model.num_params()];
    // the loss gap and disagreement at the allocation's checkpoints within the run, and its end
    let marks: Vec<usize> = p
        .checkpoints
        .iter()
        .copied()
        .filter(|&c| c < p.training_iterations)
        .chain([p.training_iterations])
        .collect();
    let header: Vec<String> = marks.iter().map(|m| m.to_string()).collect();
    let mut text = format!(
        "### Ridge regression by consensus (diabetes, {} centres, gradient tracking, step {})\n\nLoss gap to the centralised optimum, then the centres' disagreement (largest distance from the mean model over its norm), after each number of iterations.\n\n| graph | messages | quantity | {} | bits sent |\n| --- | --- | --- |{} --- |\n",
        p.training_centres,
        p.training_step,
        header.join(" | "),
        " --- |".repeat(header.len())
    );
    let rho = p.rhos[p.rhos.len() - 1];
    for (graph_name, switching) in switchings(p).into_iter().take(2) {
        for (channel, quantizer) in [
            ("exact".to_owned(), Quantizer::Exact),
            (
                format!("log rho={rho}"),
                Quantizer::Log {
                    rho,
                    smallest: 1e-6,
                    largest: 1e3,
                },
            ),
        ] {
            let mut gaps = vec![Vec::new(); marks.len()];
            let mut disagreement = vec![Vec::new(); marks.len()];
            let mut bits = 0.0;
            for seed in cx.seeds() {
                let mut graphs = GraphSequence::new(
                    kind,
                    p.training_centres,
                    Weights::Metropolis,
                    switching,
                    seed,
                )?;
                let mut training = ConsensusTraining::new(
                    ridge.model.clone(),
                    ridge.data.clone(),
                    shards(ridge.data.len(), &vec![1.0; p.training_centres], seed),
                    ridge.l2,
                    p.training_step,
                    quantizer,
                    &zero,
                );
                for k in 1..=p.training_iterations {
                    bits += training.step(graphs.current()) as f64 / cx.args.seeds as f64;
                    graphs.advance()?;
                    if let Some(m) = marks.iter().position(|&m| m == k) {
                        let (loss, _) = centralised_objective(
                            &*ridge.model,
                            &ridge.data,
                            &training.mean_params(),
                            ridge.l2,
                        );
                        gaps[m].push((loss - ridge.best) / ridge.best);
                        disagreement[m].push(training.disagreement());
                    }
                }
            }
            text += &format!(
                "| {graph_name} | {channel} | loss gap | {} | {bits:.3e} |\n| {graph_name} | {channel} | disagreement | {} | |\n",
                sci_cells(&gaps),
                sci_cells(&disagreement)
            );
        }
    }
    Ok(text + "\n")
}
