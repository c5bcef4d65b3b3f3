//! `kcomp grid ...`: the mapping-table metric for LLM-written programs. This file only
//! parses and prints; the logic lives in `datasets::string_grid`, `estimators::mapping_table`,
//! `reports` and `ask`.

use crate::ask::{AskOptions, ChatOptions, Layout, PromptKind, run_ask};
use crate::datasets::string_grid::prompt::{PromptStyle, result_prompt, rule_prompt};
use crate::datasets::string_grid::{GridSpec, Setting, load_record};
use crate::error::KcompError;
use crate::estimators::mapping_table::{AnswerStatus, ParserMode, evaluate_answer, sample_timeout};
use crate::reports::{ReportOptions, run_report};
use crate::sandbox::SandboxConfig;
use clap::{Args, Subcommand};
use std::time::Duration;

#[path = "grid_args.rs"]
pub mod args;
pub use args::{AskArgs, GenerateArgs, PromptArgs, ReportArgs, ScoreArgs};

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

fn secs(name: &str, s: f64) -> crate::Result<Duration> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| KcompError::param(name, format!("must be a non-negative number, got {s}")))
}

fn extra_fields(items: &[String]) -> crate::Result<serde_json::Map<String, serde_json::Value>> {
    let mut map = serde_json::Map::new();
    for it in items {
        let (k, v) = it
            .split_once('=')
            .ok_or_else(|| KcompError::param("extra", format!("`{it}` is not KEY=VALUE")))?;
        let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::from(v));
        map.insert(k.to_string(), value);
    }
    Ok(map)
}

/// Runs `kcomp grid`.
pub fn run(args: GridArgs) -> anyhow::Result<()> {
    match args.command {
        GridCommand::Generate(a) => {
            if let Some(bytes) = a.max_memory {
                crate::io::limits::set_max_memory(bytes);
            }
            let setting = Setting::parse(&a.setting)?;
            let spec = GridSpec::from_options(
                a.compat.as_deref(),
                a.positions,
                a.letters,
                a.side,
                a.samples,
                a.non_complementary,
            )?;
            let text = GridSpec::to_jsonl(&spec.generate(setting, a.records, a.seed)?);
            match a.output {
                Some(p) => crate::reports::layout::write_file(&p, &text)?,
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
        GridCommand::Ask(a) => {
            let prompt = match a.result {
                true => PromptKind::Result(a.result_query),
                false => PromptKind::Rule(PromptStyle::parse(&a.style)?),
            };
            let opts = AskOptions {
                dataset: a.dataset,
                records: a.only,
                out: a.out,
                layout: if a.published_layout {
                    Layout::Published
                } else {
                    Layout::Kcomp
                },
                prompt,
                chat: ChatOptions {
                    base_url: a.base_url,
                    model: a.model,
                    api_key_env: a.api_key_env,
                    temperature: a.temperature,
                    max_tokens: a.max_tokens,
                    extra: extra_fields(&a.extra)?,
                    timeout: secs("request-timeout", a.request_timeout)?,
                    retries: a.retries,
                    backoff: secs("backoff", a.backoff)?,
                },
                concurrency: a.concurrency,
            };
            let s = run_ask(&opts)?;
            eprintln!(
                "asked: done {}, skipped {}, failed {}",
                s.done, s.skipped, s.failed
            );
            if s.failed > 0 {
                return Err(KcompError::Other(format!(
                    "{} prompts failed (run again to retry them; answers saved are kept)",
                    s.failed
                ))
                .into());
            }
        }
        GridCommand::Score(a) => {
            let mode = ParserMode::parse(&a.parser)?;
            let record = load_record(&a.dataset, a.record)?;
            let timeout = sample_timeout(a.timeout)?;
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
            let Some(mut s) = eval.scores.clone() else {
                return Err(
                    KcompError::Other(format!("{}: not scored", a.answer.display())).into(),
                );
            };
            s.status = eval.status_text();
            if a.json {
                println!("{}", serde_json::to_string(&s)?);
            } else {
                let clip = s
                    .clip_note()
                    .map(|c| format!(" [clip: {c}]"))
                    .unwrap_or_default();
                let status = match eval.status {
                    AnswerStatus::Ok => String::new(),
                    _ => format!("  [{}]", s.status),
                };
                println!(
                    "C(P) = {:.2}  (L(P) = {}, L(P+) = {}{clip}, E(P) = {} -> penalty {}, n = {}+{}, m = {}+{}, profile {}){status}",
                    s.norm_c,
                    s.l_p,
                    s.l_p_plus,
                    s.errors,
                    s.c_error,
                    s.c_dict_n,
                    s.c_block_n,
                    s.c_dict_m,
                    s.c_block_m,
                    s.profile,
                );
            }
        }
        GridCommand::Report(a) => {
            let opts = ReportOptions {
                dir: a.dir,
                data: a.data,
                parser: ParserMode::parse(&a.parser)?,
                out: a.out,
                timeout: sample_timeout(a.timeout)?,
                alpha: a.alpha,
                result_query: a.result_query,
                plots: !a.no_plots,
                allow_unsandboxed: a.allow_unsandboxed,
                write_published: a.write_published,
            };
            let s = run_report(&opts)?;
            eprintln!(
                "scored {} answers ({} ok; failed, empty or unscorable ones count as the published evaluator scores them) in {:.1} s; stored _info.json differing from kcomp: {} of {}; wrote {}",
                s.answers,
                s.ok,
                s.seconds,
                s.stored_mismatches,
                s.stored,
                s.out.display()
            );
        }
    }
    Ok(())
}

/// Largest answer file scored (an LLM answer is a few kB).
pub const MAX_ANSWER_BYTES: u64 = 16 << 20;
