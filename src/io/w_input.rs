//! Reading W: integer tables (`.npy`, `.csv`, `.jsonl`, rows of any lengths in the text
//! formats) or sentences (a text file, one sentence per line, through a [`Tokeniser`]), turned
//! into dense token ids with kcomp's own padding.
//!
//! - **Dense ids.** Token ids are remapped to `0..V` in increasing order of the ids (text
//!   tokens: in byte order of the token strings), so memory and time follow the number of
//!   distinct tokens, not the ids' values (ids near 10^7 on 300 rows took 5 GB). Ids that
//!   already are `0..V` with none missing map to themselves. [`WInfo`] keeps the mapping.
//! - **Padding.** Rows of different lengths (a ragged `.csv`/`.jsonl`, sentences) are padded at
//!   the end to the longest with kcomp's padding token, the id `V` after the vocabulary (or with
//!   the user's padding token, `--pad`, when one is given). The dataset carries it
//!   ([`TokenData::pad`]): distances read messages without it, the prequential learners get it
//!   as their padding mask, and every command says so.
//! - **Sizes first.** The file's size bounds the tokens before any is read (checked against the
//!   memory limit), the padded table (rows x longest row) is checked before it is allocated, and
//!   a row longer than [`MAX_COLUMNS`] tokens is refused at that row.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::text::Tokeniser;
use super::user_data::{MAX_COLUMNS, Values};
use crate::dataset::TokenData;
use crate::error::{KcompError, Result};

/// How a W file is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum WFormat {
    /// By extension: .npy, .csv, .jsonl/.ndjson, and .txt/.text for sentences.
    #[default]
    Auto,
    Npy,
    Csv,
    Jsonl,
    /// One sentence per line, cut into tokens by the tokeniser.
    Text,
}

impl WFormat {
    /// The format of `path`: `self`, or its extension's for `Auto`.
    pub fn resolve(self, path: &Path) -> Result<WFormat> {
        if self != WFormat::Auto {
            return Ok(self);
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "npy" => Ok(WFormat::Npy),
            "csv" => Ok(WFormat::Csv),
            "jsonl" | "ndjson" => Ok(WFormat::Jsonl),
            "txt" | "text" => Ok(WFormat::Text),
            _ => Err(KcompError::file(
                path,
                "unknown format: use .npy, .csv, .jsonl or .txt (sentences), or name it with \
                 --w-format",
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            WFormat::Auto => "auto",
            WFormat::Npy => "npy",
            WFormat::Csv => "csv",
            WFormat::Jsonl => "jsonl",
            WFormat::Text => "text",
        }
    }
}

/// How to read W: the format, the tokeniser of sentences, the user's padding token.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WOptions {
    pub format: WFormat,
    /// Sentences only; `None` is the default (`words`).
    pub tokeniser: Option<Tokeniser>,
    /// A padding token the user's integer W already holds (an id of the file, before the
    /// remapping): rows padded with it end there, and ragged rows are padded with it.
    pub pad: Option<i64>,
}

impl WOptions {
    /// Options from the command line's words: `--w-format`, `--tokeniser`, `--keep-case`,
    /// `--pad`.
    pub fn from_flags(
        format: Option<WFormat>,
        tokeniser: Option<&str>,
        keep_case: bool,
        pad: Option<i64>,
    ) -> Result<WOptions> {
        let tokeniser = match (tokeniser, keep_case) {
            (Some(t), _) => Some(Tokeniser::parse(t, keep_case)?),
            (None, true) => Some(Tokeniser::Words { keep_case: true }),
            (None, false) => None,
        };
        Ok(WOptions {
            format: format.unwrap_or_default(),
            tokeniser,
            pad,
        })
    }

    /// Refuses options that do not apply to a W of `format` (resolved).
    fn check(&self, path: &Path, format: WFormat) -> Result<()> {
        match format {
            WFormat::Text if self.pad.is_some() => Err(KcompError::param(
                "pad",
                format!(
                    "{} holds sentences: kcomp pads them with its own token; --pad names the \
                     padding token of an integer W",
                    path.display()
                ),
            )),
            WFormat::Text => Ok(()),
            _ if self.tokeniser.is_some() => Err(KcompError::param(
                "tokeniser",
                format!(
                    "{} is read as integer tokens ({}); a tokeniser applies to sentences \
                     (a .txt file, or --w-format text)",
                    path.display(),
                    format.name()
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The command-line flags that say how W is read (`compare`, beside `--w`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct WArgs {
    /// How --w is read: auto (by extension: .npy, .csv, .jsonl, .txt), npy, csv, jsonl, or
    /// text (one sentence per line, cut by --tokeniser).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "w")]
    pub w_format: Option<WFormat>,
    /// Tokeniser of sentence W: words (default: Unicode lowercase, UAX #29 word boundaries,
    /// each punctuation character a token), chars (grapheme clusters) or a Hugging Face
    /// tokenizer.json (kcomp built with the `tokenizers` feature).
    #[arg(long, value_name = "words|chars|FILE.json", requires = "w")]
    pub tokeniser: Option<String>,
    /// Keep the case of sentences (words and chars lowercase them by default).
    #[arg(long, requires = "w")]
    pub keep_case: bool,
    /// The padding token of an integer W (an id of the file): messages end at it, distances
    /// skip it, the prequential learners take it as their padding mask. Rows of different
    /// lengths are padded with it (without --pad, with kcomp's own token after the vocabulary).
    #[arg(long, value_name = "TOKEN", requires = "w")]
    pub pad: Option<i64>,
}

impl WArgs {
    pub fn options(&self) -> Result<WOptions> {
        WOptions::from_flags(
            self.w_format,
            self.tokeniser.as_deref(),
            self.keep_case,
            self.pad,
        )
    }
}

/// What each dense id stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Labels {
    /// The file's integer ids, in increasing order: dense id k is `ids[k]`.
    Ids(Vec<i64>),
    /// Token strings, in byte order: dense id k is `tokens[k]`.
    Tokens(Vec<String>),
}

impl Labels {
    pub fn len(&self) -> usize {
        match self {
            Labels::Ids(v) => v.len(),
            Labels::Tokens(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The label of dense id `k` as text.
    pub fn label(&self, k: usize) -> String {
        match self {
            Labels::Ids(v) => v[k].to_string(),
            Labels::Tokens(v) => v[k].clone(),
        }
    }

    /// Whether the ids were already dense (`0..V`, none missing): the mapping is the identity.
    pub fn is_identity(&self) -> bool {
        match self {
            Labels::Ids(v) => v.iter().enumerate().all(|(k, &id)| id == k as i64),
            Labels::Tokens(_) => false,
        }
    }
}

/// Where W's padding token comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "source")]
pub enum PadSource {
    /// kcomp's own: the id after the vocabulary, added because rows differ in length.
    Kcomp,
    /// The user's (`--pad ID`), an id of the file.
    User { id: i64 },
}

/// How W was read: the format, tokeniser, the mapping of dense ids, the padding, lengths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WInfo {
    pub format: WFormat,
    /// The tokeniser of sentences (text W only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokeniser: Option<String>,
    /// Distinct tokens (not counting kcomp's padding token).
    pub distinct: usize,
    /// The dense id of the padding token, if W has one.
    pub pad: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pad_source: Option<PadSource>,
    /// Message lengths without padding: shortest, longest, mean.
    pub min_length: usize,
    pub max_length: usize,
    pub mean_length: f64,
    /// Whether the ids were remapped (false: the file's ids were already dense).
    pub remapped: bool,
    /// What each dense id stands for (left out of JSON summaries: see [`WInfo::summary`]).
    #[serde(skip)]
    pub labels: Option<Labels>,
}

impl WInfo {
    /// The JSON object reported with a result (no labels: those go to w_vocabulary.csv).
    pub fn summary(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let (Some(Labels::Ids(ids)), Some(obj)) = (&self.labels, v.as_object_mut())
            && self.remapped
        {
            obj.insert("smallest_id".into(), ids.first().copied().into());
            obj.insert("largest_id".into(), ids.last().copied().into());
        }
        v
    }

    /// The lines said under a result about how W was read (nothing for a rectangular,
    /// already dense integer W without padding).
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let lengths = if self.min_length == self.max_length {
            format!("every row {} tokens", self.max_length)
        } else {
            format!(
                "rows of {} to {} tokens (mean {:.1})",
                self.min_length, self.max_length, self.mean_length
            )
        };
        match (&self.tokeniser, &self.labels) {
            (Some(t), _) => notes.push(format!(
                "W read as sentences, tokeniser {t}; {} distinct tokens (dense ids 0..{} in byte \
                 order of the tokens); {lengths}",
                self.distinct,
                self.distinct.saturating_sub(1)
            )),
            (None, Some(Labels::Ids(ids))) if self.remapped => notes.push(format!(
                "W's {} distinct token ids ({} to {}) remapped to dense ids 0..{} in increasing \
                 order; {lengths}",
                self.distinct,
                ids.first().copied().unwrap_or(0),
                ids.last().copied().unwrap_or(0),
                self.distinct.saturating_sub(1)
            )),
            _ if self.pad_source.is_some() => notes.push(format!("W: {lengths}")),
            _ => {}
        }
        match (self.pad, self.pad_source) {
            (Some(p), Some(PadSource::Kcomp)) => notes.push(format!(
                "W padded at the end with kcomp's padding token {p} (the id after the \
                 vocabulary); distances read messages without it and the prequential learners \
                 take it as their padding mask (a GRU joins the online learners)"
            )),
            (Some(p), Some(PadSource::User { id })) => notes.push(format!(
                "token {id} is padding (--pad){}; distances read messages without it and the \
                 prequential learners take it as their padding mask",
                if self.remapped {
                    format!(", dense id {p}")
                } else {
                    String::new()
                }
            )),
            _ => {}
        }
        notes
    }

    /// The mapping as CSV: `dense_id,token,count` (counts of occurrences in W; the padding
    /// token on the last line when kcomp added it).
    pub fn vocabulary_csv(&self, w: &TokenData) -> Result<Vec<u8>> {
        let mut counts = vec![0u64; w.vocab];
        for i in 0..w.n {
            for &t in w.message(i) {
                counts[t as usize] += 1;
            }
        }
        let mut wtr = csv::Writer::from_writer(Vec::new());
        let err = |e: csv::Error| KcompError::Other(format!("cannot write the vocabulary: {e}"));
        wtr.write_record(["dense_id", "token", "count"])
            .map_err(err)?;
        for k in 0..w.vocab {
            let label = match (&self.labels, self.pad) {
                (_, Some(p)) if p as usize == k && self.pad_source == Some(PadSource::Kcomp) => {
                    "<pad>".to_string()
                }
                (Some(l), _) if k < l.len() => l.label(k),
                _ => k.to_string(),
            };
            let count = if Some(k as u32) == self.pad {
                (w.n * w.n_words) as u64 - counts.iter().sum::<u64>()
            } else {
                counts[k]
            };
            wtr.write_record([
                k.to_string(),
                crate::io::names::csv_cell(&label).into_owned(),
                count.to_string(),
            ])
            .map_err(err)?;
        }
        wtr.into_inner()
            .map_err(|e| KcompError::Other(format!("cannot write the vocabulary: {e}")))
    }
}

/// Rows of integer ids of any lengths, flat: row `r` is `values[offsets[r]..offsets[r + 1]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct RaggedIds {
    pub offsets: Vec<usize>,
    pub values: Vec<i64>,
}

impl RaggedIds {
    /// Rows of equal width `cols`.
    pub fn rectangular(rows: usize, cols: usize, values: Vec<i64>) -> Self {
        RaggedIds {
            offsets: (0..=rows).map(|r| r * cols).collect(),
            values,
        }
    }

    pub fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn row(&self, r: usize) -> &[i64] {
        &self.values[self.offsets[r]..self.offsets[r + 1]]
    }
}

/// Reads W from `path` with `options`.
pub fn read_w(path: &Path, options: &WOptions) -> Result<(TokenData, WInfo)> {
    let format = options.format.resolve(path)?;
    options.check(path, format)?;
    match format {
        WFormat::Text => {
            let tokeniser = options.tokeniser.clone().unwrap_or_default();
            let (ragged, strings) = read_sentences(path, &tokeniser)?;
            let (w, mut info) = dense_tokens(path, ragged, Some(strings), None, format)?;
            info.tokeniser = Some(tokeniser.describe());
            Ok((w, info))
        }
        _ => {
            let ragged = super::user_data::read_w_ids(path, format)?;
            dense_tokens(path, ragged, None, options.pad, format)
        }
    }
}

/// Bytes per token while sentences are read: the ragged ids (4), their share of the token
/// strings interned once (bounded by the file's bytes, counted separately) and the padded
/// table (4, checked again once its shape is known).
const TEXT_BYTES_PER_BYTE: f64 = 16.0;

/// Tokenises a text file, one sentence per line: the ragged ids (in first-seen order) and
/// their token strings.
fn read_sentences(path: &Path, tokeniser: &Tokeniser) -> Result<(RaggedIds, Vec<String>)> {
    let (file, size) = super::files::open_regular(path)?;
    // Every token takes at least one byte of the line, so the file's size bounds them.
    if let Some(reason) =
        super::limits::over_limit("reading these sentences", size as f64 * TEXT_BYTES_PER_BYTE)
    {
        return Err(KcompError::file(path, reason));
    }
    let model = tokeniser.load()?;
    let mut reader = std::io::BufReader::new(file);
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut strings: Vec<String> = Vec::new();
    let mut offsets = vec![0usize];
    let mut values: Vec<i64> = Vec::new();
    let mut line = Vec::new();
    let mut tokens = Vec::new();
    let mut line_no = 0u64;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(KcompError::io(path, e)),
        }
        line_no += 1;
        let text = std::str::from_utf8(&line).map_err(|e| {
            KcompError::file(
                path,
                format!(
                    "line {line_no}: not UTF-8 text (byte {} of the line)",
                    e.valid_up_to() + 1
                ),
            )
        })?;
        let text = text
            .trim_end_matches(['\n', '\r'])
            .trim_start_matches('\u{feff}');
        tokens.clear();
        model
            .tokens(text, &mut tokens)
            .map_err(|e| KcompError::file(path, format!("line {line_no}: {e}")))?;
        if tokens.is_empty() {
            return Err(KcompError::file(
                path,
                format!(
                    "line {line_no} has no tokens: every line is one sentence, the row of Z on \
                     the same line (remove the line and its row of Z)"
                ),
            ));
        }
        if tokens.len() > MAX_COLUMNS {
            return Err(KcompError::file(
                path,
                format!(
                    "line {line_no} has {} tokens, more than the {MAX_COLUMNS} kcomp reads in a row",
                    tokens.len()
                ),
            ));
        }
        for t in tokens.drain(..) {
            let next = strings.len() as u32;
            let id = *ids.entry(t).or_insert_with_key(|k| {
                strings.push(k.clone());
                next
            });
            values.push(id as i64);
        }
        offsets.push(values.len());
    }
    if line_no == 0 {
        return Err(KcompError::file(path, "empty file: no sentences"));
    }
    Ok((RaggedIds { offsets, values }, strings))
}

/// Dense ids, padding and the report: `ragged` holds the file's ids (`labels`: the token
/// strings of text ids, which are then sorted by their strings).
pub fn dense_tokens(
    path: &Path,
    ragged: RaggedIds,
    strings: Option<Vec<String>>,
    user_pad: Option<i64>,
    format: WFormat,
) -> Result<(TokenData, WInfo)> {
    let rows = ragged.rows();
    if rows == 0 {
        return Err(KcompError::file(path, "empty file: no data rows"));
    }
    if let Some(i) = ragged.values.iter().position(|&x| x < 0) {
        let r = ragged.offsets.partition_point(|&o| o <= i) - 1;
        return Err(KcompError::file(
            path,
            format!(
                "row {}, column {}: token {} is negative (token ids are non-negative integers)",
                r + 1,
                i - ragged.offsets[r] + 1,
                ragged.values[i]
            ),
        ));
    }
    // Dense ids and what they stand for.
    let (dense, labels): (Vec<u32>, Labels) = match strings {
        Some(strings) => {
            let mut order: Vec<u32> = (0..strings.len() as u32).collect();
            order.sort_unstable_by(|&a, &b| strings[a as usize].cmp(&strings[b as usize]));
            let mut rank = vec![0u32; strings.len()];
            for (k, &s) in order.iter().enumerate() {
                rank[s as usize] = k as u32;
            }
            let dense = ragged.values.iter().map(|&v| rank[v as usize]).collect();
            let mut strings = strings;
            let sorted = order
                .iter()
                .map(|&s| std::mem::take(&mut strings[s as usize]))
                .collect();
            (dense, Labels::Tokens(sorted))
        }
        None => {
            let mut ids: Vec<i64> = ragged.values.clone();
            if let Some(p) = user_pad {
                ids.push(p);
            }
            ids.sort_unstable();
            ids.dedup();
            // The copy held every value; only the distinct ones stay.
            ids.shrink_to_fit();
            let dense = ragged
                .values
                .iter()
                .map(|v| ids.binary_search(v).expect("every value is listed") as u32)
                .collect();
            (dense, Labels::Ids(ids))
        }
    };
    let distinct = labels.len();
    let user_pad_dense = match (&labels, user_pad) {
        (Labels::Ids(ids), Some(p)) => Some(ids.binary_search(&p).expect("listed") as u32),
        _ => None,
    };
    let lengths: Vec<usize> = (0..rows)
        .map(|r| {
            let row = ragged.row(r);
            match user_pad {
                Some(p) => row.iter().position(|&t| t == p).unwrap_or(row.len()),
                None => row.len(),
            }
        })
        .collect();
    let width = (0..rows).map(|r| ragged.row(r).len()).max().unwrap_or(0);
    if width == 0 {
        return Err(KcompError::file(path, "every row is empty: no tokens"));
    }
    let ragged_rows = (0..rows).any(|r| ragged.row(r).len() != width);
    let (pad, pad_source, vocab) = match (user_pad_dense, ragged_rows) {
        (Some(p), _) => (
            Some(p),
            Some(PadSource::User {
                id: user_pad.unwrap_or(0),
            }),
            distinct,
        ),
        (None, true) => (Some(distinct as u32), Some(PadSource::Kcomp), distinct + 1),
        (None, false) => (None, None, distinct),
    };
    if vocab > u32::MAX as usize / 2 {
        return Err(KcompError::file(path, "more than 2^31 distinct tokens"));
    }
    // The padded table, checked before it is allocated.
    let cells = rows as f64 * width as f64;
    if let Some(reason) = super::limits::over_limit(
        &format!("W padded to its longest row ({rows} rows x {width} tokens)"),
        cells * 4.0,
    ) {
        return Err(KcompError::file(path, reason));
    }
    let tokens: Vec<u32> = if ragged_rows {
        let fill = pad.expect("ragged rows have a padding token");
        let mut t = Vec::with_capacity(rows * width);
        for r in 0..rows {
            let (a, b) = (ragged.offsets[r], ragged.offsets[r + 1]);
            t.extend_from_slice(&dense[a..b]);
            t.extend(std::iter::repeat_n(fill, width - (b - a)));
        }
        t
    } else {
        dense
    };
    let mut w = TokenData::new(rows, width, vocab, tokens)
        .map_err(|e| KcompError::file(path, e.to_string()))?;
    if let Some(p) = pad {
        w = w.with_pad(p).map_err(|e| match e {
            KcompError::InvalidParameter { reason, .. } => KcompError::file(path, reason),
            other => other,
        })?;
    }
    let remapped = !labels.is_identity();
    let info = WInfo {
        format,
        tokeniser: None,
        distinct,
        pad,
        pad_source,
        min_length: lengths.iter().copied().min().unwrap_or(0),
        max_length: lengths.iter().copied().max().unwrap_or(0),
        mean_length: lengths.iter().sum::<usize>() as f64 / rows as f64,
        remapped,
        labels: Some(labels),
    };
    Ok((w, info))
}

/// Integer ids of a table's values (W must hold integers), moved, not copied.
pub fn ids_of(values: Values, path: &Path) -> Result<Vec<i64>> {
    match values {
        Values::Int(v) => Ok(v),
        Values::Float(_) => Err(KcompError::file(
            path,
            "W must hold integer tokens, found floating-point values",
        )),
    }
}

/// Tokenises sentences given in memory (the Python bindings): the same as a text file whose
/// lines they are, `name` standing for the file in errors.
pub fn tokens_from_sentences(
    sentences: &[String],
    tokeniser: &Tokeniser,
    name: &Path,
) -> Result<(TokenData, WInfo)> {
    let model = tokeniser.load()?;
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut strings: Vec<String> = Vec::new();
    let mut offsets = vec![0usize];
    let mut values: Vec<i64> = Vec::new();
    let mut tokens = Vec::new();
    for (i, s) in sentences.iter().enumerate() {
        tokens.clear();
        model
            .tokens(s, &mut tokens)
            .map_err(|e| KcompError::file(name, format!("sentence {}: {e}", i + 1)))?;
        if tokens.is_empty() {
            return Err(KcompError::file(
                name,
                format!("sentence {} has no tokens", i + 1),
            ));
        }
        if tokens.len() > MAX_COLUMNS {
            return Err(KcompError::file(
                name,
                format!(
                    "sentence {} has {} tokens, more than the {MAX_COLUMNS} kcomp reads",
                    i + 1,
                    tokens.len()
                ),
            ));
        }
        for t in tokens.drain(..) {
            let next = strings.len() as u32;
            let id = *ids.entry(t).or_insert_with_key(|k| {
                strings.push(k.clone());
                next
            });
            values.push(id as i64);
        }
        offsets.push(values.len());
    }
    let (w, mut info) = dense_tokens(
        name,
        RaggedIds { offsets, values },
        Some(strings),
        None,
        WFormat::Text,
    )?;
    info.tokeniser = Some(tokeniser.describe());
    Ok((w, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ragged(rows: &[&[i64]]) -> RaggedIds {
        let mut offsets = vec![0];
        let mut values = Vec::new();
        for r in rows {
            values.extend_from_slice(r);
            offsets.push(values.len());
        }
        RaggedIds { offsets, values }
    }

    #[test]
    fn sparse_ids_become_dense_in_increasing_order() {
        let p = Path::new("W.jsonl");
        let (w, info) = dense_tokens(
            p,
            ragged(&[&[9_999_999, 5], &[5, 70_000]]),
            None,
            None,
            WFormat::Jsonl,
        )
        .unwrap();
        assert_eq!((w.vocab, w.n_words, w.pad), (3, 2, None));
        assert_eq!(w.tokens, [2, 0, 0, 1]);
        assert!(info.remapped);
        assert_eq!(info.labels, Some(Labels::Ids(vec![5, 70_000, 9_999_999])));
        assert!(
            info.notes()[0].contains("5 to 9999999"),
            "{:?}",
            info.notes()
        );
        // Dense ids stay as they are.
        let (w, info) =
            dense_tokens(p, ragged(&[&[0, 2], &[1, 0]]), None, None, WFormat::Jsonl).unwrap();
        assert_eq!(w.tokens, [0, 2, 1, 0]);
        assert!(!info.remapped && info.notes().is_empty());
    }

    #[test]
    fn ragged_rows_get_kcomps_padding_token() {
        let p = Path::new("W.jsonl");
        let (w, info) = dense_tokens(
            p,
            ragged(&[&[3, 4, 3], &[4], &[]]),
            None,
            None,
            WFormat::Jsonl,
        )
        .unwrap();
        assert_eq!((w.vocab, w.n_words, w.pad), (3, 3, Some(2)));
        assert_eq!(w.tokens, [0, 1, 0, 1, 2, 2, 2, 2, 2]);
        assert_eq!(w.message(1), [1]);
        assert_eq!(w.message(2), [] as [u32; 0]);
        assert_eq!((info.min_length, info.max_length), (0, 3));
        assert_eq!(info.pad_source, Some(PadSource::Kcomp));
        let csv = String::from_utf8(info.vocabulary_csv(&w).unwrap()).unwrap();
        assert_eq!(csv, "dense_id,token,count\n0,3,2\n1,4,2\n2,<pad>,5\n");
    }

    #[test]
    fn a_users_padding_token_is_remapped_and_checked() {
        let p = Path::new("W.csv");
        let (w, info) = dense_tokens(
            p,
            ragged(&[&[7, 100, 100], &[8, 7, 100], &[8]]),
            None,
            Some(100),
            WFormat::Csv,
        )
        .unwrap();
        // 100 is dense id 2; the short row is padded with it.
        assert_eq!((w.vocab, w.pad), (3, Some(2)));
        assert_eq!(w.tokens, [0, 2, 2, 1, 0, 2, 1, 2, 2]);
        assert_eq!((info.min_length, info.max_length), (1, 2));
        assert!(
            info.notes()
                .iter()
                .any(|n| n.contains("token 100 is padding"))
        );
        // Padding before a real token is refused, naming the row.
        let e = dense_tokens(p, ragged(&[&[100, 7]]), None, Some(100), WFormat::Csv)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("W.csv: row 1: padding token"), "{e}");
        let e = dense_tokens(p, ragged(&[&[1, -4]]), None, None, WFormat::Csv)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "W.csv: row 1, column 2: token -4 is negative (token ids are non-negative integers)"
        );
    }

    #[test]
    fn sentences_are_sorted_by_token_whatever_the_row_order() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let t = Tokeniser::default();
        let (a, ia) =
            tokens_from_sentences(&s(&["A dog.", "The cat"]), &t, Path::new("W")).unwrap();
        let (b, _) = tokens_from_sentences(&s(&["The cat", "A dog."]), &t, Path::new("W")).unwrap();
        // Vocabulary: ".", "a", "cat", "dog", "the"; pad 5.
        assert_eq!(a.tokens, [1, 3, 0, 4, 2, 5]);
        assert_eq!(b.tokens, [4, 2, 5, 1, 3, 0]);
        assert_eq!(a.pad, Some(5));
        assert_eq!(
            ia.labels,
            Some(Labels::Tokens(s(&[".", "a", "cat", "dog", "the"])))
        );
        let e = tokens_from_sentences(&s(&["a", " "]), &t, Path::new("W"))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "W: sentence 2 has no tokens");
    }
}
