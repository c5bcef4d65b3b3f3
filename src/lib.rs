//! kcomp: estimating compositionality through Kolmogorov complexity.
//!
//! Every description length is in **bits** unless a function name says otherwise
//! (`*_nats`). Data flow: generators and loaders produce a [`dataset::Dataset`]; estimators
//! ([`estimators::interface::Estimator`]) turn it into estimates; the sweep engine
//! ([`sweeps::engine`]) runs grids of datasets x estimators x seeds; tables and [`plot`] draw
//! the results; [`cli`] only parses flags and prints. See ARCHITECTURE.md.
//!
//! - [`coding`]: coding primitives (bits/nats, Skellam, discretised Gaussians);
//! - [`config`]: TOML configurations and their `--set KEY=VALUE` / shortcut-flag overrides;
//! - [`dataset`]: the one (W, Z) dataset type every generator, loader and estimator shares;
//! - [`datasets`]: generators (lookup tables, grammars, language systems, Korbak protocols,
//!   string-to-grid data);
//! - [`estimators`]: the estimator interface and every estimator of a dataset (exact terms,
//!   prequential coding, compression, topsim, disentanglement, TRE, ...);
//! - [`neural`]: the small models prequential coding trains (fast CPU MLP, burn);
//! - [`sweeps`]: the sweep engine (parallel, deterministic, resumable), Figure 2 sweeps, the
//!   prequential h-sweep, summaries;
//! - [`panel`]: `kcomp compare`: dataset families x estimators x seeds, rank agreement;
//! - [`generalisation`]: the field's compositional-generalisation tests (PCFG SET's
//!   interpreter and the scoring of its five tests);
//! - [`programs`]: scoring LLM-written programs by the mapping table they imply (extraction,
//!   parsers, scores, the sandbox, `grid ask`, grid reports);
//! - [`representation`]: C(Z) of a representation alone (learned sentences W, every term coded);
//! - [`plot`]: the one plotting module (PNG + SVG);
//! - [`io`]: files (.npy, CSV, JSONL user data) and size limits;
//! - [`rng`]: seeded random streams (ChaCha8, exact NumPy/CPython replays);
//! - [`error`]: the one error type (one-line messages, exit status 2);
//! - [`cli`]: the `kcomp` command line.

// One path to stdout: `cli::write_stdout` (print! panics on a full or closed stdout).
#![warn(clippy::print_stdout)]

pub mod cli;
pub mod coding;
pub mod config;
pub mod dataset;
pub mod datasets;
pub mod error;
pub mod estimators;
pub mod generalisation;
pub mod io;
pub mod neural;
pub mod panel;
pub mod plot;
pub mod programs;
pub mod progress;
pub mod representation;
pub mod rng;
pub mod sweeps;

pub use error::{KcompError, Result};
