//! The `kcomp` command line. Each subcommand lives in its own file; this module routes them
//! and maps every error to a one-line message and exit status 2.

use clap::{Parser, Subcommand};

pub mod prequential;

/// kcomp: estimate the compositionality of data, representations and programs through
/// Kolmogorov complexity. All description lengths are in bits.
#[derive(Debug, Parser)]
#[command(name = "kcomp", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Prequential code length of Z given W and the language compositionality C^L(Z).
    Prequential(prequential::PrequentialArgs),
}

/// Runs the CLI and returns the process exit code (0 success, 2 any error).
pub fn main_with_exit_code() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { 2 } else { 0 };
            let _ = err.print();
            return code;
        }
    };
    match run(cli) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("error: {err:#}");
            2
        }
    }
}

/// Dispatches a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Prequential(args) => prequential::run(args)?,
    }
    Ok(())
}
