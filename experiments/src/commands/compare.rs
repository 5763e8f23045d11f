//! `schedlab compare`: several policies on one workload over the same seeds, as a table of
//! mean ± standard deviation per metric with the best policy of each column marked `*`.

use std::path::PathBuf;

use clap::Args;
use rayon::prelude::*;

use schedlab_env::gym::{Better, MetricColumn};
use schedlab_experiments::output::align;
use schedlab_experiments::play::{episode_bar, parse_seeds, play};
use schedlab_experiments::settings::Settings;
use schedlab_experiments::workloads::{Kind, MetricsOf, with_kind};

#[derive(Args)]
pub struct CompareArgs {
    /// Comma-separated schedulers (`raes:predictor=ewma` for options) or training run folders.
    #[arg(
        long = "policy",
        alias = "policies",
        value_delimiter = ',',
        required = true
    )]
    policies: Vec<String>,
    #[arg(long)]
    workload: PathBuf,
    /// Seeds: `0..4` (inclusive), `7` or `1,5,9`.
    #[arg(long, default_value = "0..4")]
    seeds: String,
    /// `KEY=VALUE`, repeatable: dotted keys override the workload (`job.optimizer=sync_sgd`),
    /// plain keys are policy options (`solver=heuristic` for raes).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// Mean and sample standard deviation.
fn mean_std(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() > 1 {
        values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

/// The table: one row per policy, `mean ± std` per metric, `*` on each column's best mean.
pub fn compare_table<M>(columns: &[MetricColumn<M>], results: &[(String, Vec<M>)]) -> String {
    let stats: Vec<Vec<(f64, f64)>> = results
        .iter()
        .map(|(_, episodes)| {
            columns
                .iter()
                .map(|m| mean_std(&episodes.iter().map(m.value).collect::<Vec<_>>()))
                .collect()
        })
        .collect();
    let best: Vec<Option<f64>> = columns
        .iter()
        .enumerate()
        .map(|(j, m)| {
            let means = stats.iter().map(|s| s[j].0);
            match m.better {
                Better::Lower => means.reduce(f64::min),
                Better::Higher => means.reduce(f64::max),
                Better::Neither => None,
            }
        })
        .collect();
    let header = std::iter::once("policy".to_owned())
        .chain(columns.iter().map(|m| m.name.to_owned()))
        .collect();
    let body = results.iter().zip(&stats).map(|((name, _), s)| {
        std::iter::once(name.clone())
            .chain(columns.iter().enumerate().map(|(j, m)| {
                let mark = if results.len() > 1 && best[j] == Some(s[j].0) {
                    "*"
                } else {
                    " "
                };
                format!(
                    "{:.*} ± {:.*}{mark}",
                    m.decimals, s[j].0, m.decimals, s[j].1
                )
            }))
            .collect()
    });
    align(&std::iter::once(header).chain(body).collect::<Vec<_>>())
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let seeds = parse_seeds(&args.seeds)?;
    let (settings, loaded) = Settings::load(&args.overrides, &args.workload, &args.policies)?;
    settings.announce();
    with_kind!(&loaded, |workload| {
        let results = compare(workload, &args.policies, &settings.policy, &seeds)?;
        println!(
            "{}, seeds {}, mean ± std, * best",
            workload.describe(),
            args.seeds
        );
        println!("{}", compare_table(workload.columns(), &results));
        Ok(())
    })
}

/// Every policy over every seed, the episodes in parallel; per policy its episodes in seed
/// order.
pub fn compare<K: Kind>(
    workload: &K,
    policies: &[String],
    options: &[(String, String)],
    seeds: &[u64],
) -> anyhow::Result<Vec<(String, Vec<MetricsOf<K>>)>> {
    for spec in policies {
        // refuse a bad name, option or run folder before any episode runs
        schedlab_experiments::play::make_policy(spec, &workload.env(), options)?;
    }
    let bar = episode_bar(
        (seeds.len() * policies.len()) as u64,
        format!("compare on {}", workload.name()),
    )?;
    let cells: Vec<(usize, u64)> = (0..policies.len())
        .flat_map(|p| seeds.iter().map(move |&s| (p, s)))
        .collect();
    let played = cells
        .par_iter()
        .map(|&(p, seed)| {
            let metrics = play(workload, &policies[p], options, seed);
            bar.inc(1);
            metrics
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    bar.finish_and_clear();
    let mut played = played.into_iter();
    Ok(policies
        .iter()
        .map(|spec| (spec.clone(), played.by_ref().take(seeds.len()).collect()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_env::EpisodeSummary;
    use schedlab_env::SingleJobMetrics;

    fn metrics(time: f64, util: f64) -> SingleJobMetrics {
        SingleJobMetrics {
            completion_time_s: time,
            rounds: 1,
            iterations: 10,
            final_loss: 0.1,
            target_reached: true,
            gpu_util: util,
            cpu_util: util,
            occupancy: 0.5,
            fragmentation: 0.1,
            idle_cost: 1.0,
            bits_sent: 1e6,
            bits_per_worker: 1e5,
            episode_return: -1.0,
        }
    }

    #[test]
    fn the_best_mean_of_each_column_is_marked_in_its_direction() {
        let results = vec![
            ("a".to_owned(), vec![metrics(10.0, 0.2), metrics(20.0, 0.4)]),
            ("b".to_owned(), vec![metrics(30.0, 0.9), metrics(30.0, 0.7)]),
        ];
        let table = compare_table(SingleJobMetrics::COLUMNS, &results);
        let lines: Vec<&str> = table.lines().collect();
        // a: time 15.0 ± 7.1 is best (lower); b: gpu_util 0.800 is best (higher)
        assert!(lines[1].contains("15.0 ± 7.1*"), "{table}");
        assert!(lines[2].contains("0.800 ± 0.141*"), "{table}");
        assert!(!lines[1].contains("0.300 ± 0.141*"), "{table}");
        // occupancy has no better direction: never marked
        assert!(!table.contains("0.500 ± 0.000*"), "{table}");
    }
}
