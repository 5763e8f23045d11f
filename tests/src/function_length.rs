//! How long every function outside test code is, for the rule that none is over 80 lines.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::import_graph::{
    closing_brace, module_of, rust_files, test_children, without_test_items,
};

/// `text` with the insides of comments, string and character literals blanked (newlines
/// kept), so that what is left is code and its braces are the code's.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        i = if c == '/' && next == Some('/') {
            let end = (i..chars.len())
                .find(|&k| chars[k] == '\n')
                .unwrap_or(chars.len());
            out.extend(std::iter::repeat_n(' ', end - i));
            end
        } else if c == '/' && next == Some('*') {
            block_comment(&chars, i, &mut out)
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident_before(&chars, i) {
            raw_string(&chars, i, &mut out)
        } else if c == '"' {
            string(&chars, i, &mut out)
        } else if c == '\'' && is_char_literal(&chars, i) {
            out.push_str("' '");
            let end = match next {
                Some('\\') => (i + 2..chars.len()).find(|&k| chars[k] == '\''),
                _ => Some(i + 2),
            };
            end.unwrap_or(chars.len()) + 1
        } else {
            out.push(c);
            i + 1
        };
    }
    out
}

fn blank(c: char) -> char {
    if c == '\n' { '\n' } else { ' ' }
}

/// Blanks the (possibly nested) block comment at `i`; returns where it ends.
fn block_comment(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            out.push_str("  ");
            i += 2;
            if depth == 0 {
                return i;
            }
            continue;
        }
        out.push(blank(chars[i]));
        i += 1;
    }
    i
}

/// Blanks the raw string at `i` (`r"..."`, `r#"..."#`); an `r` that opens none is kept.
fn raw_string(chars: &[char], i: usize, out: &mut String) -> usize {
    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
    if chars.get(i + 1 + hashes) != Some(&'"') {
        out.push('r');
        return i + 1;
    }
    let start = i + 2 + hashes;
    let closes = |k: usize| chars[k] == '"' && (1..=hashes).all(|h| chars.get(k + h) == Some(&'#'));
    let end = (start..chars.len())
        .find(|&k| closes(k))
        .unwrap_or(chars.len());
    out.push_str("r\"");
    out.extend(chars[start..end].iter().map(|&c| blank(c)));
    out.push('"');
    end + 1 + hashes
}

/// Blanks the string at `i` (escapes included); returns where it ends.
fn string(chars: &[char], mut i: usize, out: &mut String) -> usize {
    out.push('"');
    i += 1;
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            out.push(' ');
            i += 1;
        }
        if let Some(&k) = chars.get(i) {
            out.push(blank(k));
        }
        i += 1;
    }
    out.push('"');
    i + 1
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Whether the `'` at `i` opens a character literal rather than a lifetime.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// `(name, first line, lines)` of every function with a body in `code` (code only): from the
/// line of its `fn` to the line of its closing brace.
pub fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue; // a `fn(...)` type
        }
        let after = &code[at..];
        let (Some(open), semicolon) = (after.find('{'), after.find(';')) else {
            continue;
        };
        if semicolon.is_some_and(|s| s < open) {
            continue; // a declaration without a body
        }
        if let Some(close) = closing_brace(code, at + open) {
            found.push((name, line_of(at), line_of(close) - line_of(at) + 1));
        }
    }
    found
}

/// Every file of the crate whose sources are in `src` with its code only, outside test code:
/// files declared under `#[cfg(test)]` left out, and items under it removed.
pub fn production_code(src: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("a readable source file");
            (f, text)
        })
        .collect();
    let mut test_only = BTreeSet::new();
    for (file, text) in &texts {
        for child in test_children(text) {
            let mut module = module_of(src, file);
            module.push(child);
            test_only.insert(module);
        }
    }
    texts
        .into_iter()
        .filter(|(file, _)| {
            let module = module_of(src, file);
            !(1..=module.len()).any(|k| test_only.contains(&module[..k]))
        })
        .map(|(file, text)| {
            let code = without_test_items(&code_only(&text));
            (file, code)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_in_strings_comments_and_characters_are_not_code() {
        let text = "fn a() {\n    let s = \"{{ }\"; // }\n    let c = '}';\n    let r = r#\"}\"#;\n    /* } */ let l: &'static str = s;\n}\nfn b<'a>(x: &'a str) {}\n";
        let code = code_only(text);
        assert_eq!(code.lines().count(), text.lines().count());
        assert_eq!(
            functions(&code),
            vec![("a".to_owned(), 1, 6), ("b".to_owned(), 7, 1)]
        );
    }

    #[test]
    fn declarations_and_fn_types_are_not_functions() {
        let code =
            code_only("trait T { fn f(&self); }\nstruct S { f: fn(u8) -> u8 }\nfn g() {\n}\n");
        assert_eq!(functions(&code), vec![("g".to_owned(), 3, 2)]);
    }
}
