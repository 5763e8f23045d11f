//! The documents a reader follows name files that exist: every repository path in README.md,
//! ARCHITECTURE.md and `docs/` is checked against the tree. docs/cli.md names every command and
//! flag the `schedlab` binary's `--help` shows, and README.md stays a short guide.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

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

/// The `schedlab` binary. Built as a test of schedlab-experiments (as `tests/tests/cli.rs` is),
/// this file is told where cargo put it (`CARGO_BIN_EXE_schedlab`); built by `tests/Cargo.toml`
/// it is not, and the binary is where cargo puts it beside this test's folder of executables
/// (`target/debug/deps/docs-*` runs `target/debug/schedlab`), built there by any build of the
/// workspace's tests (`cargo nextest run --workspace`) or by `cargo build -p schedlab-experiments`.
fn schedlab_binary() -> PathBuf {
    if let Some(path) = option_env!("CARGO_BIN_EXE_schedlab") {
        return PathBuf::from(path);
    }
    let test = std::env::current_exe().unwrap();
    let profile = test
        .parent()
        .and_then(Path::parent)
        .expect("target/PROFILE/deps/docs-*");
    profile.join(format!("schedlab{}", std::env::consts::EXE_SUFFIX))
}

/// The newest modification time under `path` (a file, or a folder read recursively).
fn newest(path: &Path) -> SystemTime {
    let meta = std::fs::metadata(path).unwrap();
    if !meta.is_dir() {
        return meta.modified().unwrap();
    }
    std::fs::read_dir(path)
        .unwrap()
        .map(|entry| newest(&entry.unwrap().path()))
        .fold(meta.modified().unwrap(), SystemTime::max)
}

/// The binary, refused when missing or older than the command line's definitions
/// (`experiments/src/main.rs` and `commands/`): its `--help` would not be the tree's.
fn built_schedlab() -> PathBuf {
    let binary = schedlab_binary();
    let built = std::fs::metadata(&binary).and_then(|m| m.modified()).unwrap_or_else(|e| {
        panic!(
            "no schedlab binary at {} ({e}): build it with `cargo build -p schedlab-experiments` \
             (`cargo nextest run --workspace` does)",
            binary.display()
        )
    });
    let sources = ["experiments/src/main.rs", "experiments/src/commands"];
    for source in sources {
        assert!(
            newest(&repo().join(source)) <= built,
            "{} is older than {source}: rebuild it (`cargo build -p schedlab-experiments`)",
            binary.display()
        );
    }
    binary
}

/// What one `--help` lists: the visible subcommands (clap's own `help` left out) and the long
/// flags. Entries start a line at column 2 (`  name  what it does`, `  -o, --out <OUT>`) or,
/// for a flag without a short form, 6; the lines of their help are indented further.
#[derive(Debug, PartialEq)]
struct Help {
    commands: Vec<String>,
    flags: Vec<String>,
}

fn parse_help(text: &str) -> Help {
    let mut help = Help {
        commands: Vec::new(),
        flags: Vec::new(),
    };
    let mut section = "";
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let entry = line.trim_start();
        let indent = line.len() - entry.len();
        if indent == 0 {
            section = if line.ends_with(':') { line } else { "" };
            continue;
        }
        let first = entry.split_whitespace().next().unwrap_or_default();
        match section {
            "Commands:" if indent == 2 && first != "help" => help.commands.push(first.to_owned()),
            "Options:" if indent <= 6 && first.starts_with('-') => {
                let long = entry
                    .split([' ', ',', '='])
                    .find(|word| word.starts_with("--"))
                    .unwrap_or_else(|| panic!("an option without a long flag: {line}"));
                help.flags.push(long.to_owned());
            }
            _ => {}
        }
    }
    help
}

/// `schedlab ARGS --help`, parsed.
fn help_of(binary: &Path, args: &[String]) -> Help {
    let out = Command::new(binary)
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "schedlab {args:?} --help failed: {out:?}"
    );
    parse_help(&String::from_utf8(out.stdout).unwrap())
}

/// Every visible command, the root (`[]`) first, with the flags its `--help` lists.
fn command_tree(binary: &Path) -> Vec<(Vec<String>, Vec<String>)> {
    let mut tree = Vec::new();
    let mut pending = vec![Vec::new()];
    while let Some(path) = pending.pop() {
        let help = help_of(binary, &path);
        for name in help.commands.iter().rev() {
            pending.push([path.clone(), vec![name.clone()]].concat());
        }
        tree.push((path, help.flags));
    }
    tree
}

/// Whether `text` holds `word` whole: not followed by a character a flag or command name may
/// go on with (`--seed` is not named by `--seeds`).
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let next = text[at + word.len()..].chars().next();
        !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// docs/cli.md's sections by command: a heading (any level, outside code blocks) reading
/// exactly `schedlab COMMAND...` (backticks allowed) opens the section, the next such heading
/// closes it.
fn command_sections(doc: &str) -> BTreeMap<String, String> {
    let mut sections = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut fenced = false;
    for line in doc.lines() {
        fenced ^= line.trim_start().starts_with("```");
        let heading = line.trim_start_matches('#');
        let title = heading.trim().trim_matches('`');
        if !fenced
            && heading.len() < line.len()
            && (title == "schedlab" || title.starts_with("schedlab "))
        {
            current = Some(title.to_owned());
            sections.insert(title.to_owned(), String::new());
        } else if let Some(title) = &current {
            let body = sections.get_mut(title).unwrap();
            body.push_str(line);
            body.push('\n');
        }
    }
    sections
}

/// A command's full name: `schedlab`, `schedlab bench train`.
fn title_of(path: &[String]) -> String {
    std::iter::once("schedlab")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What docs/cli.md leaves out of `tree` (as [`command_tree`] gives it), one line each: a
/// command without its heading `schedlab COMMAND...` (see [`command_sections`]), a flag its
/// section does not name as `--flag` (the root's flags, global, are named in the root's section
/// alone), and a heading for a command that does not exist.
fn left_out(doc: &str, tree: &[(Vec<String>, Vec<String>)]) -> Vec<String> {
    let sections = command_sections(doc);
    let global = &tree
        .iter()
        .find(|(path, _)| path.is_empty())
        .expect("the root")
        .1;
    let mut missing = Vec::new();
    for (path, flags) in tree {
        let title = title_of(path);
        let Some(section) = sections.get(&title) else {
            missing.push(format!("no heading `## {title}`"));
            continue;
        };
        let own = flags
            .iter()
            .filter(|f| path.is_empty() || !global.contains(f));
        for flag in own.filter(|flag| !names(section, flag)) {
            missing.push(format!("`## {title}` does not name {flag}"));
        }
    }
    for title in sections.keys() {
        let exists = tree.iter().any(|(path, _)| *title == title_of(path));
        if !exists {
            missing.push(format!(
                "`## {title}` is not a command `schedlab --help` shows"
            ));
        }
    }
    missing
}

/// docs/cli.md is the command reference: it has a section for every command `--help` shows
/// (recursively, clap's `help` aside; hidden ones such as `real-process` are not shown) and each
/// section names every flag of its command as `--flag`. The rule is [`left_out`]'s.
#[test]
fn cli_md_names_every_command_and_flag() {
    let tree = command_tree(&built_schedlab());
    let commands = tree.len();
    let flags: usize = tree.iter().map(|(_, flags)| flags.len()).sum();
    assert!(
        commands > 25 && flags > 150,
        "--help read as {commands} commands and {flags} flags: the parse reads nothing"
    );
    let doc = std::fs::read_to_string(repo().join("docs/cli.md")).unwrap();
    let missing = left_out(&doc, &tree);
    assert!(missing.is_empty(), "docs/cli.md:\n{}", missing.join("\n"));
}

/// The parse and the rule on a help text and a document of clap's shape: a flag left out, a
/// command without its heading and a heading without its command are each named.
#[test]
fn cli_md_rule_names_what_the_document_leaves_out() {
    let help = "Run episodes\n\nUsage: schedlab run [OPTIONS] --workload <WORKLOAD>\n\nCommands:\n  \
                env   Env throughput\n        against a loop\n  help  Print this message\n\n\
                Options:\n      --workload <WORKLOAD>\n          Workload file, see\n          \
                --seeds below\n  -o, --out <OUT>  Where\n  -h, --help  Print help\n";
    let parsed = parse_help(help);
    assert_eq!(parsed.commands, vec!["env"]);
    assert_eq!(parsed.flags, vec!["--workload", "--out", "--help"]);
    let tree = vec![
        (vec![], vec!["--threads".to_owned(), "--help".to_owned()]),
        (
            vec!["run".to_owned()],
            vec!["--seed".to_owned(), "--threads".to_owned()],
        ),
        (
            vec!["bench".to_owned(), "env".to_owned()],
            vec!["--repeats".to_owned()],
        ),
    ];
    let full = "## schedlab\n`--threads`, `--help`\n## schedlab run\n`--seed`\n\
                ## `schedlab bench env`\n`--repeats`\n";
    assert_eq!(left_out(full, &tree), Vec::<String>::new());
    let short = "## schedlab\n`--threads`, `--help`\n## schedlab run\n`--seeds`\n\
                 ```sh\n## schedlab bench env\n```\n## schedlab bench\n`--repeats`\n";
    assert_eq!(
        left_out(short, &tree),
        vec![
            "`## schedlab run` does not name --seed",
            "no heading `## schedlab bench env`",
            "`## schedlab bench` is not a command `schedlab --help` shows",
        ]
    );
}

/// README.md is a guide, at most 200 lines, whose command table has a row for every command
/// `schedlab --help` lists, each row at most 200 characters; the details are docs/cli.md's.
#[test]
fn cli_md_holds_the_details_and_the_readme_stays_short() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines; at most 200 (details go to docs/cli.md)"
    );
    let table = &readme[readme.find("## Commands").expect("a Commands section")..];
    let end = table[1..].find("\n## ").map_or(table.len(), |at| at + 1);
    let rows: Vec<&str> = table[..end]
        .lines()
        .filter(|l| l.starts_with('|'))
        .collect();
    assert!(
        rows.len() > 10,
        "README.md's command table has {} rows",
        rows.len()
    );
    for row in &rows {
        let length = row.chars().count();
        assert!(
            length <= 200,
            "README.md's command row of {length} characters (at most 200): {row}"
        );
    }
    for name in help_of(&built_schedlab(), &[]).commands {
        assert!(
            rows.iter()
                .any(|row| names(row, &format!("`schedlab {name}"))),
            "README.md's command table has no row for `schedlab {name}`"
        );
    }
    assert!(
        readme.contains("(docs/cli.md)"),
        "README.md does not link docs/cli.md"
    );
}
