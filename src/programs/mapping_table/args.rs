//! The command-line options of `kcomp grid score` (clap derives them here, beside the metric
//! they configure) and the scored answer it prints.

use std::fmt;
use std::path::PathBuf;

use super::score::Scores;
use super::{AnswerStatus, ParserMode, evaluate_answer, sample_timeout};
use crate::datasets::string_grid::dataset::record_dataset;
use crate::datasets::string_grid::load_record;
use crate::error::{KcompError, Result};
use crate::programs::sandbox::SandboxConfig;

pub use super::MAX_ANSWER_BYTES;

/// `kcomp grid score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Dataset JSONL file.
    #[arg(long)]
    pub dataset: PathBuf,
    /// Record index (0-based line number).
    #[arg(long)]
    pub record: usize,
    /// The LLM's answer (Markdown with a code block, or a bare program).
    #[arg(long)]
    pub answer: PathBuf,
    /// `reference` (default: the published evaluator of Xu et al., so C(P) compares with the
    /// paper; it counts only dict and block tables and can be fooled by data hidden elsewhere)
    /// or `robust` (every literal the program runs; hidden data flagged). The output names it.
    #[arg(long, default_value = "reference")]
    pub parser: String,
    /// Print the JSON record: the evaluator's fields (c_error = (N+M) E(P), c = L(P), in_acc =
    /// % of samples right, log_norm_c = C(P) on a log scale), then errors, l_p_plus, l_p,
    /// profile, status, parser (which parser produced the fields), l_bits (the program's
    /// description length in bits), unaccounted_bits, hidden_data (the robust parser's
    /// verdict), reference_fooled (the reference scored C >= 50 despite hidden data).
    #[arg(long)]
    pub json: bool,
    /// Wall-clock limit per sample run, in seconds.
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub timeout: f64,
    /// UNSAFE: run without the OS sandbox (rlimits only) when it is unavailable.
    #[arg(long)]
    pub allow_unsandboxed: bool,
}

/// One scored answer: the evaluator's fields, and whether the program ran normally.
pub struct ScoredAnswer {
    pub scores: Scores,
    pub status: AnswerStatus,
}

impl ScoreArgs {
    /// Reads, runs (in the sandbox) and scores the answer.
    pub fn score(&self) -> Result<ScoredAnswer> {
        let mode = ParserMode::parse(&self.parser)?;
        // The checks `compare --grid` makes, by the same function (every input and grid
        // parsed, the shape read off the records, the layout checked for the setting the file
        // name gives, any shape when it gives none), so both refuse the same datasets.
        let named = self
            .dataset
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.contains("type="));
        record_dataset(&self.dataset, self.record, (!named).then_some("holistic"))?;
        let record = load_record(&self.dataset, self.record)?;
        let timeout = sample_timeout(self.timeout)?;
        let answer = crate::io::limits::read_capped(&self.answer, MAX_ANSWER_BYTES)?;
        let answer = String::from_utf8_lossy(&answer);
        if answer.trim().is_empty() {
            return Err(KcompError::file(&self.answer, "the answer is empty"));
        }
        let cfg = SandboxConfig {
            timeout,
            allow_unsandboxed: self.allow_unsandboxed,
            ..SandboxConfig::default()
        };
        let eval = evaluate_answer(&answer, &record, mode, &cfg)?;
        let Some(mut scores) = eval.scores.clone() else {
            return Err(KcompError::Other(format!(
                "{}: not scored",
                self.answer.display()
            )));
        };
        scores.status = eval.status_text();
        Ok(ScoredAnswer {
            scores,
            status: eval.status,
        })
    }
}

impl fmt::Display for ScoredAnswer {
    /// One line: C(P) and the terms behind it.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let s = &self.scores;
        let clip = s
            .clip_note()
            .map(|c| format!(" [clip: {c}]"))
            .unwrap_or_default();
        let status = match self.status {
            AnswerStatus::Ok => String::new(),
            _ => format!("  [{}]", s.status),
        };
        let warn = match (&s.hidden_data, self.status) {
            (Some(h), st) if st != AnswerStatus::HiddenData => {
                format!("  [the robust parser flags hidden_data: {h}]")
            }
            _ => String::new(),
        };
        write!(
            f,
            "C(P) = {:.2}  ({} parser; L(P) = {}, L(P+) = {}{clip}, E(P) = {} -> penalty {}, n = {}+{}, m = {}+{}, profile {}, l_bits = {:.1}){status}{warn}",
            s.norm_c,
            s.parser,
            s.l_p,
            s.l_p_plus,
            s.errors,
            s.c_error,
            s.c_dict_n,
            s.c_block_n,
            s.c_dict_m,
            s.c_block_m,
            s.profile,
            s.l_bits,
        )
    }
}
