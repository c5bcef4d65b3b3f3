//! Names read from disk or the network (model and setting folders, model names in requests
//! and responses, statuses carrying a sample's text) are data: these helpers make them safe
//! as a path component, a Markdown table cell, a CSV cell or a terminal line. Every writer
//! and printer of such a name goes through them.
//!
//! Hand-written: the rules are a few lines each, and no crate covers the four targets with
//! the exact rules kcomp needs (a lossless-looking path component, `|` in Markdown tables,
//! the OWASP list of formula triggers in CSV).

use std::borrow::Cow;

use crate::error::{KcompError, Result};

/// Longest path component written (bytes); most file systems allow 255.
pub const MAX_COMPONENT_BYTES: usize = 200;

fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// A name turned into one safe path component: `/`, `\`, NUL and control characters become
/// `_`, a name that is empty, `.`, `..` or starts with `.` gets a leading `_` (never a hidden
/// file, never the parent folder), and the result is cut to [`MAX_COMPONENT_BYTES`].
pub fn path_component(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || is_control(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    if s.len() > MAX_COMPONENT_BYTES {
        let mut end = MAX_COMPONENT_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// Checks a name given by the user that becomes one path component (a sweep, panel family
/// or model folder): it must be non-empty, not `.`/`..`, without `/`, `\` or control
/// characters, and at most [`MAX_COMPONENT_BYTES`] long. The error names `param`.
pub fn check_component<'a>(param: &str, name: &'a str) -> Result<&'a str> {
    let why = if name.is_empty() {
        Some("must not be empty")
    } else if name == "." || name == ".." {
        Some("must not be `.` or `..` (it names a folder under the output folder)")
    } else if name.contains(['/', '\\']) || name.starts_with('~') {
        Some(
            "must not contain `/` or `\\` or start with `~` (it names a folder under the output folder)",
        )
    } else if name.chars().any(is_control) {
        Some("must not contain control characters")
    } else if name.len() > MAX_COMPONENT_BYTES {
        Some("is too long for a file name")
    } else {
        None
    };
    match why {
        Some(w) => Err(KcompError::param(
            param,
            format!("`{}` {w}", terminal(name)),
        )),
        None => Ok(name),
    }
}

/// A name as one Markdown table cell: control characters (newlines included) become spaces,
/// and `|`, `\`, `` ` ``, `[`, `]`, `<`, `>` are escaped so the name cannot end the cell,
/// start a row, or become a link, code or HTML.
pub fn markdown_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if is_control(c) => out.push(' '),
            '|' | '\\' | '`' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// A text cell of a CSV file that a spreadsheet will not run as a formula and that sends no
/// control character (escape sequences from a sandboxed program, a newline) to whoever
/// `cat`s the file: control characters are escaped as on the terminal ([`terminal`]), and a
/// cell starting with `=`, `+`, `-` or `@` gets a leading `'` unless the whole cell is a
/// number (`-1.5` stays a number). Quoting of `,` and `"` is the CSV writer's.
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    let cell = terminal(s);
    let risky = cell.starts_with(['=', '+', '-', '@']);
    if risky && cell.trim().parse::<f64>().is_err() {
        Cow::Owned(format!("'{cell}"))
    } else {
        cell
    }
}

/// A name for the terminal: control characters (escape sequences, newlines, carriage
/// returns, bidirectional overrides) are shown escaped (`\u{1b}`), never sent raw.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_control(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text for the terminal that may span lines (a table, a report): like [`terminal`], but
/// newlines and tabs are kept.
pub fn terminal_text(s: &str) -> Cow<'_, str> {
    let risky = |c: char| is_control(c) && c != '\n' && c != '\t';
    if !s.chars().any(risky) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if risky(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_components_stay_in_their_folder() {
        assert_eq!(path_component("gpt-4o"), "gpt-4o");
        assert_eq!(path_component("org/model"), "org_model");
        assert_eq!(path_component(".."), "_..");
        assert_eq!(path_component("."), "_.");
        assert_eq!(path_component(""), "_");
        assert_eq!(path_component("../../etc"), "_.._.._etc");
        assert_eq!(path_component("/abs"), "_abs");
        assert_eq!(path_component("a\nb\x1b[31m"), "a_b_[31m");
        assert_eq!(path_component(&"é".repeat(300)).len(), MAX_COMPONENT_BYTES);
        for bad in ["", ".", "..", "a/b", "/x", "..\\x", "a\nb", "~x"] {
            let e = check_component("family", bad).unwrap_err().to_string();
            assert!(e.contains("`family`") && !e.contains('\n'), "{bad}: {e}");
        }
        assert_eq!(check_component("family", "k=3_u..2").unwrap(), "k=3_u..2");
    }

    #[test]
    fn markdown_cells_cannot_forge_rows() {
        let m = markdown_cell("evil | 100 |\n| forged | row");
        assert!(!m.contains('\n'));
        assert_eq!(m.matches('|').count(), m.matches("\\|").count());
        assert_eq!(markdown_cell("<img src=x>"), "&lt;img src=x&gt;");
        assert_eq!(markdown_cell("gpt-4o"), "gpt-4o");
    }

    #[test]
    fn csv_formulas_are_neutralised_numbers_kept() {
        for f in ["=1+1", "@SUM(A1)", "+cmd", "-cmd|x"] {
            assert!(csv_cell(f).starts_with('\''), "{f}");
        }
        for f in ["\tx", "\rx", "a\x1b[2Jb\nc", "\u{202e}x"] {
            let c = csv_cell(f);
            assert!(!c.chars().any(is_control), "{c}");
            assert!(
                c.starts_with(|ch: char| ch.is_alphanumeric() || ch == '\\'),
                "{c}"
            );
        }
        for keep in ["-1.5", "+3", "model", "", "1e-3"] {
            assert_eq!(csv_cell(keep), keep);
        }
    }

    #[test]
    fn terminal_text_has_no_control_characters() {
        let t = terminal("a\x1b]0;pwned\x07b\nc\u{202e}");
        assert!(!t.chars().any(|c| c.is_control() || c == '\u{202e}'), "{t}");
        assert!(t.contains("\\u{1b}"));
        assert_eq!(terminal("plain"), "plain");
        let t = terminal_text("a\tb\nc\x1b[2J\r\u{202e}");
        assert_eq!(t, "a\tb\nc\\u{1b}[2J\\r\\u{202e}");
        assert_eq!(terminal_text("| a |\n| b |\n"), "| a |\n| b |\n");
    }
}
