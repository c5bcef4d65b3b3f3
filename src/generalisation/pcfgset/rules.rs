//! The rule-generation perspective on PCFG SET (Xu, Wang, Wang, ACL 2026, applied to Hupkes et
//! al.'s task): an LLM is shown a sample of PCFG SET pairs and asked for a program; the program
//! is scored by its errors on the shown pairs and on held-out pairs (a memoriser fails the
//! latter) and by its description length in bits (`l_bits`, the programs pipeline's token-stream
//! code, src/programs/mapping_table/lbits.rs). Programs run only in the sandbox.
//!
//! The task is a function of (`n`, `held_out`, `seed`): the shown pairs are `n` naturalised
//! samples drawn with `seed`, the held-out pairs `held_out` naturalised samples drawn with a
//! seed derived from it (sources equal to a shown one are skipped), so `prompt` and `score`
//! rebuild the same pairs from the same three numbers.

use serde::Serialize;

pub use super::complexity::{REFERENCE_PROGRAM, REFERENCE_PROGRAM_BITS};
use super::generator::{GeneratorParams, Sample, generate};
use crate::datasets::string_grid::Record;
use crate::datasets::string_grid::json::py_json_str_list;
use crate::datasets::string_grid::prompt::{PromptStyle, rule_prompt};
use crate::error::{KcompError, Result};
use crate::programs::mapping_table::lbits::l_bits;
use crate::programs::mapping_table::{ParserMode, extract};
use crate::programs::sandbox::{RunStatus, SandboxConfig, check_program};

/// Which samples: `n` shown, `held_out` held out, from `seed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct RuleTaskArgs {
    /// Pairs shown in the prompt.
    #[arg(long, default_value_t = 50)]
    pub n: usize,
    /// Held-out pairs the program is also run on (never shown).
    #[arg(long, default_value_t = 100)]
    pub held_out: usize,
    /// Seed of the pairs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The shown and held-out pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleTask {
    pub shown: Vec<Sample>,
    pub held_out: Vec<Sample>,
}

/// Offset of the held-out pairs' seed (any fixed odd constant).
const HELD_OUT_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

impl RuleTaskArgs {
    /// Builds the pairs.
    pub fn task(&self) -> Result<RuleTask> {
        if !(1..=10_000).contains(&self.n) {
            return Err(KcompError::param("n", "must be in 1..=10000"));
        }
        if !(1..=100_000).contains(&self.held_out) {
            return Err(KcompError::param("held-out", "must be in 1..=100000"));
        }
        let params = |samples, seed| GeneratorParams {
            samples,
            seed,
            naturalise: true,
            ..Default::default()
        };
        let shown = generate(&params(self.n, self.seed))?;
        let seen: std::collections::HashSet<&Vec<String>> =
            shown.iter().map(|s| &s.source).collect();
        let held_out: Vec<Sample> =
            generate(&params(self.held_out + self.n, self.seed ^ HELD_OUT_SEED))?
                .into_iter()
                .filter(|s| !seen.contains(&s.source))
                .take(self.held_out)
                .collect();
        Ok(RuleTask { shown, held_out })
    }
}

fn record(samples: &[Sample]) -> Record {
    Record {
        input: samples.iter().map(|s| s.source.join(" ")).collect(),
        output: samples.iter().map(|s| s.target.join(" ")).collect(),
    }
}

/// Prompt wordings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RuleStyle {
    /// The published rule-generation prompt of Xu et al. verbatim, with the pairs as their
    /// `generate_prompt` writes samples (what `kcomp grid ask --style published` sends).
    #[default]
    Published,
    /// kcomp's wording: also states the stdin/stdout contract the scoring relies on.
    Stdin,
}

impl RuleTask {
    /// The rule-generation prompt of the shown pairs.
    pub fn prompt(&self, style: RuleStyle) -> String {
        let rec = record(&self.shown);
        match style {
            RuleStyle::Published => rule_prompt(&rec, PromptStyle::Published),
            RuleStyle::Stdin => {
                let mut p = String::from(
                    "Each input below is a sequence of tokens separated by spaces: function \
                     names and letter tokens (a capital letter and a number), with \",\" \
                     between the two arguments of some functions; each output is a sequence of \
                     letter tokens. Observe all the samples and write a Python program that \
                     describes the rule generating the output from the input.\n\n",
                );
                for (i, (x, y)) in rec.input.iter().zip(&rec.output).enumerate() {
                    p.push_str(&format!("Sample {}\nInput: {x}\nOutput: {y}\n\n", i + 1));
                }
                p.push_str(&format!(
                    "Write the program in a single ```python code block. It must read one input \
                     line (e.g. \"{}\") from standard input and print the output tokens on one \
                     line, separated by single spaces, with nothing else printed. Do not \
                     hard-code the samples if a more general rule describes them.\n",
                    rec.input[0]
                ));
                p
            }
        }
    }

    /// The shown pairs as one record of the string-grid dataset format (`{"input": [...],
    /// "output": [...]}` and a newline), which `kcomp grid ask --style published` reads.
    pub fn dataset_jsonl(&self) -> String {
        let rec = record(&self.shown);
        format!(
            "{{\"input\": {}, \"output\": {}}}\n",
            py_json_str_list(&rec.input),
            py_json_str_list(&rec.output)
        )
    }
}

/// The score of one answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleScore {
    /// `ok`, `empty_answer` (no program: every pair counts as an error) or `sandbox_error`.
    pub status: String,
    pub shown: usize,
    pub shown_errors: usize,
    pub held_out: usize,
    pub held_out_errors: usize,
    /// Held-out pairs right, as a fraction.
    pub held_out_accuracy: f64,
    /// Runs stopped at the time limit (counted as errors).
    pub timeouts: usize,
    /// Description length of the extracted program in bits (0 for an empty answer).
    pub l_bits: f64,
    /// `l_bits` of kcomp's reference interpreter, for comparison.
    pub reference_l_bits: f64,
}

impl std::fmt::Display for RuleScore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "status            {}", self.status)?;
        writeln!(
            f,
            "shown errors      {} of {}",
            self.shown_errors, self.shown
        )?;
        writeln!(
            f,
            "held-out errors   {} of {} (accuracy {:.4})",
            self.held_out_errors, self.held_out, self.held_out_accuracy
        )?;
        writeln!(f, "timeouts          {}", self.timeouts)?;
        writeln!(f, "l_bits            {:.2}", self.l_bits)?;
        writeln!(f, "reference l_bits  {:.2}", self.reference_l_bits)
    }
}

/// Extracts the program of an answer (the robust rules: the last fenced block that reads
/// stdin) and runs it in the sandbox on every shown and held-out pair; a pair is right when
/// the stripped stdout equals the target.
pub fn score(answer: &str, task: &RuleTask, cfg: &SandboxConfig) -> Result<RuleScore> {
    let (ns, nh) = (task.shown.len(), task.held_out.len());
    let code = extract(answer, ParserMode::Robust);
    if code.trim().is_empty() {
        return Ok(RuleScore {
            status: "empty_answer".into(),
            shown: ns,
            shown_errors: ns,
            held_out: nh,
            held_out_errors: nh,
            held_out_accuracy: 0.0,
            timeouts: 0,
            l_bits: 0.0,
            reference_l_bits: REFERENCE_PROGRAM_BITS,
        });
    }
    let all: Vec<&Sample> = task.shown.iter().chain(&task.held_out).collect();
    let inputs: Vec<String> = all.iter().map(|s| s.source.join(" ") + "\n").collect();
    let golds: Vec<String> = all.iter().map(|s| s.target.join(" ")).collect();
    let results = check_program(&code, &inputs, &golds, cfg)?;
    let wrong =
        |r: &[crate::programs::sandbox::SampleResult]| r.iter().filter(|x| !x.correct).count();
    let sandbox_errors = results
        .iter()
        .filter(|r| r.status == RunStatus::SandboxError)
        .count();
    let held_out_errors = wrong(&results[ns..]);
    Ok(RuleScore {
        status: if sandbox_errors > 0 {
            "sandbox_error".into()
        } else {
            "ok".into()
        },
        shown: ns,
        shown_errors: wrong(&results[..ns]),
        held_out: nh,
        held_out_errors,
        held_out_accuracy: (nh - held_out_errors) as f64 / nh as f64,
        timeouts: results
            .iter()
            .filter(|r| r.status == RunStatus::Timeout)
            .count(),
        l_bits: l_bits(&code),
        reference_l_bits: REFERENCE_PROGRAM_BITS,
    })
}
