//! A policy's episodes as a sweep's rows hold them, by (window, seed), and the metrics read
//! from them: the data the learned and conserving sections' tables are made of.

use std::collections::BTreeMap;

use crate::sweep::journal::Row;

/// One policy's episodes, by (window, seed): each episode's metrics as its sweep row holds them.
pub(super) type Episodes = BTreeMap<(String, u64), Vec<(String, f64)>>;

/// `policy`'s episodes among a sweep's `rows`.
pub(super) fn episodes_of(rows: &[Row], policy: &str) -> Episodes {
    rows.iter()
        .filter(|r| r.key.policy == policy)
        .map(|r| ((r.key.workload.clone(), r.key.seed), r.metrics.clone()))
        .collect()
}

/// `policy`'s episodes under the override set `set` among a sweep's `rows`.
pub(super) fn episodes_in_set(rows: &[Row], policy: &str, set: &str) -> Episodes {
    rows.iter()
        .filter(|r| r.key.policy == policy && r.key.overrides == set)
        .map(|r| ((r.key.workload.clone(), r.key.seed), r.metrics.clone()))
        .collect()
}

/// Each episode's mean JCT by (window, seed).
pub(super) fn jct_by_episode(episodes: &Episodes) -> BTreeMap<(String, u64), f64> {
    by_episode(episodes, "jct_avg_s")
}

/// One metric of each episode by (window, seed).
pub(super) fn by_episode(episodes: &Episodes, metric: &str) -> BTreeMap<(String, u64), f64> {
    episodes
        .iter()
        .map(|(key, m)| (key.clone(), metric_of(m, metric)))
        .collect()
}

/// One metric of an episode's row (NaN where the row lacks it).
pub(super) fn metric_of(metrics: &[(String, f64)], name: &str) -> f64 {
    metrics
        .iter()
        .find(|(n, _)| n == name)
        .map_or(f64::NAN, |m| m.1)
}
