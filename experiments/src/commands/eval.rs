//! `schedlab eval`: a policy on saved workloads over seeds, one row per episode.

use std::path::PathBuf;

use clap::Args;

use schedlab_experiments::output::{metrics_table, write_atomic};
use schedlab_experiments::play::{episode_bar, parse_seeds, play_seeds};
use schedlab_experiments::settings::Settings;
use schedlab_experiments::workloads::{Kind, with_kind};

#[derive(Args)]
pub struct EvalArgs {
    /// Scheduler (`schedlab policies` lists them, options inline as `raes:solver=heuristic`)
    /// or a training run folder.
    #[arg(long)]
    policy: String,
    /// Workload files of one kind (repeat the flag or list several).
    #[arg(long, num_args = 1.., required = true)]
    workload: Vec<PathBuf>,
    /// Seeds: `0..4` (inclusive), `7` or `1,5,9`.
    #[arg(long, default_value = "0..4")]
    seeds: String,
    /// Write the rows as JSON (atomically).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the rows as CSV (atomically).
    #[arg(long)]
    csv: Option<PathBuf>,
    /// `KEY=VALUE`, repeatable: dotted keys override the workload (`job.optimizer=sync_sgd`),
    /// plain keys are policy options (`solver=heuristic` for raes).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// One row per episode: policy, workload, seed, metrics.
type Rows<M> = Vec<(Vec<String>, M)>;

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !args
            .policy
            .split(':')
            .next()
            .unwrap_or_default()
            .contains(',')
            || std::path::Path::new(&args.policy).exists(),
        "eval plays one policy (`--policy {}` lists several): play them one by one, or use `schedlab compare --policies A,B`",
        args.policy
    );
    let seeds = parse_seeds(&args.seeds)?;
    let policies = std::slice::from_ref(&args.policy);
    let loaded = args
        .workload
        .iter()
        .map(|p| Settings::load(&args.overrides, p, policies))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let kinds: Vec<_> = loaded.iter().map(|(_, l)| l.env_kind()).collect();
    anyhow::ensure!(
        kinds.iter().all(|k| *k == kinds[0]),
        "eval takes workloads of one kind at a time (their metrics differ); given: {}",
        args.workload
            .iter()
            .zip(&kinds)
            .map(|(p, k)| format!("{} ({})", p.display(), k.name()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let bar = episode_bar(
        (seeds.len() * loaded.len()) as u64,
        format!("{} ", args.policy),
    )?;
    let (settings, first) = &loaded[0];
    settings.announce();
    with_kind!(first, |kind| {
        let mut rows = Vec::new();
        for (_, workload) in &loaded {
            let workload = same_kind(kind, workload);
            episodes(workload, &args, &settings.policy, &seeds, &bar, &mut rows)?;
        }
        bar.finish_and_clear();
        write(kind, &args, &rows)
    })
}

/// `loaded` as the kind of `_like` (checked above: every workload has the first one's kind).
fn same_kind<'a, K: Kind + schedlab_experiments::workloads::OfLoaded>(
    _like: &K,
    loaded: &'a schedlab_experiments::workloads::Loaded,
) -> &'a K {
    K::of(loaded).expect("workloads of one kind")
}

fn episodes<K: Kind>(
    workload: &K,
    args: &EvalArgs,
    options: &[(String, String)],
    seeds: &[u64],
    bar: &indicatif::ProgressBar,
    rows: &mut Rows<schedlab_experiments::workloads::MetricsOf<K>>,
) -> anyhow::Result<()> {
    let metrics = play_seeds(workload, &args.policy, options, seeds, bar)?;
    for (seed, m) in seeds.iter().zip(metrics) {
        rows.push((
            vec![
                args.policy.clone(),
                workload.name().to_owned(),
                seed.to_string(),
            ],
            m,
        ));
    }
    Ok(())
}

fn write<K: Kind>(
    kind: &K,
    args: &EvalArgs,
    rows: &Rows<schedlab_experiments::workloads::MetricsOf<K>>,
) -> anyhow::Result<()> {
    let columns = kind.columns();
    println!(
        "{}",
        metrics_table(columns, &["policy", "workload", "seed"], rows)
    );
    if let Some(path) = &args.json {
        let doc: Vec<serde_json::Value> = rows
            .iter()
            .map(|(labels, m)| {
                serde_json::json!({"policy": labels[0], "workload": labels[1], "seed": labels[2].parse::<u64>().unwrap_or_default(), "metrics": m})
            })
            .collect();
        write_atomic(
            path,
            serde_json::to_string_pretty(&serde_json::json!({ "rows": doc }))?.as_bytes(),
        )?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.csv {
        let mut csv = String::from("policy,workload,seed");
        columns.iter().for_each(|m| csv += &format!(",{}", m.name));
        csv.push('\n');
        for (labels, m) in rows {
            csv += &labels.join(",");
            columns
                .iter()
                .for_each(|c| csv += &format!(",{}", (c.value)(m)));
            csv.push('\n');
        }
        write_atomic(path, csv.as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
