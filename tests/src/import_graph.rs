//! The import graph of a crate's files, read from its sources, for ARCHITECTURE.md's layout
//! rules: which file's code names which other file's items (`crate::`, `super::`, `self::`
//! paths and bare paths through a child module the file declares, `use child::item`, with
//! `{..}` groups, followed through the `pub use` re-exports of module roots).
//!
//! Every file is a node, module roots (`lib.rs`, `main.rs`, `mod.rs`, and a file with child
//! modules) included: a root's `pub use` is an import of the file it names, so a child that
//! names an item the root itself defines imports its root back. Files declared under
//! `#[cfg(test)]`, and the items under a `#[cfg(test)]` in a file, are test code and not part
//! of the layering. The reading is textual: a method call names no path, so it makes no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::code::code_only;

/// A module path inside a crate: `src/jobs/view.rs` is `[jobs, view]`.
pub type Module = Vec<String>;

/// Every `.rs` file under `dir`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's module path inside its crate: `src/jobs/view.rs` is `[jobs, view]`,
/// `src/jobs/mod.rs` is `[jobs]`, `src/lib.rs` is `[]`.
pub fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("a file of the crate");
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The code of a file's `text` (comments and literals blanked, `crate::code`) without the
/// items under `#[cfg(test)]` (a unit test module's `super::` means the file itself).
pub fn code_of(text: &str) -> String {
    without_test_items(&code_only(text))
}

/// A crate's source files, each read once, and the modules declared under `#[cfg(test)]`.
pub struct CrateSources {
    pub files: Vec<(PathBuf, String)>,
    test_modules: BTreeSet<Module>,
}

impl CrateSources {
    pub fn read(src: &Path) -> CrateSources {
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        let files: Vec<(PathBuf, String)> = paths
            .into_iter()
            .map(|f| {
                let text = std::fs::read_to_string(&f).expect("a readable source file");
                (f, text)
            })
            .collect();
        let mut test_modules = BTreeSet::new();
        for (file, text) in &files {
            for child in test_children(text) {
                let mut module = module_of(src, file);
                module.push(child);
                test_modules.insert(module);
            }
        }
        CrateSources {
            files,
            test_modules,
        }
    }

    /// Whether `module` is test code: declared under `#[cfg(test)]`, or inside such a module.
    pub fn is_test(&self, module: &[String]) -> bool {
        (1..=module.len()).any(|k| self.test_modules.contains(&module[..k]))
    }
}

/// `code` with every item that follows a `#[cfg(test)]` removed: a `mod name;` line, or a
/// block up to its closing brace.
pub fn without_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let semicolon = after.find(';');
        let brace = after.find('{');
        let end = match (semicolon, brace) {
            (Some(s), Some(b)) if s < b => s + 1,
            (_, Some(b)) => closing_brace(after, b).map_or(after.len(), |close| close + 1),
            (Some(s), None) => s + 1,
            (None, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Where the `}` that closes the `{` at byte `open` of `text` is, if it is closed.
pub fn closing_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    text[open..]
        .char_indices()
        .find(|&(_, c)| {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            depth == 0
        })
        .map(|(k, _)| open + k)
}

/// The modules a file's `text` declares under `#[cfg(test)]`.
pub fn test_children(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines
        .windows(2)
        .filter(|w| w[0] == "#[cfg(test)]")
        .filter_map(|w| {
            let rest = w[1]
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            rest.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_owned)
        })
        .collect()
}

/// The child modules a file's `code` declares (`mod name;`, any visibility).
pub fn declared_children(code: &str) -> Vec<String> {
    code.split(';')
        .filter_map(|item| {
            let last = item.trim().rsplit(['\n', '}', '{']).next()?.trim();
            let rest = last.strip_prefix("pub ").unwrap_or(last);
            let rest = match rest.strip_prefix("pub(") {
                Some(scoped) => scoped.split_once(')')?.1.trim_start(),
                None => rest,
            };
            let name = rest.strip_prefix("mod ")?.trim();
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                .then(|| name.to_owned())
        })
        .collect()
}

/// Every `crate::a::b` / `super::a` / `self::a` path in `code` of the file at `module`, and
/// every bare `child::a` path through one of the file's declared `children`, with `{a, b::c}`
/// groups expanded one level, as absolute module paths.
pub fn referenced_paths(code: &str, module: &[String], children: &[String]) -> Vec<Module> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let child_heads: Vec<String> = children.iter().map(|c| format!("{c}::")).collect();
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || !ident(bytes[i - 1]) && bytes[i - 1] != b':';
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .chain(child_heads.iter().map(String::as_str))
            .find(|h| bytes[i..].starts_with(h.as_bytes()));
        // `pub(in crate::a)` restricts visibility; it names no item to import
        let visibility = code[..i].trim_end().ends_with("(in");
        let (Some(head), true, false) = (head, start_ok, visibility) else {
            i += 1;
            continue;
        };
        let mut path: Module = match head {
            "crate::" => Vec::new(),
            "super::" => module[..module.len().saturating_sub(1)].to_vec(),
            "self::" => module.to_vec(),
            child => [module, &[child.trim_end_matches("::").to_owned()]].concat(),
        };
        let mut j = i + head.len();
        while code[j..].starts_with("super::") {
            path.pop();
            j += "super::".len();
        }
        loop {
            let s = j;
            while j < bytes.len() && ident(bytes[j]) {
                j += 1;
            }
            if s == j {
                break;
            }
            path.push(code[s..j].to_owned());
            if code[j..].starts_with("::") {
                j += 2;
            } else {
                break;
            }
        }
        if code[j..].starts_with('$') {
            // a macro's `super::$module::...`: named where the macro expands, not here
        } else if code[j..].starts_with('{') {
            let end = code[j..].find('}').map_or(code.len(), |e| j + e);
            // a trailing comma leaves an empty item, which names nothing
            for item in code[j + 1..end].split(',').filter(|i| !i.trim().is_empty()) {
                let mut p = path.clone();
                p.extend(
                    item.split(" as ")
                        .next()
                        .unwrap_or_default()
                        .trim()
                        .split("::")
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty() && s != "self" && !s.starts_with('{')),
                );
                out.push(p);
            }
            j = end;
        } else {
            out.push(path);
        }
        i = j.max(i + 1);
    }
    out
}

/// The macros `code` defines under `#[macro_export]`, which the crate root then holds.
fn exported_macros(code: &str) -> Vec<String> {
    code.match_indices("#[macro_export]")
        .filter_map(|(at, _)| {
            let rest = &code[at..];
            let body = rest[rest.find("macro_rules!")? + "macro_rules!".len()..].trim_start();
            let name: String = body
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// What the `pub use` items of a module root at `module` stand for: `[jobs, JobsContext]` ->
/// `[context, jobs, JobsContext]`.
fn reexports(code: &str, module: &[String]) -> Vec<(Module, Module)> {
    let mut out = Vec::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(rest) = ["pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|p| statement.strip_prefix(p))
        else {
            continue;
        };
        let rest: String = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        let (head, items) = match rest.split_once('{') {
            Some((head, items)) => (head.trim_end_matches("::"), items.trim_end_matches('}')),
            None => ("", rest.as_str()),
        };
        for item in items.split(',') {
            let (item, alias) = match item.split_once(" as ") {
                Some((item, alias)) => (item.trim(), Some(alias.trim())),
                None => (item.trim(), None),
            };
            let full = if head.is_empty() {
                item.to_owned()
            } else {
                format!("{head}::{item}")
            };
            let mut target: Module = match full.split("::").next() {
                Some("crate") => Vec::new(),
                Some("super") => module[..module.len().saturating_sub(1)].to_vec(),
                _ => module.to_vec(),
            };
            target.extend(
                full.split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty() && !matches!(*s, "crate" | "self" | "super"))
                    .map(str::to_owned),
            );
            let Some(name) = alias.or_else(|| target.last().map(String::as_str)) else {
                continue;
            };
            let mut at = module.to_vec();
            at.push(name.to_owned());
            out.push((at, target));
        }
    }
    out
}

/// The crate whose sources are in `src`, as files and what each imports.
pub struct ImportGraph {
    pub src: PathBuf,
    pub edges: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
}

impl ImportGraph {
    pub fn of(src: &Path) -> ImportGraph {
        let sources = CrateSources::read(src);
        let files: Vec<&PathBuf> = sources.files.iter().map(|(f, _)| f).collect();
        let by_module: BTreeMap<Module, PathBuf> = files
            .iter()
            .map(|f| (module_of(src, f), (*f).clone()))
            .collect();
        // each file's code without comments, literals and test items
        let codes: BTreeMap<&PathBuf, String> = sources
            .files
            .iter()
            .map(|(f, text)| (f, code_of(text)))
            .collect();
        let mut aliases = BTreeMap::new();
        for file in &files {
            let module = module_of(src, file);
            aliases.extend(reexports(&codes[file], &module));
            // an exported macro is named at the crate root but lives in its file
            for name in exported_macros(&codes[file]) {
                aliases.insert(vec![name.clone()], [module.clone(), vec![name]].concat());
            }
        }
        let is_test = |m: &Module| sources.is_test(m);
        // the file a path names, through re-exports
        let target = |mut path: Module| -> Option<&PathBuf> {
            for _ in 0..8 {
                // k = 0 is the crate root, whose `pub use` items stand for other files
                let k = (0..=path.len())
                    .rev()
                    .find(|&k| by_module.contains_key(&path[..k]))?;
                let file = &by_module[&path[..k]];
                match aliases.get(&path[..(k + 1).min(path.len())]) {
                    Some(alias) if k < path.len() => {
                        let mut next = alias.clone();
                        next.extend(path[k + 1..].iter().cloned());
                        path = next;
                    }
                    _ => return Some(file),
                }
            }
            None
        };
        let mut edges = BTreeMap::new();
        for &file in &files {
            let module = module_of(src, file);
            if is_test(&module) {
                continue;
            }
            let code = &codes[file];
            let mut targets = BTreeSet::new();
            for path in referenced_paths(code, &module, &declared_children(code)) {
                if let Some(t) = target(path)
                    && t != file
                    && !is_test(&module_of(src, t))
                {
                    targets.insert(t.clone());
                }
            }
            edges.insert(file.clone(), targets);
        }
        ImportGraph {
            src: src.to_owned(),
            edges,
        }
    }

    /// Drops the import of `to` by `from`; whether there was one.
    pub fn forget_import(&mut self, from: &Path, to: &Path) -> bool {
        self.edges
            .get_mut(from)
            .is_some_and(|targets| targets.remove(to))
    }

    /// The files along an import cycle, if any.
    pub fn file_cycle(&self) -> Option<Vec<PathBuf>> {
        find_cycle(&self.edges)
    }

    /// For every folder of the crate, the modules it holds (files and subfolders) that import
    /// one another around a circle, if any: `(folder, modules along the circle, one import
    /// of each step as "from.rs -> to.rs")`. Where there is none, every folder's modules
    /// stack in layers and no import runs back up.
    pub fn module_cycle(&self) -> Option<(Module, Vec<Module>, Vec<String>)> {
        // per folder: child module -> child module, with one file edge that makes it
        let mut levels: BTreeMap<Module, BTreeMap<Module, BTreeMap<Module, String>>> =
            BTreeMap::new();
        for (from, targets) in &self.edges {
            let a = module_of(&self.src, from);
            for to in targets {
                let b = module_of(&self.src, to);
                let shared = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
                if shared >= a.len() || shared >= b.len() {
                    continue; // a module and one inside it
                }
                let rel = |p: &Path| p.strip_prefix(&self.src).unwrap_or(p).display().to_string();
                levels
                    .entry(a[..shared].to_vec())
                    .or_default()
                    .entry(a[..=shared].to_vec())
                    .or_default()
                    .entry(b[..=shared].to_vec())
                    .or_insert_with(|| format!("{} -> {}", rel(from), rel(to)));
            }
        }
        for (folder, level) in &levels {
            let graph: BTreeMap<Module, BTreeSet<Module>> = level
                .iter()
                .map(|(m, next)| (m.clone(), next.keys().cloned().collect()))
                .collect();
            if let Some(cycle) = find_cycle(&graph) {
                let steps = (0..cycle.len())
                    .map(|k| level[&cycle[k]][&cycle[(k + 1) % cycle.len()]].clone())
                    .collect();
                return Some((folder.clone(), cycle, steps));
            }
        }
        None
    }
}

/// A cycle in `graph`, if any, as the nodes along it.
pub fn find_cycle<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit<N: Ord + Clone>(
        node: &N,
        graph: &BTreeMap<N, BTreeSet<N>>,
        marks: &mut BTreeMap<N, Mark>,
        stack: &mut Vec<N>,
    ) -> Option<Vec<N>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let at = stack.iter().position(|n| n == node).expect("on the stack");
                return Some(stack[at..].to_vec());
            }
            None => {}
        }
        marks.insert(node.clone(), Mark::Open);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(node.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut marks, &mut Vec::new()))
}
