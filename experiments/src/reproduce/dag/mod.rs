//! `reproduce dag`: the DAG schedulers against WORL-RTGS, one file per study (`axes.rs`,
//! `real_dags.rs`, `headline.rs`, `against_baseline.rs`, `correlation.rs`, `stability.rs`,
//! `wall_times.rs`), the section that runs them in order (`section.rs`), and what the studies
//! share (`policies.rs`, `cells.rs`).

mod against_baseline;
mod axes;
mod cells;
mod correlation;
mod headline;
mod policies;
mod real_dags;
mod section;
mod stability;
mod wall_times;

pub(super) use section::dag;
