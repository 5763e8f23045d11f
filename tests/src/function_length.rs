//! How long every function outside test code is, for the rule that none is over 80 lines.

use std::path::{Path, PathBuf};

use crate::import_graph::{CrateSources, closing_brace, code_of, module_of};

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
    let sources = CrateSources::read(src);
    sources
        .files
        .iter()
        .filter(|(file, _)| !sources.is_test(&module_of(src, file)))
        .map(|(file, text)| (file.clone(), code_of(text)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::code_only;

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
