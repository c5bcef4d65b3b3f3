//! `kcomp grid ...`: the mapping-table metric for LLM-written programs (string-to-grid
//! datasets, prompts, scoring and batch reports).

use crate::datasets::string_grid::prompt::{PromptStyle, result_prompt, rule_prompt};
use crate::datasets::string_grid::{GridSpec, Setting, read_dataset};
use crate::error::KcompError;
use crate::estimators::mapping_table::{AnswerStatus, ParserMode, evaluate_answer};
use crate::sandbox::SandboxConfig;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `kcomp grid`.
#[derive(Debug, Args)]
pub struct GridArgs {
    #[command(subcommand)]
    pub command: GridCommand,
}

/// Subcommands of `kcomp grid`.
#[derive(Debug, Subcommand)]
pub enum GridCommand {
    /// Generate a string-to-grid dataset (JSONL, the published schema).
    Generate(GenerateArgs),
    /// Print the prompt for one record.
    Prompt(PromptArgs),
    /// Score one LLM answer for one record.
    Score(ScoreArgs),
    /// Score a tree MODEL/SETTING/<record>.txt of answers and write CSV, Markdown and plots.
    Report(crate::reports::ReportArgs),
}

/// `kcomp grid generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Setting: h, v, b, r, hr or h-index-shuffle.
    #[arg(long, default_value = "h")]
    pub setting: String,
    /// Number of records (datasets/functions).
    #[arg(long, default_value_t = 30)]
    pub records: usize,
    /// Seed of Python's `random.seed` (once per file).
    #[arg(long, default_value_t = 0)]
    pub seed: i64,
    /// `rgp`: the published shape (k=4, u=2, 4x4 grid, d=16, complementary patterns); the
    /// shape options below are then ignored.
    #[arg(long)]
    pub compat: Option<String>,
    /// Input positions (k).
    #[arg(long, default_value_t = 4)]
    pub positions: usize,
    /// Letters per position (u).
    #[arg(long, default_value_t = 2)]
    pub letters: usize,
    /// Grid side (the grid is side x side).
    #[arg(long, default_value_t = 4)]
    pub side: usize,
    /// Samples per record (d); default all letters^positions.
    #[arg(long)]
    pub samples: Option<usize>,
    /// Draw every letter's pattern independently (default for letters != 2).
    #[arg(long)]
    pub non_complementary: bool,
    /// Output file (default: stdout).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

/// `kcomp grid prompt`.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// Dataset JSONL file.
    #[arg(long)]
    pub dataset: PathBuf,
    /// Record index (0-based line number).
    #[arg(long)]
    pub record: usize,
    /// `published` (the paper's prompt) or `stdin` (also states the I/O contract).
    #[arg(long, default_value = "published")]
    pub style: String,
    /// Print Section 5.2's result-generation prompt (8 samples + this query index) instead.
    #[arg(long)]
    pub result_query: Option<usize>,
}

/// `kcomp grid score`.
#[derive(Debug, Args)]
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
    /// `reference` (the published evaluator) or `robust`.
    #[arg(long, default_value = "reference")]
    pub parser: String,
    /// Print the JSON record.
    #[arg(long)]
    pub json: bool,
    /// Wall-clock limit per sample run, in seconds.
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub timeout: f64,
    /// UNSAFE: when the OS sandbox (namespaces, Landlock, seccomp) is unavailable, run the
    /// program anyway with rlimits only; it can then read and write your files.
    #[arg(long)]
    pub allow_unsandboxed: bool,
}

/// Shortest per-sample timeout: below it even a correct program's interpreter start-up fails.
pub const MIN_TIMEOUT_SECS: f64 = 0.1;
/// Longest per-sample timeout.
pub const MAX_TIMEOUT_SECS: f64 = 600.0;

/// Largest answer file scored (an LLM answer is a few kB).
pub const MAX_ANSWER_BYTES: u64 = 16 << 20;

/// Checks a timeout value in seconds.
pub fn timeout_of(secs: f64) -> crate::Result<Duration> {
    if !(secs.is_finite() && (MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(&secs)) {
        return Err(KcompError::param(
            "timeout",
            format!("must be in [{MIN_TIMEOUT_SECS}, {MAX_TIMEOUT_SECS}] seconds, got {secs}"),
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Checks that `path` is an existing directory.
fn existing_dir(name: &str, path: &std::path::Path) -> crate::Result<()> {
    if !path.is_dir() {
        return Err(KcompError::param(
            name,
            format!("{} is not an existing directory", path.display()),
        ));
    }
    Ok(())
}

/// Loads record `index` of a dataset with a clear error.
pub fn load_record(
    path: &std::path::Path,
    index: usize,
) -> crate::Result<crate::datasets::string_grid::Record> {
    let mut records = read_dataset(path)?;
    let n = records.len();
    if index >= n {
        return Err(KcompError::file(
            path,
            format!("record {index} does not exist (the file has {n} records, 0-based)"),
        ));
    }
    Ok(records.swap_remove(index))
}

/// Runs `kcomp grid`.
pub fn run(args: GridArgs) -> anyhow::Result<()> {
    match args.command {
        GridCommand::Generate(a) => {
            if let Some(bytes) = a.max_memory {
                crate::io::limits::set_max_memory(bytes);
            }
            let setting = Setting::parse(&a.setting)?;
            let spec = match a.compat.as_deref() {
                Some("rgp") => {
                    let d = GridSpec::default();
                    if a.positions != d.positions
                        || a.letters != d.letters
                        || a.side != d.side
                        || a.samples.is_some()
                        || a.non_complementary
                    {
                        return Err(KcompError::param(
                            "compat",
                            "--compat rgp fixes the shape: drop --positions, --letters, --side, \
                             --samples and --non-complementary",
                        )
                        .into());
                    }
                    d
                }
                Some(other) => {
                    return Err(KcompError::param(
                        "compat",
                        format!("unknown `{other}` (expected rgp)"),
                    )
                    .into());
                }
                None => {
                    let total = a
                        .letters
                        .checked_pow(a.positions as u32)
                        .unwrap_or(usize::MAX);
                    GridSpec {
                        positions: a.positions,
                        letters: a.letters,
                        side: a.side,
                        samples: a.samples.unwrap_or(total),
                        complementary: !a.non_complementary && a.letters == 2,
                    }
                }
            };
            let records = spec.generate(setting, a.records, a.seed)?;
            let text = GridSpec::to_jsonl(&records);
            match a.output {
                Some(p) => {
                    std::fs::write(&p, text).map_err(|e| KcompError::file(&p, e.to_string()))?
                }
                None => print!("{text}"),
            }
        }
        GridCommand::Prompt(a) => {
            let record = load_record(&a.dataset, a.record)?;
            let text = match a.result_query {
                Some(q) => result_prompt(&record, q)?,
                None => rule_prompt(&record, PromptStyle::parse(&a.style)?),
            };
            print!("{text}");
        }
        GridCommand::Score(a) => {
            let mode = ParserMode::parse(&a.parser)?;
            let record = load_record(&a.dataset, a.record)?;
            let timeout = timeout_of(a.timeout)?;
            let answer = crate::io::limits::read_capped(&a.answer, MAX_ANSWER_BYTES)?;
            let answer = String::from_utf8_lossy(&answer);
            if answer.trim().is_empty() {
                return Err(KcompError::file(&a.answer, "the answer is empty").into());
            }
            let cfg = SandboxConfig {
                timeout,
                allow_unsandboxed: a.allow_unsandboxed,
                ..SandboxConfig::default()
            };
            let eval = evaluate_answer(&answer, &record, mode, &cfg)?;
            let Some(s) = eval.scores.clone() else {
                return Err(KcompError::Other(format!(
                    "{}: not scored ({})",
                    a.answer.display(),
                    eval.status_text()
                ))
                .into());
            };
            if a.json {
                println!("{}", serde_json::to_string(&s)?);
            } else {
                println!(
                    "C(P) = {:.2}  (L(P) = {}, L(P+) = {}, E(P) = {}, n = {}+{}, m = {}+{}, profile {}){}",
                    s.norm_c,
                    s.c_length,
                    s.l_plus,
                    s.c_error,
                    s.c_dict_n,
                    s.c_block_n,
                    s.c_dict_m,
                    s.c_block_m,
                    s.profile,
                    if eval.status == AnswerStatus::Ok {
                        String::new()
                    } else {
                        format!("  [{}]", eval.status_text())
                    }
                );
            }
        }
        GridCommand::Report(a) => {
            existing_dir("dir", &a.dir)?;
            if let Some(data) = &a.data {
                existing_dir("data", data)?;
            }
            crate::reports::run_report(a)?
        }
    }
    Ok(())
}
