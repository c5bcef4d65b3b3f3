//! The command-line options of `kcomp grid report` (clap derives them here) and their checked
//! form, [`ReportOptions`].

use std::fmt;
use std::path::PathBuf;

use super::{ReportOptions, ReportSummary};
use crate::error::Result;
use crate::programs::mapping_table::{ParserMode, sample_timeout};

/// `kcomp grid report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Answer tree (kcomp's or the published layout, see below).
    pub dir: PathBuf,
    /// Folder with the datasets <name>.jsonl (default: the six published ones, rebuilt).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// `reference` (default: the published evaluator, numbers comparable with Xu et al.) or
    /// `robust` (every literal the program runs; hidden data flagged); both are computed for
    /// parser_differences.csv, and the tables and figures name the selected one.
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
    /// Write into an output folder that holds another run's files.
    #[arg(long)]
    pub force: bool,
}

impl ReportArgs {
    /// The checked options.
    pub fn options(self) -> Result<ReportOptions> {
        Ok(ReportOptions {
            dir: self.dir,
            data: self.data,
            parser: ParserMode::parse(&self.parser)?,
            out: self.out,
            timeout: sample_timeout(self.timeout)?,
            alpha: self.alpha,
            result_query: self.result_query,
            plots: !self.no_plots,
            allow_unsandboxed: self.allow_unsandboxed,
            write_published: self.write_published,
            force: self.force,
        })
    }
}

impl fmt::Display for ReportSummary {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "scored {} answers ({} ok; failed, empty or unscorable ones count as the published evaluator scores them) in {:.1} s; stored _info.json differing from kcomp: {} of {}; wrote {}",
            self.answers,
            self.ok,
            self.seconds,
            self.stored_mismatches,
            self.stored,
            self.out.display()
        )
    }
}
