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
//! - [`estimators`]: the estimator interface and every estimator (exact terms, prequential
//!   coding, mapping-table programs, compression, topsim, disentanglement, TRE, ...);
//! - [`neural`]: the small models prequential coding trains (fast CPU MLP, burn);
//! - [`sweeps`]: the sweep engine (parallel, deterministic, resumable), Figure 2 sweeps, the
//!   prequential h-sweep, summaries;
//! - [`panel`]: `kcomp compare`: dataset families x estimators x seeds, rank agreement;
//! - [`reports`]: the grid report over LLM answers (tables and figures per model x setting);
//! - [`plot`]: the one plotting module (PNG + SVG);
//! - [`sandbox`]: the OS-enforced sandbox that runs LLM-written programs;
//! - [`io`]: files (.npy, CSV, JSONL user data) and size limits;
//! - [`rng`]: seeded random streams (ChaCha8, exact NumPy/CPython replays);
//! - [`error`]: the one error type (one-line messages, exit status 2);
//! - [`ask`]: `kcomp grid ask`: an OpenAI-compatible chat-completions client (retries, resume);
//! - [`cli`]: the `kcomp` command line.

pub mod ask;
pub mod cli;
pub mod coding;
pub mod config;
pub mod dataset;
pub mod datasets;
pub mod error;
pub mod estimators;
pub mod io;
pub mod neural;
pub mod panel;
pub mod plot;
pub mod progress;
pub mod reports;
pub mod rng;
pub mod sandbox;
pub mod sweeps;

pub use error::{KcompError, Result};
