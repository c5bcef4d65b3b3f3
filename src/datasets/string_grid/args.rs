//! The command-line options of `kcomp grid generate` and `kcomp grid prompt` (clap derives
//! them here, beside what they configure) and what each produces.

use std::path::PathBuf;

use super::prompt::{PromptStyle, result_prompt, rule_prompt};
use super::{GridSpec, Setting, load_record};
use crate::error::Result;

/// `kcomp grid generate`.
#[derive(Debug, clap::Args)]
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
    /// `rgp`: the published shape (k=4, u=2, 4x4 grid, d=16); fixes the shape options.
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
    /// Replace an output file that holds something else.
    #[arg(long)]
    pub force: bool,
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::io::limits::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

impl GenerateArgs {
    /// The generated dataset as JSONL (the published schema).
    pub fn jsonl(&self) -> Result<String> {
        let setting = Setting::parse(&self.setting)?;
        let spec = GridSpec::from_options(
            self.compat.as_deref(),
            self.positions,
            self.letters,
            self.side,
            self.samples,
            self.non_complementary,
        )?;
        Ok(GridSpec::to_jsonl(&spec.generate(
            setting,
            self.records,
            self.seed,
        )?))
    }
}

/// `kcomp grid prompt`.
#[derive(Debug, clap::Args)]
pub struct PromptArgs {
    /// Dataset JSONL file.
    #[arg(long)]
    pub dataset: PathBuf,
    /// Record index (0-based line number).
    #[arg(long)]
    pub record: usize,
    /// `published` (the paper's prompt, verbatim) or `stdin` (also states the I/O contract).
    #[arg(long, default_value = "published")]
    pub style: String,
    /// Print the result-generation prompt (8 samples + this query index) instead.
    #[arg(long)]
    pub result_query: Option<usize>,
}

impl PromptArgs {
    /// The prompt text.
    pub fn text(&self) -> Result<String> {
        let record = load_record(&self.dataset, self.record)?;
        match self.result_query {
            Some(q) => result_prompt(&record, q),
            None => Ok(rule_prompt(&record, PromptStyle::parse(&self.style)?)),
        }
    }
}
