//! Getting the program out of an LLM answer.

use regex::Regex;
use std::sync::LazyLock;

static PY_FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)```python(.*?)```").expect("regex"));
static BEGIN_CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)Begin Code\n-{6,}(.*?)-{6,}").expect("regex"));
static DASHES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)-{6,}(.*?)-{6,}").expect("regex"));
static ANY_FENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?ms)^[ \t]*(```|~~~)[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^[ \t]*(?:```|~~~)")
        .expect("regex")
});

fn last_capture(re: &Regex, text: &str) -> Option<String> {
    re.captures_iter(text)
        .last()
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// The published rules: strip U+200B, then the LAST ```python block, else the last
/// `Begin Code` dashed block, else the last dashed block, else the empty program.
pub fn extract_reference(answer: &str) -> String {
    let text = answer.replace('\u{200b}', "");
    last_capture(&PY_FENCE, &text)
        .or_else(|| last_capture(&BEGIN_CODE, &text))
        .or_else(|| last_capture(&DASHES, &text))
        .unwrap_or_default()
}

/// Whether a program reads its input from stdin.
pub fn reads_stdin(code: &str) -> bool {
    code.contains("input(") || code.contains("stdin")
}

/// Robust extraction: fenced blocks tagged python/py/python3/py3 (or untagged); among them the
/// last one that reads stdin, else the last one; else the reference rules. A helper block
/// defined earlier and used by the stdin block is not merged (answers are asked for one
/// program).
pub fn extract_robust(answer: &str) -> String {
    let text = answer.replace('\u{200b}', "").replace("\r\n", "\n");
    let blocks: Vec<String> = ANY_FENCE
        .captures_iter(&text)
        .filter(|c| {
            let lang = c.get(2).map_or("", |m| m.as_str()).to_ascii_lowercase();
            matches!(lang.as_str(), "" | "python" | "py" | "python3" | "py3")
        })
        .map(|c| c.get(3).map_or("", |m| m.as_str()).to_string())
        .collect();
    if let Some(b) = blocks.iter().rev().find(|b| reads_stdin(b)) {
        return b.clone();
    }
    if let Some(b) = blocks.last() {
        return b.clone();
    }
    let fallback = extract_reference(&text);
    // A bare program (no fences at all) that parses and reads stdin is the program itself.
    if fallback.trim().is_empty() && reads_stdin(&text) && super::parse_guarded(&text).is_some() {
        return text;
    }
    fallback
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_takes_last_python_fence() {
        let a = "```python\nprint(1)\n```\ntext\n```python\nprint(2)\n```";
        assert_eq!(extract_reference(a), "\nprint(2)\n");
        assert_eq!(extract_reference("```py\nprint(1)\n```"), "");
        assert_eq!(
            extract_reference("Begin Code\n------\nx = 1\n------"),
            "\nx = 1\n"
        );
    }

    #[test]
    fn robust_prefers_the_block_reading_stdin() {
        let a =
            "```py\nimport sys\ns = sys.stdin.read()\n```\n\n```python3\nassert f('A') == 1\n```";
        assert_eq!(extract_robust(a), "import sys\ns = sys.stdin.read()\n");
        let bare = "s = input()\nprint(s)\n";
        assert_eq!(extract_robust(bare), bare);
        assert_eq!(extract_reference(bare), "");
        assert_eq!(extract_robust("I cannot write input() here."), "");
    }
}
