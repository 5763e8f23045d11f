//! A versioned suite (`data/suites/NAME-vN/suite.toml`, docs/benchmark.md): its training
//! family, the seeds that draw its validation episodes from that family, its test windows
//! split off by time, the seeds each test window is played with, the metric it ranks by and
//! the reference heuristic every entry is measured against.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

use super::manifest;
use crate::paths::data_root;
use crate::workloads::kind_of_file;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    name: String,
    version: u32,
    kind: String,
    /// A metric column of the kind, lower is better (`schedlab policies` lists the columns).
    metric: String,
    /// The heuristic every entry's ratio divides by.
    reference: String,
    /// Seeds each test window is played with.
    seeds: Vec<u64>,
    /// The training family, relative to the suite's folder.
    train: String,
    /// `[first, end)`: the only seeds the training family may be played with, where its
    /// episodes are drawn by seed (single job, network); absent where the split is by time.
    train_seeds: Option<[u64; 2]>,
    /// Seeds that draw validation episodes from the training family: tune on these.
    #[serde(default)]
    validation_seeds: Vec<u64>,
    /// A folder of validation windows (played at `seeds`), relative to the suite's folder.
    validation: Option<String>,
    /// The folder of test windows, relative to the suite's folder: score once.
    test: String,
    /// Where the splits fall in time (the card's words, kept with the files).
    split: String,
}

impl SuiteFile {
    /// Where training is bounded to seeds, validation and test seeds lie outside that range
    /// and apart from each other: the split of a kind whose episodes are drawn by seed.
    fn check_seeds_disjoint(&self) -> anyhow::Result<()> {
        let Some([first, end]) = self.train_seeds else {
            return Ok(());
        };
        if first >= end {
            bail!("train_seeds [{first}, {end}) is empty");
        }
        let in_training = |s: &&u64| (first..end).contains(*s);
        if let Some(s) = (self.validation_seeds.iter().chain(&self.seeds)).find(in_training) {
            bail!("seed {s} is both a validation or test seed and in train_seeds [{first}, {end})");
        }
        if let Some(s) = self
            .seeds
            .iter()
            .find(|s| self.validation_seeds.contains(s))
        {
            bail!("seed {s} is both a validation seed and a test seed");
        }
        Ok(())
    }

    /// The suite.toml of the suite's folder `dir`.
    fn read(dir: &Path) -> anyhow::Result<SuiteFile> {
        let path = dir.join("suite.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("reading {}", path.display()))
    }
}

/// A suite checked against its manifest.
#[derive(Debug, Clone)]
pub struct Suite {
    pub dir: PathBuf,
    pub name: String,
    pub version: u32,
    pub kind: String,
    pub metric: String,
    pub reference: String,
    pub seeds: Vec<u64>,
    pub train: PathBuf,
    pub validation_seeds: Vec<u64>,
    pub validation: Vec<PathBuf>,
    pub test: Vec<PathBuf>,
    pub split: String,
    /// SHA-256 of the manifest: these exact files.
    pub manifest_sha256: String,
}

/// The splits an entry may be scored on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// The test windows at the suite's seeds: what a result reports.
    Test,
    /// The validation windows at the seeds, and the training family at the validation seeds:
    /// what may be tuned on.
    Validation,
}

impl Suite {
    /// The suite `id` (`philly-v1`), a folder of data/suites/, or the folder at `id` where it
    /// is a path; its files checked against its manifest.
    pub fn open(id: &str) -> anyhow::Result<Suite> {
        let as_path = Path::new(id);
        let dir = if as_path.join("suite.toml").is_file() {
            as_path.to_path_buf()
        } else {
            data_root("suites").join("suites").join(id)
        };
        if !dir.join("suite.toml").is_file() {
            let known = Self::shipped().unwrap_or_default().join(", ");
            bail!("no suite {id:?} (data/suites/ holds: {known})");
        }
        let manifest_sha256 = manifest::verify(&dir)?;
        let path = dir.join("suite.toml");
        let file = SuiteFile::read(&dir)?;
        let test = windows_in(&dir, &file.test)?;
        let validation = match &file.validation {
            Some(folder) => windows_in(&dir, folder)?,
            None => Vec::new(),
        };
        if test.is_empty() || file.seeds.is_empty() {
            bail!("{}: a suite needs test windows and seeds", path.display());
        }
        file.check_seeds_disjoint()
            .with_context(|| path.display().to_string())?;
        let train = dir.join(&file.train);
        let workloads = std::iter::once(&train).chain(&validation).chain(&test);
        for workload in workloads {
            let kind = kind_of_file(workload)?.name();
            if kind != file.kind {
                bail!(
                    "{}: kind is {:?}, but {} is a {kind} workload",
                    path.display(),
                    file.kind,
                    workload.display()
                );
            }
        }
        Ok(Suite {
            train,
            dir,
            name: file.name,
            version: file.version,
            kind: file.kind,
            metric: file.metric,
            reference: file.reference,
            seeds: file.seeds,
            validation_seeds: file.validation_seeds,
            validation,
            test,
            split: file.split,
            manifest_sha256,
        })
    }

    /// `NAME-vN`.
    pub fn id(&self) -> String {
        format!("{}-v{}", self.name, self.version)
    }

    /// The shipped suites' ids.
    pub fn shipped() -> anyhow::Result<Vec<String>> {
        let mut ids: Vec<String> = std::fs::read_dir(data_root("suites").join("suites"))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("suite.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// The shipped versions of the suite named `name` with their ids, oldest first (read from
    /// their suite.toml alone: their files are checked when one is opened).
    pub fn versions_of(name: &str) -> anyhow::Result<Vec<(u32, String)>> {
        let shipped = data_root("suites").join("suites");
        let mut versions = Vec::new();
        for id in Self::shipped()? {
            let file = SuiteFile::read(&shipped.join(&id))?;
            if file.name == name {
                versions.push((file.version, format!("{}-v{}", file.name, file.version)));
            }
        }
        versions.sort();
        Ok(versions)
    }

    /// The episodes of `split`: (workload file, episode name, seed), in a fixed order. The
    /// validation split is the validation windows at the suite's seeds, then the training
    /// family at the validation seeds.
    pub fn episodes(&self, split: Split) -> Vec<(PathBuf, String, u64)> {
        let at_seeds = |windows: &[PathBuf]| -> Vec<(PathBuf, String, u64)> {
            (windows.iter())
                .flat_map(|w| {
                    let name = w.file_stem().map(|s| s.to_string_lossy().into_owned());
                    let name = name.unwrap_or_default();
                    self.seeds
                        .iter()
                        .map(move |&s| (w.clone(), name.clone(), s))
                })
                .collect()
        };
        match split {
            Split::Test => at_seeds(&self.test),
            Split::Validation => {
                let mut episodes = at_seeds(&self.validation);
                episodes.extend(
                    (self.validation_seeds.iter())
                        .map(|&s| (self.train.clone(), "validation".to_owned(), s)),
                );
                episodes
            }
        }
    }
}

/// The workload files of `folder` (relative to the suite's folder `dir`), sorted.
fn windows_in(dir: &Path, folder: &str) -> anyhow::Result<Vec<PathBuf>> {
    let path = dir.join(folder);
    let mut windows: Vec<PathBuf> = std::fs::read_dir(&path)
        .with_context(|| format!("{}: its folder {folder}", dir.join("suite.toml").display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    windows.sort();
    Ok(windows)
}
