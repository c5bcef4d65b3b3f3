//! The mapping-table metric of the rule-generation paper (Xu et al., ACL 2026): a program an LLM wrote
//! for a string-to-grid dataset is read as a mapping table P+ of size L(P+) = sum n + sum m,
//! run on the 16 samples for its error count E(P), and scored
//! C(P) = 100 (L_z - clip(L(P), L_s, L_z)) / (L_z - L_s) with L(P) = L(P+) + (N+M) E(P).
//!
//! - [`reference`]: the published evaluator's counts, rule by rule (flaws included);
//! - [`robust`]: a mapping table measured from the AST with those flaws fixed;
//! - [`extract`]: getting the program out of an answer;
//! - [`score`]: scores and T1/T2/T3 profiles;
//! - [`args`]: the options of `kcomp grid score` and the line it prints.

pub mod args;
pub mod extract;
pub mod hidden;
pub mod lbits;
pub mod pyval;
pub mod reference;
pub mod robust;
pub mod score;
pub mod space;
pub mod unparse;

use serde::Serialize;

/// The four counts of a mapping table (the reference's `calculate_estimate` output).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Input-side size from dict keys.
    pub n_dict: usize,
    /// Output-side size from dict values.
    pub m_dict: usize,
    /// Input-side size from if/else paths and assignments.
    pub n_block: usize,
    /// Output-side size from '*'/'.' literals outside deleted dicts.
    pub m_block: usize,
}

/// Which parser measures the table. `grid score` and `grid report` both default to the
/// reference (the published evaluator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParserMode {
    #[default]
    Reference,
    Robust,
}

impl ParserMode {
    /// `reference` or `robust`.
    pub fn name(self) -> &'static str {
        match self {
            ParserMode::Reference => "reference",
            ParserMode::Robust => "robust",
        }
    }

    /// Parses `reference|robust`.
    pub fn parse(s: &str) -> crate::Result<ParserMode> {
        match s {
            "reference" => Ok(ParserMode::Reference),
            "robust" => Ok(ParserMode::Robust),
            other => Err(crate::KcompError::param(
                "parser",
                format!("unknown parser `{other}` (expected reference or robust)"),
            )),
        }
    }
}

/// CPython's parser refuses more than 200 nested brackets ("too many nested parentheses");
/// refusing them here too also bounds the recursion of our tree walks.
pub const MAX_NESTING: usize = 200;

/// Largest program measured (bytes); longer ones are treated as unparseable, which bounds
/// the depth of operator chains (a 256 KiB chain fits the measuring thread's stack).
pub const MAX_CODE_BYTES: usize = 256 * 1024;

/// Parses a module like `ast.parse` would accept it: `None` on a syntax error, on more than
/// [`MAX_NESTING`] nested brackets, or above [`MAX_CODE_BYTES`].
pub fn parse_guarded(code: &str) -> Option<ruff_python_parser::Parsed<ruff_python_ast::ModModule>> {
    if code.len() > MAX_CODE_BYTES {
        return None;
    }
    let mut depth = 0usize;
    for b in code.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return None;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    ruff_python_parser::parse_module(code).ok()
}

/// Measures the mapping table of a program of the published task (letters A-H, 4 x 4 grid).
///
/// Panics if the measuring thread cannot run (the scoring path uses [`analyse`], which
/// returns the failure): a silent empty table would score C = 100.
pub fn measure(code: &str, mode: ParserMode) -> Counts {
    measure_with(code, mode, space::Alphabet::default())
}

/// [`measure`] with the task's letters and cells; panics where [`try_measure_with`] fails.
pub fn measure_with(code: &str, mode: ParserMode, alphabet: space::Alphabet) -> Counts {
    try_measure_with(code, mode, alphabet).unwrap_or_else(|e| panic!("{e}"))
}

/// Measures the mapping table of a program with the chosen parser and the task's letters and
/// cells, on a thread with a large stack (long operator chains make deep trees). Fails (never
/// an empty table) when that thread cannot start or panics: the caller reports the answer as
/// `internal_error`.
pub fn try_measure_with(
    code: &str,
    mode: ParserMode,
    alphabet: space::Alphabet,
) -> std::result::Result<Counts, String> {
    let code = code.to_string();
    let run = move || {
        space::with_alphabet(alphabet, || match mode {
            ParserMode::Reference => reference::calculate_estimate(&code),
            ParserMode::Robust => robust::measure(&code),
        })
    };
    on_large_stack(run)
}

/// Runs a parser on a thread with a large stack (long operator chains make deep trees). A
/// thread that cannot start or panics is an error the caller counts as `internal_error`
/// (fail closed), never an empty table.
fn on_large_stack<T: Send + 'static>(
    run: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, String> {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(run)
        .map_err(|e| format!("cannot start the measuring thread: {e}"))?
        .join()
        .map_err(|_| "the measuring thread panicked".to_string())
}

/// What the scorer reads off a program besides running it.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The table under the chosen parser.
    pub counts: Counts,
    /// The robust parser's table (the same as `counts` in robust mode).
    pub robust: Counts,
    /// Bits of live literals the robust table does not account for.
    pub unaccounted_bits: f64,
    /// Decoding/introspection paths ([`hidden::paths`]).
    pub paths: Vec<String>,
    /// [`lbits::l_bits`] of the program.
    pub l_bits: f64,
}

/// Measures a program with the chosen parser and reads the robust parser's hidden-data
/// evidence and `l_bits`, on a thread with a large stack. A thread that cannot start or
/// panics is an error the caller counts (fail closed), never an empty table.
pub fn analyse(
    code: &str,
    mode: ParserMode,
    alphabet: space::Alphabet,
) -> std::result::Result<Analysis, String> {
    let code = code.to_string();
    let run = move || {
        space::with_alphabet(alphabet, || {
            let (robust, unaccounted_bits) = robust::measure_bits(&code);
            let counts = match mode {
                ParserMode::Reference => reference::calculate_estimate(&code),
                ParserMode::Robust => robust,
            };
            Analysis {
                counts,
                robust,
                unaccounted_bits,
                paths: hidden::paths(&code),
                l_bits: lbits::l_bits(&code),
            }
        })
    };
    on_large_stack(run)
}

/// The robust parser's verdict: `Some(reason)` when data can reach the output without being
/// counted. Either the program has a decoding/introspection path ([`hidden::paths`]), or its
/// live literals outside the table hold at least half the bits of the sample outputs the
/// table does not hold, max(2 M, (d M - m) / 2) bits (128 on the published task with a
/// compositional table): enough to encode the sample outputs while the table is small.
pub fn hidden_verdict(a: &Analysis, task: &score::TaskSize) -> Option<String> {
    if !a.paths.is_empty() {
        return Some(format!(
            "data can reach the output through {}",
            a.paths.join(", ")
        ));
    }
    let dm = (task.d * task.m) as f64;
    let m = (a.robust.m_dict + a.robust.m_block) as f64;
    let threshold = (2.0 * task.m as f64).max((dm - m.min(dm)) / 2.0);
    (a.unaccounted_bits >= threshold).then(|| {
        format!(
            "{:.0} bits of data outside the table (threshold {threshold:.0})",
            a.unaccounted_bits
        )
    })
}

/// Largest answer file (LLM answer, extracted program, result answer or stored
/// `_info.json`) that `grid score` and `grid report` read: an LLM answer is a few kB. The
/// size is checked on the open file before anything is read.
pub const MAX_ANSWER_BYTES: u64 = 16 << 20;

/// A reference score at or above this C(P) with a robust `hidden_data` verdict is reported
/// as the reference parser being fooled (`reference_fooled`).
pub const FOOLED_C: f64 = 50.0;

/// Extracts the program from an answer with the chosen mode's rules.
pub fn extract(answer: &str, mode: ParserMode) -> String {
    match mode {
        ParserMode::Reference => extract::extract_reference(answer),
        ParserMode::Robust => extract::extract_robust(answer),
    }
}

/// Per-answer outcome in a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// Scored normally.
    Ok,
    /// The answer file is empty (or whitespace only): not scored.
    EmptyAnswer,
    /// No program could be extracted: scored as the empty program (every sample wrong).
    NoProgram,
    /// At least one sample hit the time limit.
    Timeout,
    /// At least one sample was stopped for too much output.
    OutputLimit,
    /// At least one sample was killed by a signal it caused (segfault, abort, ...).
    Crashed,
    /// The sandbox failed for at least one sample: every sample counts as wrong.
    SandboxError,
    /// kcomp itself failed on the way to the score (e.g. the measuring thread could not
    /// start): scored as the empty program, every sample wrong, and counted as a failure.
    InternalError,
    /// Robust parser: data reaches the output through a path it cannot count (see
    /// [`hidden_verdict`]); scored as a failed answer, every sample wrong (C = 0).
    HiddenData,
}

impl AnswerStatus {
    /// The snake_case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            AnswerStatus::Ok => "ok",
            AnswerStatus::EmptyAnswer => "empty_answer",
            AnswerStatus::NoProgram => "no_program",
            AnswerStatus::Timeout => "timeout",
            AnswerStatus::OutputLimit => "output_limit",
            AnswerStatus::Crashed => "crashed",
            AnswerStatus::SandboxError => "sandbox_error",
            AnswerStatus::InternalError => "internal_error",
            AnswerStatus::HiddenData => "hidden_data",
        }
    }
}

/// A scored answer.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerEval {
    pub status: AnswerStatus,
    /// Always present: answers that cannot run score as the published evaluator scores
    /// them (an empty answer is the empty program, every sample wrong, C = 0).
    pub scores: Option<score::Scores>,
    /// Why the sandbox or kcomp failed (`SandboxError`, `InternalError` only).
    pub detail: Option<String>,
}

impl AnswerEval {
    /// `ok`, `timeout`, ... or `sandbox_error: <reason>`.
    pub fn status_text(&self) -> String {
        match &self.detail {
            Some(d) => format!("{}: {d}", self.status.name()),
            None => self.status.name().to_string(),
        }
    }
}

/// Scores of an answer that never ran: the empty table, every one of the task's d samples
/// wrong, with the given status (profile `no_program`).
pub fn unscorable(mode: ParserMode, task: &score::TaskSize, status: &str) -> score::Scores {
    let mut s = score::score(&Counts::default(), task.d, mode, task);
    s.l_bits = lbits::l_bits("");
    s.status = status.to_string();
    s.profile = score::PROFILE_NO_PROGRAM.to_string();
    s
}

/// Shortest per-sample timeout: below it even a correct program's interpreter start-up fails.
pub const MIN_TIMEOUT_SECS: f64 = 0.1;
/// Longest per-sample timeout.
pub const MAX_TIMEOUT_SECS: f64 = 600.0;

/// Checks a per-sample timeout in seconds (`--timeout`).
pub fn sample_timeout(secs: f64) -> crate::Result<std::time::Duration> {
    if !(secs.is_finite() && (MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(&secs)) {
        return Err(crate::KcompError::param(
            "timeout",
            format!("must be in [{MIN_TIMEOUT_SECS}, {MAX_TIMEOUT_SECS}] seconds, got {secs}"),
        ));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// What an answer file holds.
#[derive(Debug, Clone, Copy)]
pub enum AnswerSource<'a> {
    /// An LLM answer (Markdown with a code block): each parser extracts its program.
    Answer(&'a str),
    /// An already extracted program (a published `{i}.py`), scored as it is.
    Program(&'a str),
}

/// How one program ran on a record's samples.
#[derive(Debug, Clone)]
struct RunOutcome {
    errors: usize,
    status: AnswerStatus,
    detail: Option<String>,
}

fn run_program(
    code: &str,
    record: &crate::datasets::string_grid::Record,
    cfg: &crate::programs::sandbox::SandboxConfig,
) -> crate::Result<RunOutcome> {
    use crate::programs::sandbox::RunStatus;
    let samples =
        crate::programs::sandbox::check_program(code, &record.input, &record.output, cfg)?;
    let sandbox_error = samples.iter().find_map(|s| s.error.clone());
    let mut errors = samples.iter().filter(|s| !s.correct).count();
    if sandbox_error.is_some() {
        errors = samples.len();
    }
    let status = if sandbox_error.is_some() {
        AnswerStatus::SandboxError
    } else if code.trim().is_empty() {
        AnswerStatus::NoProgram
    } else if samples.iter().any(|s| s.status == RunStatus::Timeout) {
        AnswerStatus::Timeout
    } else if samples.iter().any(|s| s.status == RunStatus::OutputLimit) {
        AnswerStatus::OutputLimit
    } else if samples.iter().any(|s| s.status == RunStatus::Crashed) {
        AnswerStatus::Crashed
    } else {
        AnswerStatus::Ok
    };
    Ok(RunOutcome {
        errors,
        status,
        detail: sandbox_error,
    })
}

/// Extracts, runs (in parallel over samples) and scores one answer for one record with each
/// of `modes`, with the record's own task constants. A program both parsers extract alike
/// runs once.
pub fn evaluate_modes(
    source: AnswerSource,
    record: &crate::datasets::string_grid::Record,
    modes: &[ParserMode],
    cfg: &crate::programs::sandbox::SandboxConfig,
) -> crate::Result<Vec<AnswerEval>> {
    let task = score::TaskSize::of_record(record);
    let mut runs: Vec<(String, RunOutcome)> = Vec::new();
    let mut out = Vec::with_capacity(modes.len());
    for &mode in modes {
        let code = match source {
            AnswerSource::Answer(a) if a.trim().is_empty() => {
                let status = AnswerStatus::EmptyAnswer;
                out.push(AnswerEval {
                    status,
                    scores: Some(unscorable(mode, &task, status.name())),
                    detail: None,
                });
                continue;
            }
            AnswerSource::Answer(a) => extract(a, mode),
            AnswerSource::Program(p) => p.to_string(),
        };
        let run = match runs.iter().find(|(c, _)| *c == code) {
            Some((_, r)) => r.clone(),
            None => {
                let r = run_program(&code, record, cfg)?;
                runs.push((code.clone(), r.clone()));
                r
            }
        };
        let a = match analyse(&code, mode, task.alphabet()) {
            Ok(a) => a,
            Err(e) => {
                let status = AnswerStatus::InternalError;
                out.push(AnswerEval {
                    status,
                    scores: Some(unscorable(mode, &task, status.name())),
                    detail: Some(e),
                });
                continue;
            }
        };
        let hidden = hidden_verdict(&a, &task);
        let flagged = mode == ParserMode::Robust
            && hidden.is_some()
            && run.status != AnswerStatus::SandboxError;
        let errors = if flagged { task.d } else { run.errors };
        let mut scores = score::score(&a.counts, errors, mode, &task);
        let (status, detail) = if flagged {
            (AnswerStatus::HiddenData, hidden.clone())
        } else {
            (run.status, run.detail)
        };
        scores.status = status.name().to_string();
        scores.l_bits = a.l_bits;
        scores.unaccounted_bits = a.unaccounted_bits;
        scores.reference_fooled =
            mode == ParserMode::Reference && hidden.is_some() && scores.norm_c >= FOOLED_C;
        scores.hidden_data = hidden;
        if run.status == AnswerStatus::NoProgram {
            scores.profile = score::PROFILE_NO_PROGRAM.to_string();
        }
        out.push(AnswerEval {
            status,
            scores: Some(scores),
            detail,
        });
    }
    Ok(out)
}

/// Extracts, runs (in parallel over samples) and scores one answer for one record.
pub fn evaluate_answer(
    answer: &str,
    record: &crate::datasets::string_grid::Record,
    mode: ParserMode,
    cfg: &crate::programs::sandbox::SandboxConfig,
) -> crate::Result<AnswerEval> {
    let mut v = evaluate_modes(AnswerSource::Answer(answer), record, &[mode], cfg)?;
    Ok(v.remove(0))
}
