//! SPD against FTG on real DAGs: how far apart two plans are against how far apart their
//! makespans are.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_agents::dag::Decoder;
use schedlab_agents::dag::heft;
use schedlab_agents::dag::plan_distance::{pearson, perturbation_pairs, spearman};
use schedlab_env::dag::DagWorkload;

use crate::paths::shipped_workload;
use crate::plots;
use crate::reproduce::context::Context;
use crate::reproduce::protocol::DagProtocol;

/// SPD against FTG on real DAGs: plans made from HEFT's and from random plans by moving a
/// share of their tasks.
pub(super) fn correlation(cx: &Context, p: &DagProtocol) -> anyhow::Result<String> {
    let path = shipped_workload(&p.correlation_workload);
    let workload = DagWorkload::load(&path, &[])?;
    let mut clouds: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for seed in cx.seeds() {
        let problem = workload.instance(seed);
        let mut decoder = Decoder::new(&problem);
        let mut rng = StdRng::seed_from_u64(seed);
        let heft_plan = heft(&problem).gpu;
        let random_plan: Vec<usize> = decoder
            .fitting
            .iter()
            .map(|gpus| gpus[rand::RngExt::random_range(&mut rng, 0..gpus.len())])
            .collect();
        for (name, base) in [
            ("from HEFT's plan", heft_plan),
            ("from a random plan", random_plan),
        ] {
            clouds.entry(name).or_default().extend(perturbation_pairs(
                &mut decoder,
                &base,
                &p.correlation_shares,
                p.correlation_per_share,
                &mut rng,
            ));
        }
    }
    let mut text = format!(
        "### SPD and FTG on real DAGs\n\nSPD is the share of tasks two plans place on different GPUs; FTG is the difference of their makespans over the shorter. On {} instances of `{}` (Alibaba v2018 DAGs on PAI machines), plans were made from HEFT's plan and from a random plan by moving a share of their tasks ({}; {} plans per share) to other GPUs that hold them.\n\n| base | pairs | Pearson r | Spearman ρ |\n| --- | --- | --- | --- |\n",
        cx.args.seeds,
        p.correlation_workload,
        p.correlation_shares
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        p.correlation_per_share
    );
    let all: Vec<(f64, f64)> = clouds.values().flatten().copied().collect();
    for (name, pairs) in clouds
        .iter()
        .map(|(n, v)| (*n, v.as_slice()))
        .chain([("both", all.as_slice())])
    {
        text += &format!(
            "| {name} | {} | {:.3} | {:.3} |\n",
            pairs.len(),
            pearson(pairs),
            spearman(pairs)
        );
    }
    let figure = "dag-spd-ftg.png";
    let clouds: Vec<(String, Vec<(f64, f64)>)> =
        clouds.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
    plots::scatter(
        &cx.figure(figure)?,
        "Plan distance against finish time gap (Alibaba DAGs)",
        (
            "SPD (share of tasks placed differently)",
            "FTG (makespan gap / shorter)",
        ),
        &clouds,
    )?;
    text += &format!("\n![SPD against FTG]({})\n\n", cx.link(figure));
    Ok(text)
}
