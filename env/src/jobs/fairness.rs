//! Finish-time fairness per job (Mahajan et al., "Themis: Fair and Efficient GPU Cluster
//! Scheduling", NSDI 2020) and between tenants, by Jain's index (Jain, Chiu and Hawe, "A
//! Quantitative Measure of Fairness and Discrimination for Resource Allocation in Shared
//! Computer Systems", 1984). The rules are stated in docs/fairness.md.

use super::metrics::{TenantMetrics, share};
use super::state::{Episode, Shared};

/// The episode's fairness figures.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Fairness {
    pub rho_avg: f64,
    pub rho_max: f64,
    pub tenant_jain: f64,
    /// Per tenant, where some job names one (none otherwise).
    pub tenants: Vec<TenantMetrics>,
}

/// A job's finish-time fairness ρ = JCT / T_id. T_id, its completion time alone on a 1/N
/// share of the cluster, is `alone_s` (its run time at its request with the cluster to
/// itself) while its dominant share of the cluster at its request fits in 1/N, and
/// proportionally longer beyond: T_alone × max(1, N × dominant share), N being the mean number
/// of jobs in the system over its lifetime. A job of a tenant with a guaranteed share g has
/// g / N_t, N_t its tenant's jobs in the system: `mean_contenders` is then N_t / g.
pub fn finish_time_fairness(
    jct_s: f64,
    alone_s: f64,
    mean_contenders: f64,
    dominant_share: f64,
) -> f64 {
    jct_s / (alone_s * (mean_contenders * dominant_share).max(1.0))
}

/// Jain's index (Σx)² / (n Σx²): 1 when all are equal, 1/n when one holds everything; 1 for
/// none.
pub fn jain(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let squares: f64 = values.iter().map(|v| v * v).sum();
    if squares > 0.0 {
        sum * sum / (values.len() as f64 * squares)
    } else {
        1.0
    }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    share(sum, n as f64)
}

/// Every arrived job's JCT (`completion_times`, `None` for jobs not arrived) with its ρ.
fn per_job(
    sh: &Shared,
    episode: &Episode,
    completion_times: &[Option<f64>],
) -> Vec<Option<(f64, f64)>> {
    (0..episode.jobs.len())
        .map(|i| {
            let jct = completion_times[i]?;
            Some((jct, rho_of(sh, episode, i, jct)))
        })
        .collect()
}

/// Job `i`'s ρ at a JCT of `jct_s`: its lifetime's contenders up to its finish, or up to now
/// while it is in the system.
pub(super) fn rho_of(sh: &Shared, episode: &Episode, i: usize, jct_s: f64) -> f64 {
    let w = &sh.workload;
    let capacity = episode.cluster.capacity_total();
    let workers_level = w.scaling.requested_workers_level();
    let size_level = w.scaling.requested_size_level();
    let job = &episode.jobs[i];
    let arrival = w.jobs[i].arrival_s;
    // a tenant with a guaranteed share g gives each of its N jobs g / N of the cluster
    let in_system_now = episode.in_system_for(sh.tenant_share[i]);
    let guaranteed = sh.tenant_share[i].map_or(1.0, |(_, g)| g);
    let (end, end_mark) = match job.finish_s {
        Some(finish) => (finish, job.in_system_at_finish),
        None => (episode.now, in_system_now),
    };
    let contenders = if end > arrival {
        ((end_mark - job.in_system_at_arrival) / (end - arrival)).max(1.0)
    } else {
        1.0
    };
    let workers = sh.worker_count(i, workers_level);
    let container = sh.container(i, size_level);
    let dominant = (0..3)
        .map(|r| share(f64::from(workers * container[r]), capacity[r] as f64))
        .fold(0.0, f64::max);
    let template = sh.template_of(i);
    // a job without GPUs runs at ratio 1 on every machine
    let gpus = sh.requested_gpus(i);
    let isolated = sh
        .model_speeds
        .as_ref()
        .filter(|_| gpus > 0)
        .map_or(1.0, |s| s.mean_factor(template, gpus));
    let size = w.scaling.sizes[size_level];
    let rate = w.templates[template].speedup(f64::from(workers), size) * job.speed;
    let alone = job.work / (rate * isolated);
    finish_time_fairness(jct_s, alone, contenders / guaranteed, dominant)
}

/// The episode's fairness, from each job's JCT as `accounting.rs` counts it (`None`: not
/// arrived).
pub(super) fn fairness(
    sh: &Shared,
    episode: &Episode,
    completion_times: &[Option<f64>],
) -> Fairness {
    let jobs = per_job(sh, episode, completion_times);
    let rhos: Vec<f64> = jobs.iter().flatten().map(|&(_, rho)| rho).collect();
    let named = sh.workload.jobs.iter().any(|j| j.tenant.is_some());
    // tenants in the order their first job appears in the workload
    let mut tenants: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (spec, figures) in sh.workload.jobs.iter().zip(&jobs) {
        let Some(figures) = figures else { continue };
        let name = spec.tenant.clone().unwrap_or_default();
        match tenants.iter_mut().find(|(t, _)| *t == name) {
            Some((_, list)) => list.push(*figures),
            None => tenants.push((name, vec![*figures])),
        }
    }
    let tenants: Vec<TenantMetrics> = tenants
        .into_iter()
        .map(|(tenant, list)| TenantMetrics {
            tenant,
            jobs: list.len(),
            jct_avg_s: mean(list.iter().map(|f| f.0)),
            rho_avg: mean(list.iter().map(|f| f.1)),
        })
        .collect();
    let tenant_means: Vec<f64> = tenants.iter().map(|t| t.rho_avg).collect();
    Fairness {
        rho_avg: mean(rhos.iter().copied()),
        rho_max: rhos.iter().copied().fold(0.0, f64::max),
        tenant_jain: jain(&tenant_means),
        tenants: if named { tenants } else { Vec::new() },
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::super::tests::{job, play, workload};
    use super::super::{JobRecord, JobsEnv, JobsMetrics};
    use super::*;

    fn played(jobs: Vec<JobRecord>) -> JobsMetrics {
        // one machine of 4 GPUs and 8 cores: a container of 1 GPU and 1 core
        let mut env = JobsEnv::new(Arc::new(workload(jobs, 1, 4)));
        play(&mut env, 0)
    }

    fn of(tenant: &str, mut j: JobRecord) -> JobRecord {
        j.tenant = Some(tenant.into());
        j
    }

    #[test]
    fn a_lone_job_on_the_whole_cluster_has_a_rho_of_one() {
        let m = played(vec![job("a", 5.0, 100.0, 4, 1000)]);
        assert!(
            (m.rho_avg - 1.0).abs() < 1e-12 && (m.rho_max - 1.0).abs() < 1e-12,
            "{m:?}"
        );
        assert_eq!((m.tenant_jain, m.tenants.len()), (1.0, 0));
    }

    /// Both want the whole cluster; the first runs 0..100 beside the second (N = 2, T_id =
    /// 200), the second waits and runs 100..200 (N = 1.5, T_id = 150).
    #[test]
    fn two_jobs_in_fifo_share_their_contention_as_worked_by_hand() {
        let m = played(vec![
            of("x", job("a", 0.0, 100.0, 4, 1000)),
            of("y", job("b", 0.0, 100.0, 4, 1000)),
        ]);
        assert!((m.rho_max - 4.0 / 3.0).abs() < 1e-12, "{m:?}");
        assert!((m.rho_avg - (0.5 + 4.0 / 3.0) / 2.0).abs() < 1e-12, "{m:?}");
        assert!((m.tenant_jain - 121.0 / 146.0).abs() < 1e-12, "{m:?}");
        let by_tenant: Vec<(&str, usize, f64)> = m
            .tenants
            .iter()
            .map(|t| (t.tenant.as_str(), t.jobs, t.jct_avg_s))
            .collect();
        assert_eq!(by_tenant, vec![("x", 1, 100.0), ("y", 1, 200.0)]);
    }

    /// The same two jobs with `reward.lambda_fairness = 3`: the return falls by 3 times the
    /// second's ρ above 1 (4/3 - 1), the first's ρ of 1/2 being charged nothing.
    #[test]
    fn the_fairness_reward_charges_each_job_its_rho_above_one() {
        let jobs = vec![job("a", 0.0, 100.0, 4, 1000), job("b", 0.0, 100.0, 4, 1000)];
        let plain = played(jobs.clone());
        let mut weighted = workload(jobs, 1, 4);
        weighted.reward.lambda_fairness = 3.0;
        let m = play(&mut JobsEnv::new(Arc::new(weighted)), 0);
        assert_eq!(m.jct_avg_s, plain.jct_avg_s);
        let charged = plain.episode_return - m.episode_return;
        assert!(
            (charged - 3.0 * (4.0 / 3.0 - 1.0)).abs() < 1e-9,
            "{charged}"
        );
    }

    /// Each holds half the cluster beside the other: exactly its 1/2 share, ρ = 1 for both.
    #[test]
    fn equal_tenants_on_equal_shares_have_a_jain_index_of_one() {
        let m = played(vec![
            of("x", job("a", 0.0, 100.0, 2, 1000)),
            of("y", job("b", 0.0, 100.0, 2, 1000)),
        ]);
        assert!((m.tenant_jain - 1.0).abs() < 1e-12, "{m:?}");
        assert!((m.rho_max - 1.0).abs() < 1e-12, "{m:?}");
        assert!(m.tenants.iter().all(|t| t.jct_avg_s == 100.0), "{m:?}");
    }

    /// A tenant guaranteed a quarter of the cluster: its lone job asking for all of it has a
    /// T_id of 4 times its time alone (ρ = 1/4 as it runs alone); with a half share beside
    /// another tenant's job, ρ follows its own tenant's jobs only (N_t = 1).
    #[test]
    fn a_guaranteed_share_sets_the_share_a_tenants_jobs_are_measured_against() {
        let mut w = workload(vec![of("x", job("a", 0.0, 100.0, 4, 1000))], 1, 4);
        w.tenant_shares = [("x".to_owned(), 0.25)].into();
        w.validate(Path::new("shares.toml")).unwrap();
        let m = play(&mut JobsEnv::new(Arc::new(w)), 0);
        assert!((m.rho_max - 0.25).abs() < 1e-12, "{m:?}");
        // the two of `two_jobs_in_fifo_...`, x guaranteed half: a runs 0..100 at N_x = 1
        // (T_id = 200, ρ = 1/2); b, without a share, keeps the 1/N rule (ρ = 4/3)
        let mut w = workload(
            vec![
                of("x", job("a", 0.0, 100.0, 4, 1000)),
                of("y", job("b", 0.0, 100.0, 4, 1000)),
            ],
            1,
            4,
        );
        w.tenant_shares = [("x".to_owned(), 0.5)].into();
        let m = play(&mut JobsEnv::new(Arc::new(w)), 0);
        let rho: Vec<f64> = m.tenants.iter().map(|t| t.rho_avg).collect();
        assert!(
            (rho[0] - 0.5).abs() < 1e-12 && (rho[1] - 4.0 / 3.0).abs() < 1e-12,
            "{m:?}"
        );
    }

    #[test]
    fn shares_outside_zero_to_one_or_over_the_whole_cluster_are_refused_by_name() {
        let mut w = workload(vec![job("a", 0.0, 1.0, 1, 0)], 1, 1);
        w.tenant_shares = [("x".to_owned(), 1.5)].into();
        let e = w
            .validate(Path::new("shares.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("tenant_shares.x"), "{e}");
        w.tenant_shares = [("x".to_owned(), 0.6), ("y".to_owned(), 0.6)].into();
        let e = w
            .validate(Path::new("shares.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("tenant_shares") && e.contains("1.2"), "{e}");
    }

    #[test]
    fn jain_is_one_for_equals_and_one_over_n_for_one_holding_all() {
        assert!((jain(&[0.7, 0.7, 0.7]) - 1.0).abs() < 1e-12);
        assert_eq!(jain(&[2.0, 0.0, 0.0, 0.0]), 0.25);
        // (0.5 + 4/3)^2 / (2 (0.25 + 16/9)) = 121/146
        assert!((jain(&[0.5, 4.0 / 3.0]) - 121.0 / 146.0).abs() < 1e-12);
        assert_eq!(jain(&[]), 1.0);
    }

    #[test]
    fn the_isolated_time_grows_only_once_the_share_is_outgrown() {
        // a quarter of the cluster fits a 1/3 share: T_id is its time alone
        assert_eq!(finish_time_fairness(150.0, 100.0, 3.0, 0.25), 1.5);
        // the whole cluster with two contenders: twice its time alone
        assert_eq!(finish_time_fairness(150.0, 100.0, 2.0, 1.0), 0.75);
    }
}
