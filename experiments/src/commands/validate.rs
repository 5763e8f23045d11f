use std::path::Path;

use schedlab_env::Scenario;

pub fn run(path: &Path) -> anyhow::Result<()> {
    let scenario = Scenario::load(path)?;
    println!("ok {}", scenario.summary());
    Ok(())
}
