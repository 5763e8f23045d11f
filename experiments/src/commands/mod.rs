pub mod bench;
pub mod bench_cluster;
pub mod bench_solvers;
pub mod compare;
pub mod eval;
pub mod evaluate;
pub mod import;
pub mod jobs_compare;
pub mod plot;
pub mod predictors;
pub mod quickstart;
pub mod reproduce;
pub mod run;
pub mod summarize;
pub mod sweep;
pub mod templates;
pub mod train;
pub mod validate;

/// Parses `KEY=VALUE` overrides.
pub fn parse_overrides(raw: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    raw.iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| anyhow::anyhow!("`--set {kv}`: expected KEY=VALUE"))
        })
        .collect()
}

/// `--set` pairs for commands that play policies on workloads: dotted keys (`job.lr`) override
/// the workload, plain keys (`solver`) are options of the policies that accept them.
pub struct Settings {
    pub workload: Vec<(String, String)>,
    pub policy: Vec<(String, String)>,
}

impl Settings {
    /// Refuses a policy option that none of `policies` accepts.
    pub fn parse(raw: &[String], policies: &[String]) -> anyhow::Result<Self> {
        let (workload, policy): (Vec<_>, Vec<_>) = parse_overrides(raw)?
            .into_iter()
            .partition(|(k, _)| k.contains('.'));
        for (key, value) in &policy {
            let accepted = policies.iter().any(|spec| {
                schedlab_agents::registry::parse_spec(spec).is_ok_and(|(name, _)| {
                    schedlab_agents::registry::accepted_options(name).contains(&key.as_str())
                })
            });
            anyhow::ensure!(
                accepted,
                "`--set {key}={value}`: no chosen policy ({}) takes the option `{key}`; workload keys have a dot, as in `job.lr`",
                policies.join(", ")
            );
        }
        Ok(Settings { workload, policy })
    }
}
