//! `--set KEY=VALUE` pairs: parsing, and splitting them into workload and policy settings.

use schedlab_env::workload_file::WorkloadFile;

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

/// Workload keys outside any section, set without a dot (`--set execution=real`).
const WORKLOAD_TOP_KEYS: [&str; 3] = ["execution", "ready_tasks", "jobs_table"];

/// Ctrl-C during a real run (`execution = "real"`): its processes are killed and its groups
/// removed before the program exits with 130. Where a handler is set already, it stays; the
/// workers die with the program anyway and the next run removes the groups left.
pub fn remove_real_runs_on_interrupt() {
    // an error only says a handler is set already
    let _ = ctrlc::try_set_handler(|| {
        schedlab_env::real::remove_every_run();
        std::process::exit(130);
    });
}

/// `--set` pairs for commands that play policies on workloads: dotted keys (`job.lr`) override
/// the workload, plain keys (`solver`) are options of the policies that declare them.
pub struct Settings {
    pub workload: Vec<(String, String)>,
    pub policy: Vec<(String, String)>,
    /// The workload settings taken from trained policies' manifests (see [`Settings::load`]),
    /// as (policy, `key=value`) for the user to see.
    pub from_policies: Vec<(String, String)>,
}

impl Settings {
    /// Splits `raw` into workload and policy settings.
    pub fn split(pairs: Vec<(String, String)>) -> Self {
        let (workload, policy) = pairs
            .into_iter()
            .partition(|(k, _)| k.contains('.') || WORKLOAD_TOP_KEYS.contains(&k.as_str()));
        Settings {
            workload,
            policy,
            from_policies: Vec::new(),
        }
    }

    /// Adds the play settings of the trained policies among `policies` (manifest
    /// `play_settings`: the window and scaling levels their networks were built for) that the
    /// user did not set, so a shipped policy plays any workload of its kind as it is.
    /// A policy trained on another kind of env gets none (and is refused when it plays).
    fn add_trained_settings(
        &mut self,
        policies: &[String],
        kind: schedlab_agents::EnvKind,
    ) -> anyhow::Result<()> {
        let mut trained = Vec::new();
        for spec in policies {
            if let Some(run) = crate::play::trained_run(spec) {
                let manifest = schedlab_trainer::run::Manifest::read(&run)?;
                if manifest.env_kind.as_deref() == Some(kind.name()) {
                    trained.push((spec.clone(), manifest.play_settings));
                }
            }
        }
        for (key, value, policy) in merge_play_settings(&self.workload, &trained)? {
            self.from_policies.push((policy, format!("{key}={value}")));
            self.workload.push((key, value));
        }
        Ok(())
    }

    /// Tells the user which workload settings came from trained policies.
    pub fn announce(&self) {
        let mut by_policy: Vec<(&str, Vec<&str>)> = Vec::new();
        for (policy, setting) in &self.from_policies {
            match by_policy.iter_mut().find(|(p, _)| p == policy) {
                Some((_, settings)) => settings.push(setting),
                None => by_policy.push((policy, vec![setting])),
            }
        }
        for (policy, settings) in by_policy {
            eprintln!("set as {policy} was trained: {}", settings.join(", "));
        }
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
    /// policy settings against `policies` there. The file is read once: its kind (which
    /// trained policies' settings apply) and the workload are parsed from that one text.
    pub fn load(
        raw: &[String],
        path: &std::path::Path,
        policies: &[String],
    ) -> anyhow::Result<(Self, crate::workloads::Loaded)> {
        Self::load_file(raw, &WorkloadFile::read(path)?, policies)
    }

    /// [`Settings::load`] of a workload file already read.
    pub fn load_file(
        raw: &[String],
        file: &WorkloadFile,
        policies: &[String],
    ) -> anyhow::Result<(Self, crate::workloads::Loaded)> {
        let mut settings = Settings::split(parse_overrides(raw)?);
        settings.add_trained_settings(policies, crate::workloads::declared_kind(file)?)?;
        let loaded = crate::workloads::load_file(file, &settings.workload)?;
        settings.check_policy_options(policies, loaded.env_kind())?;
        if loaded.executes_for_real() {
            remove_real_runs_on_interrupt();
        }
        Ok((settings, loaded))
    }
}

/// The `(key, value, policy)` settings of trained policies that `user` leaves unset; refused
/// where two policies were trained with different values of one key (play them apart).
fn merge_play_settings(
    user: &[(String, String)],
    trained: &[(String, std::collections::BTreeMap<String, String>)],
) -> anyhow::Result<Vec<(String, String, String)>> {
    let mut merged: Vec<(String, String, String)> = Vec::new();
    for (policy, settings) in trained {
        for (key, value) in settings {
            if user.iter().any(|(k, _)| k == key) {
                continue;
            }
            match merged.iter().find(|(k, _, _)| k == key) {
                Some((_, other, first)) if other != value => anyhow::bail!(
                    "{first} was trained with {key}={other} and {policy} with {key}={value}: play them in separate runs, or set `--set {key}=...` for both"
                ),
                Some(_) => {}
                None => merged.push((key.clone(), value.clone(), policy.clone())),
            }
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use schedlab_env::workload_file::reads_of;

    use super::{Settings, merge_play_settings};

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn trained(policy: &str, items: &[(&str, &str)]) -> (String, BTreeMap<String, String>) {
        (policy.to_owned(), pairs(items).into_iter().collect())
    }

    #[test]
    fn trained_settings_fill_what_the_user_left_unset_and_agree_or_refuse() {
        let a = trained(
            "a",
            &[("window.interface", "one-choice"), ("window.queued", "12")],
        );
        let user = pairs(&[("window.queued", "8")]);
        let merged = merge_play_settings(&user, std::slice::from_ref(&a)).unwrap();
        assert_eq!(
            merged,
            vec![("window.interface".into(), "one-choice".into(), "a".into())],
            "the user's key wins"
        );
        let same = trained("b", &[("window.interface", "one-choice")]);
        let merged = merge_play_settings(&[], &[a.clone(), same]).unwrap();
        assert_eq!(
            merged.len(),
            2,
            "agreeing policies add each key once: {merged:?}"
        );
        let other = trained("c", &[("window.interface", "per-slot")]);
        let err = merge_play_settings(&[], &[a.clone(), other.clone()])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("a was trained with window.interface=one-choice"),
            "{err}"
        );
        assert!(err.contains("c with window.interface=per-slot"), "{err}");
        // a user setting of the disputed key settles it
        let user = pairs(&[("window.interface", "one-choice")]);
        assert!(merge_play_settings(&user, &[a, other]).is_ok());
    }

    /// `Settings::load` reads its workload file once, for a single job and for a jobs window
    /// with a trained policy's settings: the kind and the workload are parsed from one text.
    #[test]
    fn settings_load_reads_the_workload_file_once() {
        for (name, policy) in [
            ("small-4node.toml", "static"),
            ("philly-mini.toml", "philly-bc-raes-ppo"),
        ] {
            // spelt as no other test spells it (reads are counted by path, and `..` is kept
            // in a path's components), so tests beside it in one process do not count
            let path: PathBuf = crate::paths::shipped_workload("../workloads").join(name);
            let before = reads_of(&path);
            Settings::load(&[], &path, &[policy.to_owned()]).unwrap();
            assert_eq!(reads_of(&path) - before, 1, "{}", path.display());
        }
    }
}
