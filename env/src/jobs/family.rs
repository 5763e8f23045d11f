//! Workload families: a jobs workload whose jobs are a trace's training period, with a
//! `[family]` section of ranges. Each episode plays a window sampled from that period (its
//! start, length, share of the machines and arrival-rate factor drawn from the episode seed),
//! so an agent trained on the family cannot memorise one trace. The file holds only the
//! training period's jobs, so no episode can touch a later, held-out period.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::requests::fits_empty;
use super::schema::{FamilySpec, JobsWorkload, MachineSpec};

/// One sampled window: where it lies in the period and what it was drawn as.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowDraw {
    pub start_s: f64,
    pub length_s: f64,
    pub machine_share: f64,
    pub arrival_factor: f64,
}

impl FamilySpec {
    pub fn validate(&self, workload: &JobsWorkload) -> std::result::Result<(), (String, String)> {
        let bad = |key: &str, message: String| Err((format!("family.{key}"), message));
        if !(self.period_s > 0.0 && self.period_s.is_finite()) {
            return bad(
                "period_s",
                format!("must be positive, got {}", self.period_s),
            );
        }
        for (key, [low, high]) in [
            ("length_s", self.length_s),
            ("machine_share", self.machine_share),
            ("arrival_factor", self.arrival_factor),
        ] {
            if !(low > 0.0 && low <= high && high.is_finite()) {
                return bad(
                    key,
                    format!("must be [low, high] with 0 < low <= high, got [{low}, {high}]"),
                );
            }
        }
        if self.length_s[1] > self.period_s {
            return bad(
                "length_s",
                format!(
                    "the longest window ({} s) is longer than the period ({} s)",
                    self.length_s[1], self.period_s
                ),
            );
        }
        if self.machine_share[1] > 1.0 {
            return bad(
                "machine_share",
                format!(
                    "at most 1 (the file's machines), got {}",
                    self.machine_share[1]
                ),
            );
        }
        if workload.jobs.is_empty() {
            return bad("period_s", "the period holds no job".into());
        }
        if let Some(j) = workload
            .jobs
            .iter()
            .find(|j| !(0.0..self.period_s).contains(&j.arrival_s))
        {
            return bad(
                "period_s",
                format!(
                    "job {} arrives at {} s, outside the period [0, {})",
                    j.id, j.arrival_s, self.period_s
                ),
            );
        }
        Ok(())
    }

    /// The window an episode seed draws: start uniform over the period, redrawn while it
    /// holds no job of `arrivals` (an episode needs one); after `MAX_DRAWS` empty draws it is
    /// placed around a job drawn at random, which always succeeds.
    pub fn draw(&self, rng: &mut StdRng, arrivals: &[f64]) -> WindowDraw {
        const MAX_DRAWS: usize = 1000;
        for _ in 0..MAX_DRAWS {
            let draw = self.draw_once(rng);
            let end = draw.start_s + draw.length_s;
            if arrivals.iter().any(|a| (draw.start_s..end).contains(a)) {
                return draw;
            }
        }
        let mut draw = self.draw_once(rng);
        let a = arrivals[rng.random_range(0..arrivals.len())];
        // start in (a - length, a], within the period: the window holds the job
        let earliest = (a - draw.length_s).max(0.0);
        let latest = a.min(self.period_s - draw.length_s);
        draw.start_s = latest - rng.random_range(0.0..1.0) * (latest - earliest);
        draw
    }

    fn draw_once(&self, rng: &mut StdRng) -> WindowDraw {
        let uniform = |rng: &mut StdRng, [low, high]: [f64; 2]| {
            if high > low {
                rng.random_range(low..=high)
            } else {
                low
            }
        };
        let length_s = uniform(rng, self.length_s);
        let machine_share = uniform(rng, self.machine_share);
        let arrival_factor = uniform(rng, self.arrival_factor);
        let start_s = uniform(rng, [0.0, self.period_s - length_s]);
        WindowDraw {
            start_s,
            length_s,
            machine_share,
            arrival_factor,
        }
    }
}

/// The workload of one episode of `family`: the jobs arriving in the drawn window, their
/// arrivals shifted to start at 0 and divided by the arrival factor; DAG links to jobs outside
/// the window dropped (those parents count as done); `round(share x machines)` machines (at
/// least one) drawn without replacement, plus, for a job none of them could ever hold, one
/// machine of the first type in the file that holds it, so a window never holds a job its
/// cluster cannot run.
pub fn sample_window(
    family: &JobsWorkload,
    spec: &FamilySpec,
    seed: u64,
) -> (JobsWorkload, WindowDraw) {
    let mut rng = StdRng::seed_from_u64(seed);
    let arrivals: Vec<f64> = family.jobs.iter().map(|j| j.arrival_s).collect();
    let draw = spec.draw(&mut rng, &arrivals);
    let end = draw.start_s + draw.length_s;
    let mut jobs: Vec<_> = family
        .jobs
        .iter()
        .filter(|j| (draw.start_s..end).contains(&j.arrival_s))
        .cloned()
        .collect();
    let kept: std::collections::HashSet<String> = jobs.iter().map(|j| j.id.clone()).collect();
    for j in &mut jobs {
        j.arrival_s = (j.arrival_s - draw.start_s) / draw.arrival_factor;
        j.after.retain(|p| kept.contains(p));
    }
    let machines = draw_machines(&family.machines, draw.machine_share, &jobs, &mut rng);
    let mut window = family.clone();
    window.family = None;
    window.jobs_table = None;
    window.name = format!("{}@{:.0}+{:.0}s", family.name, draw.start_s, draw.length_s);
    window.jobs = jobs;
    window.machines = machines;
    (window, draw)
}

fn draw_machines(
    types: &[MachineSpec],
    share: f64,
    jobs: &[super::schema::JobRecord],
    rng: &mut StdRng,
) -> Vec<MachineSpec> {
    let mut pool: Vec<usize> = types
        .iter()
        .enumerate()
        .flat_map(|(t, m)| std::iter::repeat_n(t, m.count))
        .collect();
    let want = ((share * pool.len() as f64).round() as usize).clamp(1, pool.len());
    let mut counts = vec![0usize; types.len()];
    for k in 0..want {
        let pick = rng.random_range(k..pool.len());
        pool.swap(k, pick);
        counts[pool[k]] += 1;
    }
    for job in jobs {
        let request = job.request();
        let allowed =
            |t: usize| job.gpu_models.is_empty() || job.gpu_models.contains(&types[t].gpu_model);
        let held = |t: usize| allowed(t) && fits_empty(&types[t], request);
        if !(0..types.len()).any(|t| counts[t] > 0 && held(t))
            && let Some(t) = (0..types.len()).find(|&t| held(t))
        {
            counts[t] += 1;
        }
    }
    types
        .iter()
        .zip(counts)
        .filter(|(_, count)| *count > 0)
        .map(|(m, count)| MachineSpec { count, ..m.clone() })
        .collect()
}
