//! What a module root holds. A root (`lib.rs`, `main.rs`, `mod.rs`, or any file that declares
//! child modules) declares and re-exports: its lines are comments, attributes, `mod name;`
//! declarations, `use` items and the constant tables ARCHITECTURE.md puts there (`const` and
//! `static` items, such as a folder's `SCHEDULERS`). Every other line is logic, which belongs
//! in a file named for what it holds.

use std::path::Path;

use crate::import_graph::declared_children;

/// Whether the file at `file`, whose code (comments and literals blanked) is `code`, is a
/// module root.
pub fn is_root(file: &Path, code: &str) -> bool {
    let by_name = matches!(
        file.file_name().and_then(|n| n.to_str()),
        Some("mod.rs" | "lib.rs" | "main.rs")
    );
    by_name || !declared_children(code).is_empty()
}

/// The numbers (from 1) of the lines of `code` that hold logic: a part of a top-level item
/// that is not an attribute, a `mod name;` declaration, a `use`, an `extern crate` or a
/// `const` or `static` table.
pub fn logic_lines(code: &str) -> Vec<usize> {
    let mut lines = std::collections::BTreeSet::new();
    for (start, end) in top_level_items(code) {
        let item = &code[start..end];
        if !is_declaration(item) {
            let first = code[..start].matches('\n').count() + 1;
            for (k, line) in item.split('\n').enumerate() {
                if !line.trim().is_empty() {
                    lines.insert(first + k);
                }
            }
        }
    }
    lines.into_iter().collect()
}

/// Whether a top-level `item` only declares, re-exports or tabulates.
fn is_declaration(item: &str) -> bool {
    let item = item.trim();
    if item.starts_with('#') || item == ";" {
        return true;
    }
    let mut rest = item.strip_prefix("pub").unwrap_or(item).trim_start();
    if rest.starts_with('(') {
        rest = rest.split_once(')').map_or(rest, |(_, r)| r.trim_start());
    }
    let word = rest.split_whitespace().next().unwrap_or_default();
    match word {
        "use" | "const" | "static" => true,
        "extern" => rest
            .trim_start_matches("extern")
            .trim_start()
            .starts_with("crate"),
        "mod" => item.ends_with(';') && !item.contains('{'),
        _ => false,
    }
}

/// The byte ranges of `code`'s top-level items: each runs to a `;` or a closing `}` at depth
/// zero, or, for an attribute, to its closing `]`.
fn top_level_items(code: &str) -> Vec<(usize, usize)> {
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut start: Option<usize> = None;
    let mut attribute = false;
    for (at, c) in code.char_indices() {
        if start.is_none() {
            if c.is_whitespace() {
                continue;
            }
            start = Some(at);
            attribute = c == '#';
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        let ends = depth == 0
            && match c {
                ';' => true,
                '}' => !attribute,
                ']' => attribute,
                _ => false,
            };
        if ends {
            items.push((start.take().expect("an item started"), at + 1));
        }
    }
    if let Some(s) = start {
        items.push((s, code.len()));
    }
    items
}
