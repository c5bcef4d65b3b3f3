//! Arguments of `kcomp grid` subcommands (clap only; see `grid.rs` for what they run).

use std::path::PathBuf;

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
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
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

/// `kcomp grid ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// Dataset JSONL file (its name, e.g. k=4_u=2_d=16_type=h, names the answer folder).
    #[arg(long)]
    pub dataset: PathBuf,
    /// API base URL; `/chat/completions` is appended.
    #[arg(long)]
    pub base_url: String,
    /// Model name sent to the endpoint (also the answer folder).
    #[arg(long)]
    pub model: String,
    /// Environment variable holding the API key (never written or logged).
    #[arg(long, default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// Answer tree root (kcomp layout MODEL/SETTING/<i>.txt unless --published-layout).
    #[arg(long)]
    pub out: PathBuf,
    /// Write result/MODEL/DATASET/<i>.txt (and result_cg8/...) as the published code.
    #[arg(long)]
    pub published_layout: bool,
    /// Rule prompt style: published or stdin.
    #[arg(long, default_value = "published")]
    pub style: String,
    /// Send the result-generation prompt (Table 3) instead of the rule prompt.
    #[arg(long)]
    pub result: bool,
    /// Query index of the result prompt (default: the last sample, as published).
    #[arg(long)]
    pub result_query: Option<usize>,
    /// Only these records (0-based), e.g. 0,3,5 (default all).
    #[arg(long, value_delimiter = ',')]
    pub only: Option<Vec<usize>>,
    /// Sampling temperature (omitted when not given; reasoning models often refuse it).
    #[arg(long, allow_hyphen_values = true)]
    pub temperature: Option<f64>,
    /// max_tokens of the request (omitted when not given).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// Extra request field KEY=VALUE (VALUE as JSON, else a string); repeatable.
    #[arg(long = "extra", value_name = "KEY=VALUE")]
    pub extra: Vec<String>,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Retries on 429, 5xx, timeouts and connection errors.
    #[arg(long, default_value_t = 5)]
    pub retries: u32,
    /// First retry delay in seconds (doubled each retry; Retry-After wins).
    #[arg(long, default_value_t = 2.0)]
    pub backoff: f64,
    /// Timeout of one request in seconds.
    #[arg(long, default_value_t = 600.0)]
    pub request_timeout: f64,
}

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
    /// `reference` (the published evaluator) or `robust`.
    #[arg(long, default_value = "reference")]
    pub parser: String,
    /// Print the JSON record: the evaluator's fields (c_error = (N+M) E(P), c = L(P), in_acc =
    /// % of samples right, log_norm_c = C(P) on a log scale), then errors, l_p_plus, l_p,
    /// profile, status.
    #[arg(long)]
    pub json: bool,
    /// Wall-clock limit per sample run, in seconds.
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub timeout: f64,
    /// UNSAFE: run without the OS sandbox (rlimits only) when it is unavailable.
    #[arg(long)]
    pub allow_unsandboxed: bool,
}

/// `kcomp grid report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Answer tree (kcomp's or the published layout, see below).
    pub dir: PathBuf,
    /// Folder with the datasets <name>.jsonl (default: the six published ones, rebuilt).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// `reference` or `robust` (both are computed for parser_differences.csv).
    #[arg(long, default_value = "reference")]
    pub parser: String,
    /// Output folder (default DIR/report).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Wall-clock limit per sample run, in seconds.
    #[arg(long, default_value_t = 5.0)]
    pub timeout: f64,
    /// Significance level of the Mann-Whitney groupings.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Result-generation query index (default: the last sample, as published).
    #[arg(long)]
    pub result_query: Option<usize>,
    /// Skip the PNG plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Also write the scored tree in the published layout to this folder.
    #[arg(long)]
    pub write_published: Option<PathBuf>,
    /// UNSAFE: run without the OS sandbox (rlimits only) when it is unavailable.
    #[arg(long)]
    pub allow_unsandboxed: bool,
}
