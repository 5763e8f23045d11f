//! The single-job episode on real processes (`execution = "real"`, docs/real-execution.md).
//!
//! Each node of the workload is a control group with a `job` group holding its worker and a
//! `background` group holding a CPU-burning tenant. The env's allocation becomes CPU quotas
//! and memory limits, written live while the workers run. A worker pulls the parameters over
//! loopback TCP, computes a real gradient on its shard, burns the CPU time that the
//! iteration's virtual compute stands for, and pushes; the server (`server.rs`) applies the
//! push with the job's optimiser (HB-ASGD's rules shared with the simulator,
//! `env/src/single_job/sim/rules.rs`).
//!
//! The mapping, one constant `k` (real cores per virtual GFLOP/s): a container of `c` cores
//! and `g` GPUs on a node of speed `s` gets `k s (c cpu_gflops_per_core + g gpu_gflops)` real
//! cores (the GPU emulated as extra CPU quota), and an iteration of batch `b` burns
//! `k time_scale sample_gflop b` CPU seconds, so that at full quota it lasts `time_scale`
//! times its virtual compute time at the node's nominal rate. `k` shares `real.cores` out
//! over the cluster's full capacity. Amdahl's law, GPU saturation and interference are not
//! emulated: what the machine does instead is what the simulator's error measures.

mod groups;
mod server;
mod state;
mod training;

pub use groups::cores_per_rate;
pub use training::RealTraining;
