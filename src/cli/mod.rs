//! The `kcomp` command line. Each subcommand lives in its own file; this module routes them
//! and maps every error to a one-line message and exit status 2.
//!
//! Printing: every byte the CLI writes to stdout goes through [`write_stdout`] (the `out!`
//! and `outln!` macros), which returns write errors instead of panicking as `print!` does:
//! a full disk (`--json > /dev/full`) is a one-line error with exit status 2, a closed pipe
//! (`kcomp ... | head`) ends quietly with the shell's 141. Lines on stderr go through
//! `noteln!`, which cannot fail. Both escape control characters (a name or a program's text
//! cannot send escape sequences to the terminal). `clippy::print_stdout` keeps it the only
//! path.

use crate::error::KcompError;

/// Prints to stdout through [`write_stdout`]; `?` on a write error.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(&format!($($arg)*))?
    };
}

/// [`out!`] with a newline.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(&format!("{}\n", format_args!($($arg)*)))?
    };
}

/// One line on stderr through [`crate::progress::note`] (never fails, never panics).
macro_rules! noteln {
    ($($arg:tt)*) => {
        $crate::progress::note(&format!($($arg)*))
    };
}

/// The name stdout's write errors carry (see [`write_stdout`]).
pub const STDOUT: &str = "standard output";

/// Writes `text` to stdout and flushes it; control characters other than newlines and tabs
/// are escaped. A failed write is an error naming standard output.
pub fn write_stdout(text: &str) -> crate::error::Result<()> {
    write_stdout_bytes(crate::io::names::terminal_text(text).as_bytes())
}

/// [`write_stdout`] of bytes kcomp made itself, unescaped (a completion script).
pub fn write_stdout_bytes(bytes: &[u8]) -> crate::error::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| KcompError::io(STDOUT, e))
}

/// Whether `err` is stdout's closed pipe (the reader went away: `kcomp ... | head`).
fn closed_stdout(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        matches!(
            e.downcast_ref::<KcompError>(),
            Some(KcompError::Io { path, source })
                if path.as_os_str() == STDOUT && source.kind() == std::io::ErrorKind::BrokenPipe
        )
    })
}

pub mod bdm;
pub mod codelength;
pub mod commongen;
pub mod compare;
pub mod grid;
pub mod pcfgset;
pub mod prequential;
pub mod represent;
pub mod slurm;
pub mod sweep;
pub mod synth;

use clap::{Parser, Subcommand};

/// kcomp: estimate the compositionality of data, representations and programs through
/// Kolmogorov complexity. All description lengths are in bits.
///
/// Your own messages and meanings: `kcomp compare --w W.npy --z Z.npy` (every estimator),
/// `kcomp prequential --w W.npy --z Z.npy --out DIR` (one code in detail). Theory on synthetic
/// data: `kcomp synth lookup|grammar|protocol`, `kcomp sweep CONFIG.toml`, `kcomp reproduce`.
/// Bare `kcomp` prints an overview of the main tasks.
#[derive(Debug, Parser)]
#[command(name = "kcomp", version, about, long_about, after_help = PAPERS)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The papers kcomp implements, as the top-level `--help` cites them (docs/estimators.md has
/// the scores' references; CITATION.cff cites kcomp itself).
const PAPERS: &str = "Papers (cite those whose quantities you report; CITATION.cff cites kcomp):
  Elmoznino, Jiralerspong, Bengio, Lajoie. A complexity-based theory of compositionality.
    ICML 2025, arXiv 2410.14817 (C(Z), C^L, the synthetic sweeps: synth, sweep, reproduce,
    prequential, compare).
  Xu, Wang, Wang. Investigating More Explainable and Partition-Free Compositionality Estimation
    for LLMs: A Rule-Generation Perspective. ACL 2026, arXiv 2604.27340 (grid, the mapping table).
  Hupkes, Dankers, Mul, Bruni. Compositionality decomposed: how do neural networks generalise?
    JAIR 2020, arXiv 1908.08351 (pcfgset).
  Sakai, Kamigaito, Watanabe. Revisiting Compositional Generalization Capability of Large
    Language Models Considering Instruction Following Ability. ACL 2025, arXiv 2506.15629
    (commongen).
  Korbak, Zubek, Raczaszek-Leonardi. Measuring non-trivial compositionality in emergent
    communication. Emergent Communication workshop, NeurIPS 2020, arXiv 2010.15058 (synth
    protocol).
  Finzi, Qiu, Jiang, Izmailov, Kolter, Wilson. From Entropy to Epiplexity: Rethinking
    Information for Computationally Bounded Intelligence. arXiv 2601.03220, 2026 (requential,
    K_auc).
  Zenil, Hernandez-Orozco, Kiani, Soler-Toscano, Rueda-Toicen, Tegner. A Decomposition Method
    for Global Evaluation of Shannon Entropy and Local Estimations of Algorithmic Complexity.
    Entropy 20(8), 2018 (bdm, with pybdm's CTM tables).
Scores (topsim, posdis, bosdis, ...): references in docs/estimators.md.";

/// What bare `kcomp` prints (stdout, exit status 0): the main tasks and their commands, so a
/// new user starts from their own data, not from an error.
pub const OVERVIEW: &str = "kcomp: compositionality of data, representations and programs through Kolmogorov
complexity (all description lengths in bits).

Main tasks:
  your messages W (.npy, .csv, .jsonl, or .txt sentences) and meanings Z, one row per utterance:
    kcomp compare --w W.npy --z Z.npy                 every estimator: K(Z|W), C, bits saved per row, scores
    kcomp compare --w W.npy --z Z.npy --estimators prequential,posdis --json
    kcomp prequential --w W.npy --z Z.npy --out DIR   one prequential code with its curve
    (continuous Z: add --precision 0.01, the grid spacing at which values are coded)
  many datasets x estimators x seeds, with rank agreement and figures:
    kcomp compare configs/compare/default.toml --out results/compare
  theory on synthetic data with exact K:
    kcomp synth lookup|grammar|protocol ...           kcomp sweep CONFIG.toml --out DIR
    kcomp reproduce                                   Elmoznino et al.'s Figure 2 sweeps
  a representation alone (no W):  kcomp represent --z Z.npy --precision 0.01 --out DIR
  programs written by LLMs:       kcomp grid generate|prompt|ask|score|report
  generalisation tests:           kcomp pcfgset ..., kcomp commongen ...

kcomp --help lists every command; kcomp COMMAND --help gives its options, defaults and examples.
";

/// Top-level subcommands. A variant with `about = ...` keeps its arguments' doc comment (with
/// examples) as the long help; a variant doc comment would replace it.
#[derive(Debug, Subcommand)]
pub enum Command {
    #[command(
        about = "Prequential code length of Z given W and the language compositionality C^L(Z)"
    )]
    Prequential(Box<prequential::PrequentialArgs>),
    /// Generate a synthetic representation and print its exact K terms, C(Z) and topsim.
    Synth(synth::SynthArgs),
    #[command(about = "Run a TOML sweep of parameter values x seeds (tables, summaries, plots)")]
    Sweep(sweep::SweepArgs),
    #[command(
        about = "Reproduce Elmoznino et al.'s Figure 2 sweeps and compare with the published means"
    )]
    Reproduce(sweep::ReproduceArgs),
    #[command(about = "Every estimator of K(Z|W) and compositionality on the same datasets")]
    Compare(Box<compare::CompareArgs>),
    /// Code lengths under kcomp's primitives (e.g. Skellam).
    Codelength(codelength::CodelengthArgs),
    #[command(
        about = "BDM (Block Decomposition Method) of a string or binary matrix, pybdm's tables"
    )]
    Bdm(bdm::BdmArgs),
    /// Mapping-table metric for LLM-written programs (string-to-grid).
    Grid(grid::GridArgs),
    /// Run a sweep or a panel as a Slurm job array (submit, status, resubmit).
    Slurm(slurm::SlurmArgs),
    /// PCFG SET (Hupkes et al., JAIR 2020): interpreter, checks, scoring of the five tests.
    Pcfgset(pcfgset::PcfgsetArgs),
    /// Ordered CommonGen (Sakai et al., ACL 2025): prompts, ask, coverage and order scores.
    Commongen(commongen::CommongenArgs),
    #[command(
        about = "Learn sentences W for a representation Z alone, code every term, report C(Z)"
    )]
    Represent(Box<represent::RepresentArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell).
    ///
    /// Examples:
    ///   kcomp completions bash > ~/.local/share/bash-completion/completions/kcomp
    ///   kcomp completions zsh > ~/.zfunc/_kcomp      (with fpath+=(~/.zfunc) in ~/.zshrc)
    ///   kcomp completions fish > ~/.config/fish/completions/kcomp.fish
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The command line with negative numbers accepted as option values in every subcommand, so
/// `--threads -1` is refused by the option's own parser, which names it, instead of being
/// taken for an unknown flag `-1`.
pub fn command() -> clap::Command {
    fn allow_negative(cmd: clap::Command) -> clap::Command {
        cmd.allow_negative_numbers(true)
            .mut_subcommands(allow_negative)
    }
    allow_negative(<Cli as clap::CommandFactory>::command())
}

/// Parses the process's arguments with [`command`].
fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(std::env::args_os())?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

/// Runs the CLI and returns the process exit code (0 success, 2 any error).
pub fn main_with_exit_code() -> i32 {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(err) if err.use_stderr() => {
            // One line, like every other error: the message without clap's usage lines.
            if err.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                if std::env::args_os().count() <= 1 {
                    // Bare `kcomp`: what it does and where to start, not an error.
                    return match write_stdout(OVERVIEW).map_err(anyhow::Error::from) {
                        Ok(()) => 0,
                        Err(e) if closed_stdout(&e) => 128 + libc::SIGPIPE,
                        Err(e) => {
                            noteln!("error: {}", crate::io::names::terminal(&e.to_string()));
                            2
                        }
                    };
                }
                // A subcommand given nothing to do prints its help.
                eprint!("{}", err.render());
                return 2;
            }
            let text = err.render().to_string();
            let line: Vec<&str> = text
                .lines()
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            noteln!("{}", crate::io::names::terminal(&line.join(" ")));
            return 2;
        }
        Err(err) => {
            // --help and --version: clap prints them on stdout; a failed write is an error.
            use std::io::Write;
            return match err.print().and_then(|()| std::io::stdout().flush()) {
                Ok(()) => 0,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 128 + libc::SIGPIPE,
                Err(e) => {
                    noteln!("error: {STDOUT}: {e}");
                    2
                }
            };
        }
    };
    match run(cli) {
        Ok(()) => 0,
        // 128 + SIGPIPE, what a shell reports for a pipeline's early reader end.
        Err(err) if closed_stdout(&err) => 128 + libc::SIGPIPE,
        Err(err) => {
            // Exactly one line, even if a message carries a newline; names read from disk
            // in it cannot send escape sequences to the terminal.
            // The error and its causes, each once (an I/O error's message already ends with
            // its source).
            let mut msg = err.to_string();
            for cause in err.chain().skip(1) {
                let cause = cause.to_string();
                if !msg.contains(&cause) {
                    msg = format!("{msg}: {cause}");
                }
            }
            let msg = msg.replace('\n', " ");
            noteln!("error: {}", crate::io::names::terminal(&msg));
            2
        }
    }
}

/// Dispatches a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Prequential(args) => Ok(prequential::run(*args)?),
        Command::Synth(args) => synth::run_synth(args),
        Command::Sweep(args) => sweep::run_sweep_command(args),
        Command::Reproduce(args) => sweep::run_reproduce(args),
        Command::Compare(args) => compare::run(*args),
        Command::Codelength(args) => codelength::run_codelength(args),
        Command::Bdm(args) => bdm::run(args),
        Command::Grid(args) => grid::run(args),
        Command::Slurm(args) => slurm::run(args),
        Command::Pcfgset(args) => pcfgset::run(args),
        Command::Commongen(args) => commongen::run(args),
        Command::Represent(args) => Ok(represent::run(*args)?),
        Command::Completions { shell } => {
            // Into memory first: clap_complete panics on a write error (a closed pipe).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command(), "kcomp", &mut script);
            Ok(write_stdout_bytes(&script)?)
        }
    }
}
