//! Parameter sweeps: grids of parameter values x seeds, run in parallel with results
//! independent of the thread count, summarised and plotted.
//!
//! - [`engine`]: the one sweep engine (worker threads, job order kept, saved runs, `resume`);
//! - [`run`]: one synthetic run (generator + parameters + seed) and its record;
//! - [`config`]: the sweep TOML format;
//! - [`summary`]: running a sweep; runs.csv, summary.csv (mean, std, n per value), JSON;
//! - [`plot`]: figures of C and topological similarity against the swept parameter;
//! - [`paper`]: Elmoznino et al.'s Figure 2 sweeps and the comparison with the published means;
//! - [`published`]: the published values (Figure 2 means, emergent-language C^L);
//! - [`holistic`]: the prequential sweep over the holistic fraction h;
//! - [`synth`]: one synthetic run as `kcomp synth` makes it, its table and JSON;
//! - [`slurm`]: a sweep as a Slurm job array and a merge job.

pub mod config;
pub mod engine;
pub mod holistic;
pub mod paper;
pub mod plot;
pub mod published;
pub mod run;
pub mod slurm;
pub mod summary;
pub mod synth;
