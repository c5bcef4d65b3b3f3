//! `kcomp grid ...`: the mapping-table metric for LLM-written programs. This file only
//! dispatches and prints; the options and the logic live in `datasets::string_grid`,
//! `programs::{mapping_table, reports, ask}`.

use clap::{Args, Subcommand};

use crate::datasets::string_grid::args::{GenerateArgs, PromptArgs};
use crate::io::limits::configure;
use crate::programs::ask::args::AskArgs;
use crate::programs::ask::run_ask;
use crate::programs::mapping_table::args::ScoreArgs;
use crate::programs::reports::args::ReportArgs;
use crate::programs::reports::run_report;

/// Arguments of `kcomp grid`.
#[derive(Debug, Args)]
pub struct GridArgs {
    #[command(subcommand)]
    pub command: GridCommand,
}

/// Subcommands of `kcomp grid` (pipeline: generate -> prompt/ask -> score/report).
#[derive(Debug, Subcommand)]
pub enum GridCommand {
    /// Generate a string-to-grid dataset (JSONL, the published schema).
    #[command(
        after_help = "Examples:\n  kcomp grid generate --compat rgp --setting h -o k=4_u=2_d=16_type=h.jsonl\n  kcomp grid generate --positions 3 --side 3 --setting r -o k=3_u=2_d=8_type=r.jsonl"
    )]
    Generate(GenerateArgs),
    /// Print the prompt for one record.
    #[command(
        after_help = "Examples:\n  kcomp grid prompt --dataset k=4_u=2_d=16_type=h.jsonl --record 0\n  kcomp grid prompt --dataset k=4_u=2_d=16_type=h.jsonl --record 0 --result-query 15"
    )]
    Prompt(PromptArgs),
    /// Send every record's prompt to an OpenAI-compatible chat endpoint and save the answers.
    #[command(
        after_help = "Examples:\n  OPENAI_API_KEY=... kcomp grid ask --dataset k=4_u=2_d=16_type=h.jsonl --base-url https://api.openai.com/v1 --model gpt-4o --temperature 0 --out answers\n  kcomp grid ask ... --result   (the result-generation prompt, for Table 3)\n  kcomp grid ask ... --extra reasoning_effort=high --concurrency 8"
    )]
    Ask(AskArgs),
    /// Score one LLM answer for one record (the evaluator's fields with --json).
    #[command(
        after_help = "Examples:\n  kcomp grid score --dataset k=4_u=2_d=16_type=h.jsonl --record 0 --answer answers/gpt-4o/h/0.txt\n  kcomp grid score ... --parser robust --json"
    )]
    Score(ScoreArgs),
    /// Score a tree of answers and write tables, Markdown and plots.
    #[command(
        after_help = "Answer trees: kcomp's DIR/MODEL/SETTING/<i>.txt (+ <i>.result.txt), SETTING one of h, v, b, r, hr, h-index-shuffle (or h_index-shuffle) or a dataset name k=..._type=...; or the published DIR/result/MODEL/k=4_u=2_d=16_type=<h|v|b|r|hr|h_index-shuffle>/<i>.py|<i>.txt|<i>_info.json with DIR/result_cg8/... .\nOutputs: per_answer.csv (evaluator fields; in_acc = % of samples right, log_norm_c = C(P) on a log scale), summary.csv, table3.csv, groups.csv, parser_differences.csv, stored_differences.csv, report.md.\n\nExamples:\n  kcomp grid report answers\n  kcomp grid report RGP --parser robust --write-published rescored"
    )]
    Report(ReportArgs),
}

/// Runs `kcomp grid`.
pub fn run(args: GridArgs) -> anyhow::Result<()> {
    match args.command {
        GridCommand::Generate(a) => {
            configure(None, a.max_memory)?;
            let text = a.jsonl()?;
            match a.output {
                Some(p) => crate::io::files::write_new_file(&p, text.as_bytes(), a.force)?,
                None => out!("{text}"),
            }
        }
        GridCommand::Prompt(a) => out!("{}", a.text()?),
        GridCommand::Ask(a) => {
            let s = run_ask(&a.options()?)?;
            noteln!("{s}");
            s.check()?;
        }
        GridCommand::Score(a) => {
            let scored = a.score()?;
            match a.json {
                true => outln!("{}", serde_json::to_string(&scored.scores)?),
                false => outln!("{scored}"),
            }
        }
        GridCommand::Report(a) => noteln!("{}", run_report(&a.options()?)?),
    }
    Ok(())
}
