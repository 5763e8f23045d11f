//! The layout rules of ARCHITECTURE.md, checked on the source tree: the files and folders of
//! every crate stack in layers (no import cycle between files, no circle between the modules
//! of a folder), the kind of a workload told apart in one place only, and the binding built on
//! the workspace's compiled dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use schedlab_tests::function_length::{functions, production_code};
use schedlab_tests::import_graph::{
    ImportGraph, closing_brace, code_of, declared_children, referenced_paths, rust_files,
};
use schedlab_tests::module_roots::{is_root, logic_lines};

const CRATES: [&str; 8] = [
    "artifacts",
    "env",
    "predictors",
    "agents",
    "trainer",
    "experiments",
    "tests",
    "python",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repo())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The imports that run back up, each named exactly, with why: (crate, file, the file it
/// imports, why). The envs start real execution, and real execution runs the envs' own
/// server, rules and scenarios; these three imports are where the envs start it. Each must
/// still exist, so the list only shrinks.
const TOLERATED_IMPORTS: [(&str, &str, &str, &str); 3] = [
    ("env", "jobs/env.rs", "real/jobs/cluster.rs", START_REAL),
    ("env", "jobs/state.rs", "real/jobs/cluster.rs", START_REAL),
    (
        "env",
        "single_job/env.rs",
        "real/single_job/training.rs",
        START_REAL,
    ),
];

const START_REAL: &str = "an env starts its episode on real processes where its workload says \
    `execution = \"real\"`; passing the backend in instead would change every caller of \
    `JobsEnv::new` and `SingleJobEnv::new` (ARCHITECTURE.md, \"Rules checked by tests\")";

/// What the rules report for the crate whose sources are in `src`: the files along an import
/// cycle, or the modules of a folder that import one another around a circle.
fn layout_report(krate: &str, src: &Path) -> Option<String> {
    let mut graph = ImportGraph::of(src);
    for (_, from, to, why) in TOLERATED_IMPORTS.iter().filter(|(k, ..)| *k == krate) {
        assert!(
            graph.forget_import(&src.join(from), &src.join(to)),
            "{krate}: {from} no longer imports {to}: remove its exception ({why})"
        );
    }
    cycle_report(krate, &graph)
}

fn cycle_report(krate: &str, graph: &ImportGraph) -> Option<String> {
    if let Some(cycle) = graph.file_cycle() {
        let files: Vec<String> = cycle.iter().map(|p| relative(p)).collect();
        return Some(format!("{krate}: import cycle {}", files.join(" -> ")));
    }
    graph.module_cycle().map(|(folder, modules, steps)| {
        let names: Vec<String> = modules.iter().map(|m| m.join("::")).collect();
        format!(
            "{krate}: in {}/, the modules {} import one another around a circle ({})",
            folder.join("/"),
            names.join(" -> "),
            steps.join("; ")
        )
    })
}

#[test]
fn every_crate_stacks_its_files_and_folders_in_layers() {
    for krate in CRATES {
        let src = repo().join(krate).join("src");
        assert!(src.is_dir(), "{krate}: no sources at {}", src.display());
        if let Some(report) = layout_report(krate, &src) {
            panic!("{report}");
        }
    }
}

/// PPO's phases in CleanRL's order each own their state: the rollout, the advantages and the
/// update import neither the trainer that holds them nor its learner, nor the module root
/// that declares them, and none of them imports a later phase.
#[test]
fn ppos_phases_import_neither_the_trainer_nor_a_later_phase() {
    let src = repo().join("trainer/src");
    let graph = ImportGraph::of(&src);
    let ppo = src.join("ppo");
    let phases = ["rollout.rs", "advantages.rs", "update.rs"];
    let holders = [
        src.join("ppo.rs"),
        ppo.join("trainer.rs"),
        ppo.join("learner.rs"),
    ];
    let mut wrong = Vec::new();
    for (k, phase) in phases.iter().enumerate() {
        let imports = graph
            .edges
            .get(&ppo.join(phase))
            .unwrap_or_else(|| panic!("trainer/src/ppo/{phase} is gone"));
        let later = phases[k + 1..].iter().map(|p| ppo.join(p));
        for target in holders.iter().cloned().chain(later) {
            if imports.contains(&target) {
                wrong.push(format!("ppo/{phase} imports {}", relative(&target)));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A child that imports back, by a bare path, the root that declares it: `ppo.rs` declares
/// `fit` and uses `fit::step`, and `ppo/fit.rs` names `super::Trainer`, which `ppo.rs` itself
/// defines. The root is a node like any other file.
#[test]
fn a_bare_child_import_back_is_reported() {
    let src = planted(
        "bare-child",
        &[
            ("lib.rs", "mod ppo;\n"),
            (
                "ppo.rs",
                "mod fit;\nuse fit::step;\npub struct Trainer;\nfn go() { step(); }\n",
            ),
            ("ppo/fit.rs", "use super::Trainer;\npub fn step() {}\n"),
        ],
    );
    let report = layout_report("planted", &src).expect("a cycle");
    std::fs::remove_dir_all(&src).unwrap();
    assert!(
        report.contains("import cycle") && report.contains("ppo.rs") && report.contains("fit.rs"),
        "{report}"
    );
    let children = declared_children("pub mod a;\nmod b;\npub(crate) mod c;\nmod d {\n}\n");
    assert_eq!(children, ["a", "b", "c"]);
}

/// Writes a scratch crate of `files` (path, text) and returns its `src`.
fn planted(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let src = std::env::temp_dir().join(format!("schedlab-{name}-{}", std::process::id()));
    for (file, text) in files {
        let path = src.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    src
}

/// A cycle planted in a crate's files is reported, naming them.
#[test]
fn a_planted_cycle_is_reported_with_its_files() {
    let src = planted(
        "cycle",
        &[
            ("lib.rs", "mod jobs;\nmod view;\n"),
            ("jobs/mod.rs", "mod state;\n"),
            (
                "jobs/state.rs",
                "use crate::view::render;\npub struct State;\n",
            ),
            (
                "view.rs",
                "pub fn render(s: &super::jobs::state::State) {}\n",
            ),
        ],
    );
    let report = layout_report("planted", &src).expect("a cycle");
    std::fs::remove_dir_all(&src).unwrap();
    assert!(
        report.contains("import cycle")
            && report.contains("jobs/state.rs")
            && report.contains("view.rs"),
        "{report}"
    );
}

/// A cycle through a module root's re-export is a cycle: `view.rs` names `crate::jobs::State`,
/// which `jobs/mod.rs` re-exports from `jobs/state.rs`.
#[test]
fn a_cycle_through_a_re_export_is_reported() {
    let src = planted(
        "reexport",
        &[
            ("lib.rs", "mod jobs;\nmod view;\n"),
            ("jobs/mod.rs", "mod state;\npub use state::State;\n"),
            (
                "jobs/state.rs",
                "use crate::view::render;\npub struct State;\n",
            ),
            ("view.rs", "pub fn render(s: &crate::jobs::State) {}\n"),
        ],
    );
    let report = layout_report("planted", &src).expect("a cycle");
    std::fs::remove_dir_all(&src).unwrap();
    assert!(report.contains("jobs/state.rs -> "), "{report}");
}

/// A cycle through the crate root's re-export, declared after a test module: `b.rs` names
/// `crate::A`, which `lib.rs` re-exports from `a.rs`, and `a.rs` uses `b.rs`.
#[test]
fn a_cycle_through_the_crate_roots_re_export_is_reported() {
    let src = planted(
        "root-reexport",
        &[
            (
                "lib.rs",
                "mod a;\nmod b;\n#[cfg(test)]\nmod testkit;\npub use a::A;\n",
            ),
            ("a.rs", "pub struct A;\npub fn f() { crate::b::g(); }\n"),
            ("b.rs", "pub fn g() {}\npub fn h(_: crate::A) {}\n"),
            ("testkit.rs", "pub fn kit() {}\n"),
        ],
    );
    let report = layout_report("planted", &src).expect("a cycle");
    std::fs::remove_dir_all(&src).unwrap();
    assert!(
        report.contains("a.rs") && report.contains("b.rs"),
        "{report}"
    );
}

/// An import back up: `a/low.rs` uses `b.rs`, which uses `a/high.rs`. No two files import
/// each other, but the modules `a` and `b` do, so neither stacks on the other; the report
/// names the folder, the modules and an import of each step. Test code does not count.
#[test]
fn a_planted_import_back_up_is_reported_with_its_modules() {
    let src = planted(
        "layers",
        &[
            ("lib.rs", "mod a;\nmod b;\n#[cfg(test)]\nmod testkit;\n"),
            ("a/mod.rs", "mod high;\nmod low;\n"),
            ("a/high.rs", "pub struct High;\n"),
            ("a/low.rs", "pub fn low() { crate::b::b(); }\n"),
            ("b.rs", "pub fn b(_: crate::a::high::High) {}\n"),
            ("testkit.rs", "pub fn kit() { crate::a::low::low(); }\n"),
        ],
    );
    let report = layout_report("planted", &src).expect("modules around a circle");
    let tests_alone = planted(
        "layers-tests",
        &[
            ("lib.rs", "mod a;\n#[cfg(test)]\nmod testkit;\n"),
            (
                "a.rs",
                "pub fn a() {}\n#[cfg(test)]\nmod t { fn t() { crate::testkit::kit(); } }\n",
            ),
            ("testkit.rs", "pub fn kit() { crate::a::a(); }\n"),
        ],
    );
    let clean = layout_report("planted", &tests_alone);
    std::fs::remove_dir_all(&src).unwrap();
    std::fs::remove_dir_all(&tests_alone).unwrap();
    assert!(
        report.contains("in /,")
            && report.contains("a/low.rs -> b.rs")
            && report.contains("b.rs -> a/high.rs"),
        "{report}"
    );
    assert_eq!(clean, None, "test code is not part of the layers");
}

#[test]
fn the_paths_of_a_file_are_read_through_super_crate_and_groups() {
    let module = ["jobs".to_owned(), "env".to_owned()];
    let paths = referenced_paths(
        "use super::observe::{observe, SLOT as S};\nlet x = crate::gym::Step::new();\nuse fit::{step};",
        &module,
        &["fit".to_owned()],
    );
    assert!(paths.contains(&vec![
        "jobs".into(),
        "env".into(),
        "fit".into(),
        "step".into()
    ]));
    assert!(paths.contains(&vec!["jobs".into(), "observe".into(), "observe".into()]));
    assert!(paths.contains(&vec!["jobs".into(), "observe".into(), "SLOT".into()]));
    assert!(paths.contains(&vec!["gym".into(), "Step".into(), "new".into()]));
}

/// Whether `code` matches over the kinds itself (a match whose arms name all four variants,
/// `SingleJob`, `Jobs`, `Dag`, `Network`, of whatever enum: `EnvKind`'s or one holding a value
/// per kind) or asks a file its kind.
/// Code that goes through env's `each_kind!` uses the one match rather than writing another.
fn matches_over_kinds(code: &str) -> bool {
    writes_a_match_over_kinds(code)
        || code.contains("EnvKind::of_file(")
        || code.contains("EnvKind::of(")
}

/// Whether `code` writes a match whose arms name all four kinds.
fn writes_a_match_over_kinds(code: &str) -> bool {
    let arms = ["SingleJob", "Jobs", "Dag", "Network"];
    code.match_indices("match ").any(|(at, _)| {
        // the match's block: from its `{` to the brace that closes it
        let Some(open) = code[at..].find('{').map(|o| at + o) else {
            return false;
        };
        let close = closing_brace(code, open).unwrap_or(code.len());
        let block = &code[open..close];
        arms.iter().all(|arm| {
            block.match_indices(&format!("::{arm}")).any(|(k, m)| {
                // the variant itself, not a longer name that starts with it
                !block[k + m.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        })
    })
}

/// The files outside `env` (every crate, `python/` and the fuzz targets included) that match
/// over the kinds.
fn kind_dispatches() -> Vec<String> {
    let mut files = Vec::new();
    for krate in CRATES.iter().filter(|k| **k != "env") {
        rust_files(&repo().join(krate).join("src"), &mut files);
    }
    rust_files(&repo().join("fuzz/fuzz_targets"), &mut files);
    files
        .iter()
        .filter(|f| matches_over_kinds(&std::fs::read_to_string(f).unwrap()))
        .map(|f| relative(f))
        .collect()
}

/// A kind is one row: every enum and match over the kinds (env's `EnvKind`, `AnyWorkload`,
/// `AnyEnv`, `AnyVecEnv` and `each_kind!`, the agents' `EnvContext`, the command line's
/// `Loaded`) is made from the table in `env/src/kinds.rs`, so no file of any crate, env
/// included, writes a match that names every kind. The Python binding steps envs through
/// env's `AnyEnv` as it is, and only the command line's entry point
/// (`experiments/src/workloads/mod.rs`) asks a file its kind outside env.
#[test]
fn one_dispatch_over_the_kinds_serves_the_cli_and_the_python_binding() {
    let mut env_files = Vec::new();
    rust_files(&repo().join("env/src"), &mut env_files);
    let written: Vec<String> = env_files
        .iter()
        .filter(|f| writes_a_match_over_kinds(&std::fs::read_to_string(f).unwrap()))
        .map(|f| relative(f))
        .collect();
    assert!(
        written.is_empty(),
        "{written:?} match over the kinds by hand"
    );
    assert_eq!(kind_dispatches(), ["experiments/src/workloads/loaded.rs"]);
    assert!(matches_over_kinds(
        "match k { A::SingleJob(x) => 1, A::Jobs(x) => 2, A::Dag(x) => 3, A::Network(x) => 4 }"
    ));
    assert!(matches_over_kinds(
        "match k { EnvKind::SingleJob | EnvKind::Dag => 1, EnvKind::Jobs => 2, EnvKind::Network => 3 }"
    ));
    assert!(!matches_over_kinds(
        "match k { A::Jobs(x) => 2, _ => 0 }\nmatch j { A::SingleJob(x) => 1, A::Dag(x) => 3, A::Networks => 4 }"
    ));
}

/// The modules a kind keeps in each crate that knows it (ARCHITECTURE.md, "Add a kind of
/// environment"), for the kind whose module is `m`: the places a kind may be named in.
fn own_modules(m: &str) -> [String; 4] {
    [
        format!("env/src/{m}/"),
        format!("agents/src/{m}/"),
        format!("agents/src/context/{m}.rs"),
        format!("experiments/src/workloads/{m}.rs"),
    ]
}

/// The lines of `code` (code only: comments and strings blanked) with an identifier that
/// names the kind of module `word` (lower case): the module itself, or a type of its
/// (`Word` then a capital or nothing, as `BanditEnv`), as (line number, line).
fn lines_naming(code: &str, word: &str) -> Vec<(usize, String)> {
    let camel: String = word
        .split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
        })
        .collect();
    let names = |ident: &str| {
        ident == word
            || ident
                .strip_prefix(camel.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_uppercase))
    };
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(names)
        })
        .map(|(k, line)| (k + 1, line.trim().to_owned()))
        .collect()
}

/// Where the kind of module `m` is named outside its own modules, among `files` (path
/// relative to the repository, code only), other than its `mod` lines and its one row of
/// the table of kinds (the consecutive lines of `env/src/kinds.rs` that name it).
fn places_beyond_one_row(files: &[(String, String)], m: &str) -> Vec<String> {
    let own = own_modules(m);
    let mod_lines = [format!("pub mod {m};"), format!("mod {m};")];
    let mut beyond = Vec::new();
    for (file, code) in files {
        if own.iter().any(|o| file.starts_with(o.as_str())) {
            continue;
        }
        let mut row_lines = Vec::new();
        for (line, text) in lines_naming(code, m) {
            if mod_lines.contains(&text) {
                continue;
            }
            if file == "env/src/kinds.rs" {
                row_lines.push(line);
                continue;
            }
            beyond.push(format!("{file}:{line}: {text}"));
        }
        if row_lines.windows(2).any(|w| w[1] > w[0] + 1) {
            beyond.push(format!("{file}: lines {row_lines:?} are more than one row"));
        }
    }
    beyond
}

/// The kinds added since the table reached every place a kind needs, by module: each is named
/// nowhere but its modules, their `mod` lines and its row.
const KINDS_IN_ONE_PLACE: [&str; 3] = ["bandit", "control", "markov"];

/// The bandit (`env/src/bandit/`), the control tasks (`env/src/control/`) and the chains
/// (`env/src/markov/`) are kinds added
/// in one place: outside the module it keeps
/// in each crate that knows it, it is named only in their `mod` lines and its row of the
/// table of kinds; every command, the registry, the contexts and the Python binding reach it
/// from the row. A kind that needed a match arm or a registration anywhere else would be
/// named there, and this fails; so does a second row planted in the table.
#[test]
fn a_kind_is_named_only_in_its_modules_their_mod_lines_and_its_row() {
    let mut files = Vec::new();
    for krate in CRATES.iter().filter(|k| **k != "tests") {
        for (file, code) in production_code(&repo().join(krate).join("src")) {
            files.push((relative(&file), code));
        }
    }
    let mut python = Vec::new();
    for entry in std::fs::read_dir(repo().join("python/schedlab")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "py") {
            let text = std::fs::read_to_string(&path).unwrap();
            python.extend(
                lines_naming(&text, "bandit")
                    .into_iter()
                    .map(|(l, t)| format!("{}:{l}: {t}", relative(&path))),
            );
        }
    }
    let mut beyond: Vec<String> = KINDS_IN_ONE_PLACE
        .iter()
        .flat_map(|m| places_beyond_one_row(&files, m))
        .collect();
    beyond.extend(python);
    assert!(beyond.is_empty(), "{beyond:#?}");
    for m in KINDS_IN_ONE_PLACE {
        let named: BTreeSet<&str> = files
            .iter()
            .filter(|(file, code)| {
                !own_modules(m).iter().any(|o| file.starts_with(o.as_str()))
                    && !lines_naming(code, m).is_empty()
            })
            .map(|(file, _)| file.as_str())
            .collect();
        assert_eq!(
            named,
            BTreeSet::from([
                "agents/src/context/mod.rs",
                "agents/src/lib.rs",
                "env/src/kinds.rs",
                "env/src/lib.rs",
                "experiments/src/workloads/mod.rs",
            ]),
            "{m}"
        );
    }
    // planted: a match arm in the command line, and a second row in the table
    let row =
        "(Pebble, pebble, \"pebble\", \"\",\n  Arc<pebble::W>, pebble::E,\n  PebbleContext),\n";
    let planted = [
        ("env/src/lib.rs".to_owned(), "pub mod pebble;\n".to_owned()),
        (
            "env/src/kinds.rs".to_owned(),
            format!("{row}(Jobs, jobs),\n{row}"),
        ),
        (
            "experiments/src/commands/run.rs".to_owned(),
            "match kind { EnvKind::Pebble => 1, _ => 0 }\n".to_owned(),
        ),
        (
            "experiments/src/workloads/pebble.rs".to_owned(),
            "struct Pebble;\n".to_owned(),
        ),
    ];
    let found = places_beyond_one_row(&planted, "pebble");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with("env/src/kinds.rs: lines [1, 2, 3, 5, 6, 7]"));
    assert!(found[1].starts_with("experiments/src/commands/run.rs:1: match kind"));
}

/// Comments cite files of the repository, never ones outside it.
#[test]
fn no_comment_cites_the_design_notes_outside_the_repository() {
    for krate in CRATES {
        let mut files = Vec::new();
        rust_files(&repo().join(krate).join("src"), &mut files);
        rust_files(&repo().join(krate).join("tests"), &mut files);
        for file in files.iter().filter(|f| !f.ends_with("architecture.rs")) {
            let text = std::fs::read_to_string(file).unwrap();
            assert!(
                !text.contains("DESIGN §") && !text.contains("DESIGN.md"),
                "{} cites DESIGN, which is not in the repository; cite ARCHITECTURE.md",
                file.display()
            );
        }
    }
}

/// The feature sets `cargo tree` resolves for each package, keyed by name and version: a
/// package built both for the target and for build scripts can have two, the target's the
/// widest.
fn resolved_features(selection: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let output = Command::new(option_env!("CARGO").unwrap_or("cargo"))
        .current_dir(repo())
        .args(["tree", "--locked", "--offline", "--prefix", "none"])
        .args(["--format", "{p}|{f}"])
        .args(selection)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut features: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        if let Some((package, set)) = line.trim_end_matches(" (*)").split_once('|') {
            let package = package.split(" (").next().unwrap().to_string();
            features.entry(package).or_default().insert(set.to_string());
        }
    }
    features
}

/// The README's test command builds the workspace's tests, then the binding alone
/// (`pip install .`). Every dependency the two share must resolve to the same features, or
/// the second build compiles burn's stack again (minutes of CI); python/Cargo.toml lists the
/// features the rest of the workspace turns on.
#[test]
fn the_python_binding_reuses_the_workspaces_compiled_dependencies() {
    let workspace = resolved_features(&["--workspace", "--edges", "normal,build,dev"]);
    let binding = resolved_features(&["--package", "schedlab-py", "--edges", "normal,build"]);
    let differing: Vec<String> = binding
        .iter()
        .filter_map(|(package, sets)| {
            let theirs = workspace.get(package)?;
            let widest = |sets: &BTreeSet<String>| -> BTreeSet<String> {
                sets.iter()
                    .flat_map(|set| set.split(','))
                    .map(str::to_string)
                    .collect()
            };
            (!sets.is_subset(theirs) || widest(sets) != widest(theirs))
                .then(|| format!("{package}: binding {sets:?}, workspace {theirs:?}"))
        })
        .collect();
    assert!(
        binding.keys().any(|package| package.starts_with("burn ")),
        "the binding's tree names burn"
    );
    assert!(
        differing.is_empty(),
        "add these features to python/Cargo.toml's feature list:\n{}",
        differing.join("\n")
    );
}

/// No function outside test code, in any crate, is over 80 lines (from its `fn` to its
/// closing brace): an algorithm reads in one sitting.
#[test]
fn no_function_outside_test_code_is_over_80_lines() {
    let mut long = Vec::new();
    for krate in CRATES {
        for (file, code) in production_code(&repo().join(krate).join("src")) {
            for (name, line, lines) in functions(&code) {
                if lines > 80 {
                    long.push(format!("{}:{line} {name}: {lines} lines", relative(&file)));
                }
            }
        }
    }
    assert!(long.is_empty(), "{long:#?}");
}

/// The module roots of every crate but `tests`, with their code (test code left out).
fn module_roots() -> Vec<(PathBuf, String)> {
    CRATES
        .iter()
        .filter(|k| **k != "tests")
        .flat_map(|krate| production_code(&repo().join(krate).join("src")))
        .filter(|(file, code)| is_root(file, code))
        .collect()
}

/// The most lines of logic a module root may hold (ARCHITECTURE.md, "Rules checked by tests").
const ROOT_LOGIC_LINES: usize = 30;

/// Module roots declare and re-export: no root outside the tests crate has more than 30 lines
/// that are not comments, attributes, declarations, `use` items or constant tables.
#[test]
fn module_roots_only_declare_re_export_and_tabulate() {
    let heavy: Vec<String> = module_roots()
        .iter()
        .filter_map(|(file, code)| {
            let lines = logic_lines(code);
            (lines.len() > ROOT_LOGIC_LINES).then(|| {
                format!(
                    "{}: {} lines of logic, from line {}",
                    relative(file),
                    lines.len(),
                    lines[0]
                )
            })
        })
        .collect();
    assert!(
        heavy.is_empty(),
        "move the logic into files named for it:\n{}",
        heavy.join("\n")
    );
}

/// A planted root with logic is caught, one with a long constant table is not, and a file
/// with a child module is a root.
#[test]
fn a_planted_module_root_with_logic_is_reported() {
    let logic: String = (0..31).map(|k| format!("fn f{k}() {{}}\n")).collect();
    let code = code_of(&format!(
        "//! A root.\nmod a;\npub use a::A;\n#[derive(Debug)]\n{logic}"
    ));
    assert_eq!(logic_lines(&code), (5..=35).collect::<Vec<_>>());
    let table: String = (0..40).map(|k| format!("    row({k}),\n")).collect();
    let tabulated =
        format!("mod a;\npub const ROWS: &[Row] = &[\n{table}];\nuse a::{{\n    b,\n}};\n");
    assert_eq!(logic_lines(&tabulated), Vec::<usize>::new());
    assert!(is_root(Path::new("src/ppo.rs"), "mod fit;\nfn f() {}\n"));
    assert!(!is_root(
        Path::new("src/fit.rs"),
        "fn f() {}\nmod tests {}\n"
    ));
}

/// Files over 600 lines, outside test code, each with why it stays whole.
const LONG_FILES: [(&str, &str); 2] = [
    (
        "env/src/single_job/sim/engine.rs",
        "the discrete-event engine is one type whose event handlers share its private queue \
         and worker state; its rules, costs and server already have files of their own",
    ),
    (
        "env/src/jobs/env.rs",
        "the jobs env's step, clock and decision points are one state machine over its private \
         state; its observation, accounting, conservation and choices have files of their own",
    ),
];

/// No file outside test code is over 600 lines (its items under `#[cfg(test)]` left out),
/// except those listed with their reason; a listed file that has shrunk below the bar fails
/// too, so the list only shrinks.
#[test]
fn no_file_outside_test_code_is_over_600_lines() {
    let mut long = Vec::new();
    for krate in CRATES.iter().filter(|k| **k != "tests") {
        let src = repo().join(krate).join("src");
        for (file, _) in production_code(&src) {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines = schedlab_tests::import_graph::without_test_items(&text)
                .lines()
                .count();
            let name = relative(&file);
            let listed = LONG_FILES.iter().any(|(f, _)| *f == name);
            if lines > 600 && !listed {
                long.push(format!("{name}: {lines} lines"));
            }
            if lines <= 600 && listed {
                long.push(format!(
                    "{name}: {lines} lines, listed as long: take it off LONG_FILES"
                ));
            }
        }
    }
    assert!(long.is_empty(), "{long:#?}");
}

/// Outside `env/src/real/`, no code starts a process or writes cgroups (names a cgroup control
/// file in a string and writes files; the memory budget only reads its own limit): real
/// execution has one home. A planted spawn and a planted write are caught.
#[test]
fn processes_and_cgroups_are_touched_only_by_the_real_execution_home() {
    let home = repo().join("env/src/real");
    let cgroup_files = [
        "cgroup.procs\"",
        "cpu.max\"",
        "cpu.cfs_quota_us\"",
        "memory.max\"",
        "memory.limit_in_bytes\"",
        "\"/sys/fs/cgroup",
    ];
    let writes = ["fs::write(", "File::create(", "OpenOptions::new("];
    let touches = |code: &str, text: &str| {
        code.contains("Command::new")
            || code.contains(".spawn(")
            || cgroup_files.iter().any(|f| text.contains(f))
                && writes.iter().any(|w| code.contains(w))
    };
    let mut outside = Vec::new();
    for krate in CRATES.iter().filter(|k| **k != "tests") {
        for (file, code) in production_code(&repo().join(krate).join("src")) {
            let raw = std::fs::read_to_string(&file).unwrap();
            let uncommented: String = raw
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let text = schedlab_tests::import_graph::without_test_items(&uncommented);
            if !file.starts_with(&home) && touches(&code, &text) {
                outside.push(relative(&file));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "{outside:?} start processes or touch cgroups"
    );
    assert!(touches("let c = std::process::Command::new(bin);", ""));
    let write = "std::fs::write(base.join(\"cpu.max\"), quota)";
    assert!(touches(write, write));
    let read = "std::fs::read_to_string(\"/sys/fs/cgroup/memory.max\")";
    assert!(!touches(read, read));
}
