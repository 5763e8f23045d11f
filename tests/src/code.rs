//! Rust source with the insides of comments, string and character literals blanked, so that
//! what is left is code: its paths are the code's paths and its braces the code's braces.

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
