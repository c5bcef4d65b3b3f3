//! Tokenisers that turn one sentence (a line of a text file, or a Python string) into tokens.
//!
//! - `words` (the default): the line in Unicode lowercase (full case mapping) and NFC (a
//!   decomposed `e` + U+0301 and a precomposed `é` are one letter), cut at the word boundaries
//!   of Unicode Standard Annex #29 (the `unicode-segmentation` crate); whitespace is dropped
//!   and every punctuation or symbol character is a token of its own, also inside a word or a
//!   number (`don't` is `don ' t`, `3.14` is `3 . 14`, `l'homme` is `l ' homme`). A word is a
//!   run of letters and digits with the combining marks, joiners and variation selectors that
//!   attach to them; an emoji with its modifiers or zero-width joiners (a UAX #29 cluster) is
//!   one token. Scripts written without spaces get no dictionary: each Han ideograph and each
//!   Hiragana letter is a word (UAX #29's default).
//! - `chars`: extended grapheme clusters (a letter with its combining marks, an emoji
//!   sequence), lowercase and NFC as above; a run of whitespace between two clusters is one
//!   token `" "`, leading and trailing whitespace none.
//! - a Hugging Face `tokenizer.json` (feature `tokenizers`): the tokenizer's own
//!   normalisation and pre-tokenisation, no special tokens added; tokens are the tokenizer's
//!   strings.
//!
//! `keep_case` skips the lowercasing of `words` and `chars`.

use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

use crate::error::{KcompError, Result};

/// How sentences become tokens (module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tokeniser {
    /// Words and punctuation (UAX #29 word boundaries, punctuation split).
    Words { keep_case: bool },
    /// Extended grapheme clusters.
    Chars { keep_case: bool },
    /// A Hugging Face `tokenizer.json`.
    HuggingFace(PathBuf),
}

impl Default for Tokeniser {
    fn default() -> Self {
        Tokeniser::Words { keep_case: false }
    }
}

impl Tokeniser {
    /// `words`, `chars` or the path of a `tokenizer.json`; `keep_case` applies to the first two.
    pub fn parse(name: &str, keep_case: bool) -> Result<Tokeniser> {
        match name {
            "words" => Ok(Tokeniser::Words { keep_case }),
            "chars" => Ok(Tokeniser::Chars { keep_case }),
            path if path.ends_with(".json") => {
                if keep_case {
                    return Err(KcompError::param(
                        "keep-case",
                        "applies to the words and chars tokenisers; a tokenizer.json has its \
                         own normalisation",
                    ));
                }
                Ok(Tokeniser::HuggingFace(PathBuf::from(path)))
            }
            other => Err(KcompError::param(
                "tokeniser",
                format!(
                    "`{}` is not words, chars or a tokenizer.json file",
                    crate::io::names::terminal(other)
                ),
            )),
        }
    }

    /// The name as given (`words`, `chars`, the file), with `+case` when case is kept.
    pub fn name(&self) -> String {
        match self {
            Tokeniser::Words { keep_case } => format!("words{}", case(*keep_case)),
            Tokeniser::Chars { keep_case } => format!("chars{}", case(*keep_case)),
            Tokeniser::HuggingFace(p) => p.display().to_string(),
        }
    }

    /// One line of what the tokeniser does, for notes under a result.
    pub fn describe(&self) -> String {
        let lower = |keep: bool| {
            if keep {
                "case kept"
            } else {
                "Unicode lowercase"
            }
        };
        match self {
            Tokeniser::Words { keep_case } => format!(
                "words: {}, NFC, Unicode word boundaries (UAX #29), each punctuation or symbol \
                 character a token",
                lower(*keep_case)
            ),
            Tokeniser::Chars { keep_case } => format!(
                "chars: {}, NFC, one token per grapheme cluster, a run of spaces one token",
                lower(*keep_case)
            ),
            Tokeniser::HuggingFace(p) => format!(
                "the Hugging Face tokenizer {} (no special tokens)",
                crate::io::names::terminal(&p.display().to_string())
            ),
        }
    }

    /// A tokeniser ready to cut sentences (a `tokenizer.json` is read once here).
    pub fn load(&self) -> Result<LoadedTokeniser> {
        Ok(match self {
            Tokeniser::Words { keep_case } => LoadedTokeniser::Words(*keep_case),
            Tokeniser::Chars { keep_case } => LoadedTokeniser::Chars(*keep_case),
            Tokeniser::HuggingFace(path) => LoadedTokeniser::HuggingFace(hf::load(path)?),
        })
    }
}

fn case(keep: bool) -> &'static str {
    if keep { "+case" } else { "" }
}

/// A tokeniser with its data loaded.
pub enum LoadedTokeniser {
    Words(bool),
    Chars(bool),
    HuggingFace(hf::Model),
}

impl LoadedTokeniser {
    /// Appends the tokens of `sentence` to `out`.
    pub fn tokens(&self, sentence: &str, out: &mut Vec<String>) -> std::result::Result<(), String> {
        match self {
            LoadedTokeniser::Words(keep) => {
                words(&normalise(sentence, *keep), out);
                Ok(())
            }
            LoadedTokeniser::Chars(keep) => {
                chars(&normalise(sentence, *keep), out);
                Ok(())
            }
            LoadedTokeniser::HuggingFace(m) => hf::tokens(m, sentence, out),
        }
    }
}

/// Lowercase (unless `keep_case`), then NFC: lowercasing can leave a sequence that NFC
/// composes (`İ` lowercases to `i` + U+0307).
fn normalise(s: &str, keep_case: bool) -> String {
    if keep_case {
        s.nfc().collect()
    } else {
        s.to_lowercase().nfc().collect()
    }
}

/// A character that belongs to a word: a letter or a digit (Unicode Alphabetic or Numeric).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// A character that attaches to the one before it: a combining mark, a zero-width joiner or
/// non-joiner, a variation selector, an emoji modifier or tag.
fn attaches(c: char) -> bool {
    is_combining_mark(c)
        || matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}' | '\u{E0020}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
}

fn words(s: &str, out: &mut Vec<String>) {
    for seg in s.split_word_bounds() {
        if seg.chars().all(char::is_whitespace) {
            continue;
        }
        if !seg.chars().any(is_word_char) {
            // Punctuation, a symbol or an emoji cluster: UAX #29 already gives it alone.
            out.push(seg.to_string());
            continue;
        }
        // A word segment may hold punctuation between letters or digits (don't, 3.14, a_b):
        // each such character is a token of its own.
        let mut current = String::new();
        for c in seg.chars() {
            if is_word_char(c) || (attaches(c) && !current.is_empty()) {
                current.push(c);
            } else if attaches(c) {
                // A mark after punctuation stays with it.
                match out.last_mut() {
                    Some(last) => last.push(c),
                    None => current.push(c),
                }
            } else {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                out.push(c.to_string());
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
}

fn chars(s: &str, out: &mut Vec<String>) {
    let mut space = false;
    for g in s.graphemes(true) {
        if g.chars().all(char::is_whitespace) {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(" ".to_string());
        }
        space = false;
        out.push(g.to_string());
    }
}

/// The Hugging Face tokenizer, behind the `tokenizers` feature.
#[cfg(feature = "tokenizers")]
pub mod hf {
    use super::*;

    pub type Model = tokenizers::Tokenizer;

    pub fn load(path: &Path) -> Result<Model> {
        // Read through kcomp's checks (a regular file, at most 256 MiB), then parsed.
        let text = crate::io::limits::read_text(path)?;
        let bad = |e: &dyn std::fmt::Display| {
            KcompError::file(
                path,
                format!(
                    "not a Hugging Face tokenizer.json ({})",
                    one_line(&e.to_string())
                ),
            )
        };
        let mut m = text.parse::<Model>().map_err(|e| bad(&e))?;
        // A tokenizer.json may pad to a fixed length or truncate (all-MiniLM-L6-v2's pads
        // to 128 with [PAD]): kcomp pads W itself and keeps every token.
        m.with_padding(None);
        m.with_truncation(None).map_err(|e| bad(&e))?;
        Ok(m)
    }

    pub fn tokens(
        m: &Model,
        sentence: &str,
        out: &mut Vec<String>,
    ) -> std::result::Result<(), String> {
        let enc = m
            .encode(sentence, false)
            .map_err(|e| format!("the tokenizer failed: {}", one_line(&e.to_string())))?;
        out.extend(enc.get_tokens().iter().cloned());
        Ok(())
    }

    fn one_line(s: &str) -> String {
        s.replace('\n', " ")
    }
}

/// Without the `tokenizers` feature a `tokenizer.json` is refused with the way to get it.
#[cfg(not(feature = "tokenizers"))]
pub mod hf {
    use super::*;

    pub enum Model {}

    pub fn load(path: &Path) -> Result<Model> {
        Err(KcompError::file(
            path,
            "a Hugging Face tokenizer.json needs kcomp built with the `tokenizers` feature \
             (cargo install --features tokenizers); the words and chars tokenisers need nothing",
        ))
    }

    pub fn tokens(m: &Model, _: &str, _: &mut Vec<String>) -> std::result::Result<(), String> {
        match *m {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(&normalise(s, false), &mut out);
        out
    }

    fn c(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        chars(&normalise(s, false), &mut out);
        out
    }

    #[test]
    fn words_lowercase_and_split_punctuation() {
        assert_eq!(
            w("Two young, White males are outside."),
            ["two", "young", ",", "white", "males", "are", "outside", "."]
        );
        assert_eq!(w("Don't stop!"), ["don", "'", "t", "stop", "!"]);
        assert_eq!(
            w("l'homme (3.14)"),
            ["l", "'", "homme", "(", "3", ".", "14", ")"]
        );
        assert_eq!(w("  \t "), Vec::<String>::new());
        assert_eq!(w("ZWEI Männer, Straße"), ["zwei", "männer", ",", "straße"]);
        // Full case mapping: İ lowercases to i + combining dot, kept as one word.
        assert_eq!(w("İstanbul"), ["i\u{307}stanbul"]);
    }

    #[test]
    fn accents_are_one_letter_whatever_their_encoding() {
        // Precomposed é and e + combining acute give the same word.
        assert_eq!(w("Caf\u{e9}"), w("Cafe\u{301}"));
        assert_eq!(w("Cafe\u{301} noir"), ["caf\u{e9}", "noir"]);
        // A combining mark on a consonant that has no precomposed form stays in the word.
        assert_eq!(w("q\u{323}a"), ["q\u{323}a"]);
        // Czech.
        assert_eq!(
            w("Dva mladí, bílí muži."),
            ["dva", "mladí", ",", "bílí", "muži", "."]
        );
    }

    #[test]
    fn cjk_emoji_and_symbols() {
        // Han ideographs: one word each (no dictionary); Katakana runs stay together.
        assert_eq!(w("我爱猫"), ["我", "爱", "猫"]);
        assert_eq!(w("コーヒーを飲む"), ["コーヒー", "を", "飲", "む"]);
        // An emoji with a skin-tone modifier, a ZWJ family and a flag: one token each.
        assert_eq!(w("ok 👍🏽!"), ["ok", "👍🏽", "!"]);
        assert_eq!(w("👨\u{200d}👩\u{200d}👧"), ["👨\u{200d}👩\u{200d}👧"]);
        assert_eq!(w("🇫🇷 win"), ["🇫🇷", "win"]);
        assert_eq!(w("a+b=c €5"), ["a", "+", "b", "=", "c", "€", "5"]);
        assert_eq!(w("snake_case"), ["snake", "_", "case"]);
    }

    #[test]
    fn chars_are_grapheme_clusters() {
        assert_eq!(c("Ab  c"), ["a", "b", " ", "c"]);
        assert_eq!(c("  e\u{301}!"), ["\u{e9}", "!"]);
        assert_eq!(c("q\u{323} 👍🏽"), ["q\u{323}", " ", "👍🏽"]);
        assert_eq!(c("猫。"), ["猫", "。"]);
    }

    /// A word-level tokenizer.json that pads to 8 tokens: kcomp turns its padding off.
    #[cfg(feature = "tokenizers")]
    #[test]
    fn a_tokenizer_json_cuts_without_its_padding() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokenizer.json");
        std::fs::write(
            &path,
            r#"{"version":"1.0","truncation":null,"padding":{"strategy":{"Fixed":8},"direction":"Right","pad_to_multiple_of":null,"pad_id":3,"pad_type_id":0,"pad_token":"[PAD]"},"added_tokens":[],"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,"model":{"type":"WordLevel","vocab":{"[UNK]":0,"the":1,"cat":2,"[PAD]":3},"unk_token":"[UNK]"}}"#,
        )
        .unwrap();
        let t = Tokeniser::parse(path.to_str().unwrap(), false)
            .unwrap()
            .load()
            .unwrap();
        let mut out = Vec::new();
        t.tokens("The cat sat.", &mut out).unwrap();
        assert_eq!(out, ["the", "cat", "[UNK]", "[UNK]"]);
        std::fs::write(&path, "{}").unwrap();
        let e = Tokeniser::parse(path.to_str().unwrap(), false)
            .unwrap()
            .load()
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not a Hugging Face tokenizer.json"), "{e}");
    }

    #[test]
    fn keep_case_and_names() {
        let mut out = Vec::new();
        words(&normalise("Big Cat", true), &mut out);
        assert_eq!(out, ["Big", "Cat"]);
        assert_eq!(
            Tokeniser::parse("words", true).unwrap().name(),
            "words+case"
        );
        assert!(Tokeniser::parse("bytes", false).is_err());
        assert!(Tokeniser::parse("t.json", true).is_err());
        assert_eq!(
            Tokeniser::parse("t.json", false).unwrap(),
            Tokeniser::HuggingFace("t.json".into())
        );
    }
}
