//! The documents a reader follows name files that exist: every repository path in README.md,
//! ARCHITECTURE.md and `docs/` is checked against the tree.

use std::path::PathBuf;

/// The repository's top-level folders and files a document may name.
const ROOTS: [&str; 14] = [
    "env/",
    "predictors/",
    "agents/",
    "trainer/",
    "experiments/",
    "tests/",
    "data/",
    "docs/",
    "python/",
    "examples/",
    "deploy/",
    "fuzz/",
    "ARCHITECTURE.md",
    "EXPERIMENTS.md",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The repository paths `text` names: words that start with one of [`ROOTS`], cut at
/// punctuation that cannot end a path, that look like a path (a file with an extension, a
/// folder ending in `/`, or two levels deep; not a TensorBoard tag such as `env/train_loss`),
/// leaving out patterns (`{out}/`, `*.toml`, `...`) that stand for many files.
fn named_paths(text: &str) -> Vec<String> {
    let separators = |c: char| c.is_whitespace() || "`()[]<>\"'|,;".contains(c);
    text.split(separators)
        .map(|word| word.trim_end_matches(['.', ':', '!', '?']))
        .filter(|word| ROOTS.iter().any(|root| word.starts_with(root)))
        .filter(|word| {
            let last = word.rsplit('/').next().unwrap_or(word);
            last.contains('.') || word.ends_with('/') || word.matches('/').count() >= 2
        })
        .filter(|word| !word.contains(['{', '*', '$']) && !word.contains("..."))
        .map(str::to_owned)
        .collect()
}

/// A path with a placeholder in capitals (`agents/src/jobs/NAME.rs`) stands for many files;
/// documents in capitals (`README.md`) are files.
fn is_pattern(path: &str) -> bool {
    path.split('/')
        .filter(|component| !component.ends_with(".md"))
        .flat_map(|component| component.split(['.', '-', '_']))
        .any(|part| part.len() > 1 && part.chars().all(|c| c.is_ascii_uppercase()))
}

fn documents() -> Vec<PathBuf> {
    let mut docs = vec![repo().join("README.md"), repo().join("ARCHITECTURE.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    docs.extend(guides);
    docs
}

#[test]
fn every_path_the_documents_name_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for path in named_paths(&text) {
            checked += 1;
            if !repo().join(&path).exists() && !is_pattern(&path) {
                missing.push(format!("{} names {path}", doc.display()));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths found: the scan reads nothing"
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The scan finds paths in prose, code spans and links, and leaves patterns out.
#[test]
fn the_scan_finds_paths_and_leaves_patterns_out() {
    let text = "See `agents/src/registry.rs`, (docs/dag.md) and [x](env/src/lib.rs). \
                Write agents/src/jobs/NAME.rs or `{out}/runs`; data/*.toml; ARCHITECTURE.md.";
    assert_eq!(
        named_paths(text),
        vec![
            "agents/src/registry.rs",
            "docs/dag.md",
            "env/src/lib.rs",
            "agents/src/jobs/NAME.rs",
            "ARCHITECTURE.md"
        ]
    );
    assert!(is_pattern("agents/src/jobs/NAME.rs") && !is_pattern("data/policies/README.md"));
}

/// Every bounded key of a workload file is in docs/workload-files.md's table of limits.
#[test]
fn the_limits_table_lists_every_bounded_key() {
    let text = std::fs::read_to_string(repo().join("docs/workload-files.md")).unwrap();
    let table = &text[text.find("## Limits").expect("a Limits section")..];
    for limit in schedlab_env::limits::WORKLOAD_LIMITS {
        let listed = format!("`{}`", limit.key);
        let under_mix = limit.key.strip_prefix("mix.").is_some();
        assert!(
            table.contains(&listed) || under_mix,
            "docs/workload-files.md's Limits leave out `{}` (at most {})",
            limit.key,
            limit.max
        );
    }
}

/// README's and ARCHITECTURE.md's lines on the trainer name every learner of its table.
#[test]
fn the_trainer_is_described_with_every_learner_it_has() {
    let lines = [
        ("README.md", "trainer/      schedlab-trainer:"),
        ("ARCHITECTURE.md", "| `trainer/` |"),
        ("ARCHITECTURE.md", "trainer/src/ "),
    ];
    for (document, start) in lines {
        let text = std::fs::read_to_string(repo().join(document)).unwrap();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(start.trim_start()) || l.contains(start))
            .unwrap_or_else(|| panic!("{document} has no line on the trainer ({start})"));
        for name in schedlab_trainer::algorithms::AgentKind::names() {
            assert!(
                line.contains(&name.to_uppercase()),
                "{document}'s line on the trainer leaves out {name}: {line}"
            );
        }
    }
}
