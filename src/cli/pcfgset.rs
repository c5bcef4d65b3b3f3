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
    },
}

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
            println!("{}", out.join(" "));
        }
        PcfgsetCommand::Check { data } => {
            let report = check_folder(&data)?;
            print!("{report}");
            if !report.ok() {
                return Err(KcompError::file(&data, "some targets are not reproduced").into());
            }
        }
        PcfgsetCommand::Generate { params, out } => {
            let summary = write_splits(&params, &out)?;
            for (stem, n) in summary.lines {
                println!("{stem:<60} {n:>8} lines");
            }
        }
        PcfgsetCommand::Evaluate { predictions, out } => {
            let report = evaluate_folder(&predictions)?;
            print!("{report}");
            if let Some(out) = out {
                std::fs::create_dir_all(&out).map_err(|e| KcompError::io(&out, e))?;
                write_csv(&out.join("scores.csv"), &report.rows)?;
                write_csv(&out.join("overgeneralisation_curves.csv"), &report.curves)?;
                println!("wrote {}", out.join("scores.csv").display());
                if let Some(paths) =
                    overgeneralisation_figure(&report, &out.join("overgeneralisation"))?
                {
                    for p in paths {
                        println!("wrote {}", p.display());
                    }
                }
            }
        }
    }
    Ok(())
}
