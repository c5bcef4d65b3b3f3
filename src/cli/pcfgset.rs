//! `kcomp pcfgset`: the PCFG SET interpreter, its check against the published files, and the
//! scoring of a model's predictions for the five tests (Hupkes, Dankers, Mul, Bruni,
//! "Compositionality decomposed: how do neural networks generalise?", JAIR 2020).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::error::KcompError;
use crate::generalisation::pcfgset::check::check_folder;
use crate::generalisation::pcfgset::evaluate::{evaluate_folder, overgeneralisation_figure};
use crate::generalisation::pcfgset::generator::{GeneratorParams, write_splits};
use crate::generalisation::pcfgset::interpreter::{
    DEFAULT_MAX_OUTPUT, Semantics, evaluate_sequence,
};
use crate::generalisation::pcfgset::rules::{RuleStyle, RuleTaskArgs, score};
use crate::io::table::write_csv;

/// PCFG SET: interpreter, checks and the five tests' scores.
#[derive(Debug, Args)]
pub struct PcfgsetArgs {
    #[command(subcommand)]
    pub command: PcfgsetCommand,
}

/// `kcomp pcfgset` subcommands.
#[derive(Debug, Subcommand)]
pub enum PcfgsetCommand {
    /// Interpret one input sequence and print its meaning.
    ///
    /// Example: kcomp pcfgset run append swap_first_last F G H , repeat I J
    Run {
        /// The input sequence (tokens separated by spaces; one argument or several).
        #[arg(required = true, num_args = 1..)]
        sequence: Vec<String>,
        /// Use the overgeneralisation test's exceptions (the paper's Table 2).
        #[arg(long)]
        exceptions: bool,
    },
    /// Check the interpreter against every published file present in a folder of the
    /// `data/pcfgset/` layout (i-machine-think/am-i-compositional); exit status 2 if any
    /// target is not reproduced.
    Check {
        /// The `data/pcfgset` folder, or the repository root holding it.
        #[arg(long)]
        data: PathBuf,
    },
    /// Generate seeded PCFG SET-style data (the published grammar parameters) and the five
    /// tests' splits in the published layout; `kcomp pcfgset check --data OUT` verifies it.
    ///
    /// Example: kcomp pcfgset generate --samples 2000 --seed 1 --out data/pcfgset-gen
    Generate {
        #[command(flatten)]
        params: GeneratorParams,
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
        /// Write into an output folder that holds another run's files.
        #[arg(long)]
        force: bool,
    },
    /// Print a rule-generation prompt (Xu et al., ACL 2026) showing a sample of PCFG SET
    /// pairs; --dataset also writes them as a record `kcomp grid ask --style published` reads.
    ///
    /// Example: kcomp pcfgset prompt --n 50 --seed 1
    Prompt {
        #[command(flatten)]
        task: RuleTaskArgs,
        /// Prompt wording: published (Xu et al.'s, verbatim) or stdin (states the I/O
        /// contract).
        #[arg(long, value_enum, default_value_t = RuleStyle::Published)]
        style: RuleStyle,
        /// Also write the shown pairs as a one-record JSONL dataset here.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Replace a --dataset file that holds something else.
        #[arg(long)]
        force: bool,
    },
    /// Score an LLM's answer to `pcfgset prompt`: the program (run in the sandbox) on the
    /// shown and the held-out pairs, and its length in bits (l_bits). Give the same --n,
    /// --held-out and --seed as the prompt.
    ///
    /// Example: kcomp pcfgset score --answer answers/model/0.txt --n 50 --seed 1
    Score {
        /// The answer file (text holding a ```python block).
        #[arg(long)]
        answer: PathBuf,
        #[command(flatten)]
        task: RuleTaskArgs,
        /// Wall-clock limit per run, in seconds.
        #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
        timeout: f64,
        /// UNSAFE: run without the OS sandbox (rlimits only) when it is unavailable.
        #[arg(long)]
        allow_unsandboxed: bool,
        /// Print the score as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Score model predictions of the published `model_predictions/<model>/<test>/` layout:
    /// task accuracy, systematicity (overall and per held-out pair), productivity,
    /// substitutivity consistency, localism consistency and overgeneralisation peaks, with
    /// the paper's values beside them.
    Evaluate {
        /// The `model_predictions` folder, or the repository root holding it.
        #[arg(long)]
        predictions: PathBuf,
        /// Also write scores.csv, overgeneralisation_curves.csv and the overgeneralisation
        /// figure (overgeneralisation.{png,svg}) into this folder.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write into an --out folder that holds another run's files.
        #[arg(long)]
        force: bool,
    },
}

/// Largest answer read (an LLM answer is a few kB).
const MAX_ANSWER_BYTES: u64 = 4 << 20;

/// Runs `kcomp pcfgset`.
pub fn run(args: PcfgsetArgs) -> anyhow::Result<()> {
    match args.command {
        PcfgsetCommand::Run {
            sequence,
            exceptions,
        } => {
            let semantics = if exceptions {
                Semantics::Exceptions
            } else {
                Semantics::Standard
            };
            let sequence = sequence.join(" ");
            let out = evaluate_sequence(&sequence, semantics, DEFAULT_MAX_OUTPUT)
                .map_err(|e| KcompError::param("sequence", e.to_string()))?;
            outln!("{}", out.join(" "));
        }
        PcfgsetCommand::Check { data } => {
            let report = check_folder(&data)?;
            out!("{report}");
            if let Some(e) = report.failure() {
                return Err(e.into());
            }
        }
        PcfgsetCommand::Generate { params, out, force } => {
            let stamp = serde_json::json!({
                "command": "pcfgset generate",
                "settings": format!("{params:?}"),
            });
            params.validate()?;
            let _lock = crate::io::out_dir::claim_locked(&out, &stamp, force)?;
            let summary = write_splits(&params, &out)?;
            for (stem, n) in summary.lines {
                outln!("{stem:<60} {n:>8} lines");
            }
        }
        PcfgsetCommand::Prompt {
            task,
            style,
            dataset,
            force,
        } => {
            let task = task.task()?;
            if let Some(path) = dataset {
                crate::io::files::write_new_file(&path, task.dataset_jsonl().as_bytes(), force)?;
                noteln!("wrote {}", path.display());
            }
            out!("{}", task.prompt(style));
        }
        PcfgsetCommand::Score {
            answer,
            task,
            timeout,
            allow_unsandboxed,
            json,
        } => {
            let timeout = crate::programs::mapping_table::sample_timeout(timeout)?;
            let text = crate::io::limits::read_capped(&answer, MAX_ANSWER_BYTES)?;
            let text = String::from_utf8_lossy(&text);
            let cfg = crate::programs::sandbox::SandboxConfig {
                timeout,
                allow_unsandboxed,
                ..Default::default()
            };
            let s = score(&text, &task.task()?, &cfg)?;
            if json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&s)
                        .map_err(|e| KcompError::Other(e.to_string()))?
                );
            } else {
                out!("{s}");
            }
        }
        PcfgsetCommand::Evaluate {
            predictions,
            out,
            force,
        } => {
            if let Some(out) = &out {
                // Checked before the scoring, so a refused folder costs nothing.
                crate::io::out_dir::check(out, &evaluate_stamp(&predictions), force)?;
            }
            let report = evaluate_folder(&predictions)?;
            out!("{report}");
            if let Some(out) = out {
                let _lock =
                    crate::io::out_dir::claim_locked(&out, &evaluate_stamp(&predictions), force)?;
                write_csv(&out.join("scores.csv"), &report.rows)?;
                write_csv(&out.join("overgeneralisation_curves.csv"), &report.curves)?;
                outln!("wrote {}", out.join("scores.csv").display());
                if let Some(paths) =
                    overgeneralisation_figure(&report, &out.join("overgeneralisation"))?
                {
                    for p in paths {
                        outln!("wrote {}", p.display());
                    }
                }
            }
        }
    }
    Ok(())
}

/// The stamp of a `pcfgset evaluate --out` folder: the predictions it scored.
fn evaluate_stamp(predictions: &std::path::Path) -> serde_json::Value {
    serde_json::json!({
        "command": "pcfgset evaluate",
        "predictions": predictions.display().to_string(),
    })
}
