//! `kcomp commongen`: Ordered CommonGen (Sakai, Kamigaito, Watanabe, ACL 2025, arXiv
//! 2506.15629): the prompts, asking a chat endpoint, and scoring the outputs. This file only
//! parses and prints; the logic lives in `generalisation::ordered_commongen`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::generalisation::ordered_commongen::{ask, data, report, score};
use crate::programs::ask::args::ChatArgs;

/// Ordered CommonGen: prompts, ask, score.
#[derive(Debug, Args)]
pub struct CommongenArgs {
    #[command(subcommand)]
    pub command: CommongenCommand,
}

/// Which prompts (default: all 192 sets x 24 orders x 6 templates = 27,648).
#[derive(Debug, Args)]
pub struct Selection {
    /// Only these concept sets (0..191), e.g. 0,5,7.
    #[arg(long, value_delimiter = ',')]
    pub sets: Option<Vec<usize>>,
    /// Only these templates (0..5), e.g. 0.
    #[arg(long, value_delimiter = ',')]
    pub templates: Option<Vec<usize>>,
}

impl Selection {
    fn prompts(&self) -> crate::error::Result<Vec<data::Prompt>> {
        data::prompts(self.sets.as_deref(), self.templates.as_deref())
    }
}

/// `kcomp commongen` subcommands.
#[derive(Debug, Subcommand)]
pub enum CommongenCommand {
    /// Write the prompts as JSON lines.
    ///
    /// One object per prompt: id, set, commongen_id, order, template, concepts (in the
    /// specified order), pattern (POS, e.g. VNNV), prompt.
    #[command(
        after_help = "Examples:\n  kcomp commongen prompts --out data/commongen-prompts.jsonl\n  kcomp commongen prompts --sets 0 --templates 0"
    )]
    Prompts {
        #[command(flatten)]
        selection: Selection,
        /// Output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace an output file that holds something else.
        #[arg(long)]
        force: bool,
    },
    /// Send the prompts to an OpenAI-compatible chat endpoint and save the answers.
    ///
    /// Answers go to OUT/MODEL/tT/<prompt id>.txt with the raw response beside each;
    /// existing answers are skipped (run again to resume).
    #[command(
        after_help = "Examples:\n  OPENAI_API_KEY=... kcomp commongen ask --base-url https://api.openai.com/v1 --model gpt-4o --temperature 0 --out answers\n  kcomp commongen ask --base-url http://127.0.0.1:8000/v1 --no-auth --model local --sets 0 --templates 0 --out answers"
    )]
    Ask {
        #[command(flatten)]
        chat: ChatArgs,
        #[command(flatten)]
        selection: Selection,
        /// Answer tree root.
        #[arg(long)]
        out: PathBuf,
    },
    /// Score outputs: coverage, ordered coverage, ordered rate, diversity, POS patterns.
    ///
    /// OUTPUTS is a folder written by `ask` (the folder names are the models) or a JSONL
    /// file with model, output and id, or set, template and order or concepts. Writes
    /// summary.csv, templates.csv, pos_patterns.csv, diversity.csv, per_output.csv,
    /// scores.json, report.md and coverage_by_pattern.{png,svg}.
    #[command(
        after_help = "Examples:\n  kcomp commongen score answers --out results/commongen\n  kcomp commongen score tests/data/ordered_commongen/outputs.jsonl --out results/commongen-fixture"
    )]
    Score {
        /// The outputs: a folder of answers or a JSONL file.
        outputs: PathBuf,
        /// Output folder of the report.
        #[arg(long)]
        out: PathBuf,
        /// Write into --out even if it holds other files.
        #[arg(long)]
        force: bool,
    },
}

/// Runs `kcomp commongen`.
pub fn run(args: CommongenArgs) -> anyhow::Result<()> {
    match args.command {
        CommongenCommand::Prompts {
            selection,
            out,
            force,
        } => {
            let prompts = selection.prompts()?;
            let text = data::prompts_jsonl(&prompts);
            match out {
                Some(p) => {
                    crate::io::files::write_new_file(&p, text.as_bytes(), force)?;
                    noteln!("wrote {} prompts to {}", prompts.len(), p.display());
                }
                None => out!("{text}"),
            }
        }
        CommongenCommand::Ask {
            chat,
            selection,
            out,
        } => {
            let prompts = selection.prompts()?;
            let s = ask::ask(&chat.options()?, &prompts, &out, chat.concurrency)?;
            noteln!("{s}");
            s.check()?;
        }
        CommongenCommand::Score {
            outputs,
            out,
            force,
        } => {
            let sets = data::concept_sets();
            let read = score::read_outputs(&outputs, &sets)?;
            // The folder is locked before the scoring: a second run on it stops at once
            // instead of writing its report while this one scores (the report claims it).
            let _lock = crate::io::files::lock_dir(&out)?;
            let scores = score::score_outputs(&read, &sets, &data::Lexicon::builtin())?;
            out!("{scores}");
            for p in report::write_report(&scores, &outputs, &out, force)?.files {
                outln!("wrote {}", p.display());
            }
        }
    }
    Ok(())
}
