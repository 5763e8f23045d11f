use std::path::Path;

use schedlab_env::jobs::JobsWorkload;
use schedlab_env::{ClusterEnv, Scenario};

pub fn run(path: &Path) -> anyhow::Result<()> {
    if JobsWorkload::is_jobs_file(path)? {
        let jobs = crate::jobs::load(path)?;
        let w = &jobs.workload;
        let gpus: u32 = w.machines.iter().map(|m| m.gpus * m.count as u32).sum();
        println!(
            "ok {}: {} jobs on {} machines ({} GPUs), {} templates, {:?} fidelity, window {} queued + {} running",
            w.name,
            w.jobs.len(),
            w.machine_count(),
            gpus,
            w.templates.len(),
            w.fidelity,
            w.window.queued,
            w.window.running
        );
        return Ok(());
    }
    let scenario = Scenario::load(path)?;
    let mut line = format!("ok {}", scenario.summary());
    if scenario.trace.is_some() {
        // what the trace mapping clips depends on the episode; seed 0 shows the scale
        let (_, info) = ClusterEnv::new(scenario.clone()).reset(0)?;
        let [cores, gb] = info.background_clipped;
        line +=
            &format!(", trace load clipped at max_share (seed 0): {cores:.0} core-s, {gb:.0} GB-s");
    }
    println!("{line}");
    Ok(())
}
