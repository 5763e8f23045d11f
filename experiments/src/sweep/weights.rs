//! Which network a trained policy's rows were played with. A shipped policy keeps its name
//! when it is given new weights (data/policies/README.md), so a row keyed by name alone would
//! keep the old network's episodes; each row records the SHA-256 of the `manifest.json` of the
//! run folder it played (the manifest names the weights file), and rows of another manifest are
//! played again.

use std::collections::HashMap;

use anyhow::Context;
use schedlab_artifacts::sha256_file;

use super::journal::Row;
use super::spec::{Cell, SweepSpec, TRAIN_PREFIX};
use crate::play::trained_run;

/// The SHA-256 of the manifest of the run folder `policy` names (a path or a shipped policy's
/// name); empty for a policy that is not a run folder, and for `train:AGENT`, whose run the
/// sweep trains and the sources' fingerprint already ties to this build.
pub fn weights_of(policy: &str) -> anyhow::Result<String> {
    let run = trained_run(policy).filter(|_| !policy.starts_with(TRAIN_PREFIX));
    let Some(run) = run else {
        return Ok(String::new());
    };
    let manifest = run.join("manifest.json");
    sha256_file(&manifest).with_context(|| format!("reading {}", manifest.display()))
}

/// [`weights_of`] each policy that `cells` play, by its index in `spec`.
pub fn weights_by_policy(
    spec: &SweepSpec,
    cells: &[Cell],
) -> anyhow::Result<HashMap<usize, String>> {
    let mut by_policy = HashMap::new();
    for cell in cells {
        if !by_policy.contains_key(&cell.policy) {
            by_policy.insert(cell.policy, weights_of(&spec.policies[cell.policy])?);
        }
    }
    Ok(by_policy)
}

/// What the run folder of each policy that `rows` recorded weights for holds now
/// ([`weights_of`]), by policy. Rows that recorded none (heuristics, `train:AGENT`, rows from
/// before rows recorded it) are not checked.
pub fn weights_now(rows: &[Row]) -> anyhow::Result<HashMap<String, String>> {
    let mut now = HashMap::new();
    for row in rows.iter().filter(|r| checked(r)) {
        if !now.contains_key(&row.key.policy) {
            now.insert(row.key.policy.clone(), weights_of(&row.key.policy)?);
        }
    }
    Ok(now)
}

/// Whether `row` was played with another network than its policy's folder held in `now`.
pub fn played_other_weights(row: &Row, now: &HashMap<String, String>) -> bool {
    checked(row) && now.get(&row.key.policy) != Some(&row.policy_sha256)
}

fn checked(row: &Row) -> bool {
    !row.policy_sha256.is_empty()
}
