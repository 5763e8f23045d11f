pub mod bench;
pub mod bench_cluster;
pub mod bench_dag;
pub mod bench_network;
pub mod bench_solvers;
pub mod bench_steps;
pub mod bench_train;
pub mod compare;
pub mod eval;
pub mod import;
pub mod play;
pub mod plot;
pub mod policies;
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
/// the workload, plain keys (`solver`) are options of the policies that declare them.
pub struct Settings {
    pub workload: Vec<(String, String)>,
    pub policy: Vec<(String, String)>,
}

impl Settings {
    /// Splits `raw` into workload and policy settings.
    pub fn split(pairs: Vec<(String, String)>) -> Self {
        let (workload, policy) = pairs.into_iter().partition(|(k, _)| k.contains('.'));
        Settings { workload, policy }
    }

    /// Refuses a policy option that none of `policies` declares for workloads of `kind`.
    pub fn check_policy_options(
        &self,
        policies: &[String],
        kind: schedlab_agents::EnvKind,
    ) -> anyhow::Result<()> {
        for (key, value) in &self.policy {
            let accepted = policies.iter().any(|spec| {
                schedlab_agents::options::parse_spec(spec)
                    .is_ok_and(|(name, _)| schedlab_agents::registry::takes_option(name, kind, key))
            });
            anyhow::ensure!(
                accepted,
                "`--set {key}={value}`: no chosen policy ({}) takes the option `{key}`; workload keys have a dot, as in `job.lr`",
                policies.join(", ")
            );
        }
        Ok(())
    }

    /// Parses `raw`, loads the workload at `path` with the workload settings and checks the
    /// policy settings against `policies` there.
    pub fn load(
        raw: &[String],
        path: &std::path::Path,
        policies: &[String],
    ) -> anyhow::Result<(Self, crate::workloads::Loaded)> {
        let settings = Settings::split(parse_overrides(raw)?);
        let loaded = crate::workloads::load(path, &settings.workload)?;
        settings.check_policy_options(policies, loaded.env_kind())?;
        Ok((settings, loaded))
    }
}
