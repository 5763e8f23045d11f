use std::path::Path;

use schedlab_env::{ClusterEnv, Scenario};

pub fn run(path: &Path) -> anyhow::Result<()> {
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
