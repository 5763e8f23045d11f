//! `schedlab reproduce`: the workbench's versions of the reference paper's convergence figure
//! (fig2), resource-use table (table1) and end-to-end table (table2), the DAG study of
//! WORL-RTGS (dag), the network of computing centres (network), communication-efficient
//! training (communication), learned schedulers on held-out trace windows (learned),
//! heterogeneity-aware schedulers on heterogeneous GPUs (heterogeneity), the
//! simulator against real execution (fidelity) and the learners on tasks with known answers
//! beside reference implementations (learners), and every heuristic and shipped policy on the
//! versioned benchmark suites (leaderboard), each a sweep over the
//! shipped workloads, summarized with confidence intervals and paired tests, plotted, and
//! assembled into EXPERIMENTS.md. What runs and the paper's figures are data
//! (`data/experiments/reproduce.toml`, read by `protocol.rs`); each section presents one.

mod cached_training;
mod communication;
mod conserving;
mod context;
mod dag;
mod document;
mod episodes;
mod fidelity;
mod fidelity_measured;
mod fidelity_slurm;
mod fig2;
mod heterogeneity;
mod leaderboard;
mod learned;
mod learners;
mod network;
mod protocol;
mod run;
mod table1;
mod table2;
mod tuning;

pub use context::Settings;
pub use run::{run, targets};
