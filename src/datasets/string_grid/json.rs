//! Python `json.dumps` formatting (default `ensure_ascii=True`, separators `", "` and
//! `": "`), so generated files match the published ones byte for byte.

/// Appends `s` as a JSON string literal the way `json.dumps` writes it.
pub fn push_py_json_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7f => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `json.dumps([...])` of a list of strings.
pub fn py_json_str_list(items: &[String]) -> String {
    let mut out = String::from("[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_py_json_str(&mut out, s);
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_python() {
        // json.dumps(["a\nb", "q\"\\", "\u00e9\U0001F600\x01"])
        let v = vec![
            "a\nb".to_string(),
            "q\"\\".to_string(),
            "\u{e9}\u{1F600}\u{1}".to_string(),
        ];
        assert_eq!(
            py_json_str_list(&v),
            r#"["a\nb", "q\"\\", "\u00e9\ud83d\ude00\u0001"]"#
        );
    }
}
