//! The prequential code length of Z given W, K(Data|f), K(f), K(Z) and C^L(Z).

use std::time::Instant;

use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::naive::naive_bits;
use super::online::{LearnerTotal, OnlineConfig};
use super::schedule::{Ordering, Schedule, order_rows};
use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
#[cfg(feature = "burn")]
use crate::neural::burn_mlp::BurnMlp;
use crate::neural::fast::FastMlp;
use crate::neural::train::{FitReport, Learner, StopOn, TrainConfig, fit};
use crate::neural::{HeadSpec, MlpSpec, StdSpec};

/// Model hyper-parameters (the data fix the vocabulary, sentence length and head size).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// Token embedding size.
    pub emb_dim: usize,
    /// Hidden layer widths of the MLP.
    pub hidden: Vec<usize>,
    /// Dropout after each hidden layer.
    pub dropout: f64,
    /// Standard deviation of the Gaussian head (continuous Z only).
    pub std: StdSpec,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            emb_dim: 64,
            hidden: vec![256, 256],
            dropout: 0.0,
            std: StdSpec::Learned { min_std: 1e-2 },
        }
    }
}

/// Which implementation trains the models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ModelBackend {
    /// The specialised f32 CPU MLP (default).
    #[default]
    Fast,
    /// burn 0.22 (flex CPU backend, or wgpu with the `gpu-wgpu` feature); needs the `burn`
    /// feature.
    Burn,
}

/// How K(Z) is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum KzMethod {
    /// Discrete Z: uniform over the V^A objects (the reference); continuous Z: the naive code
    /// of all encoded rows (a Gaussian per dimension with charged parameters).
    #[default]
    Analytic,
    /// The prequential code of Z by a model that sees no W (same schedule and training).
    Prequential,
}

/// Which loss stops the training of the final model on all training rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum FinalStop {
    /// Training loss (the reference's `allow_final_overfit: True`).
    #[default]
    Training,
    /// Validation loss.
    Validation,
}

/// Everything that defines one prequential run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PrequentialConfig {
    /// Seed of the ordering and of every model (chunk i uses a seed derived from (seed, i)).
    pub seed: u64,
    /// Row ordering before the split.
    pub ordering: Ordering,
    /// Rows held out for early stopping (the last rows of the ordering; never encoded).
    pub val_size: usize,
    /// Chunk boundaries.
    pub schedule: Schedule,
    /// Model shape.
    pub model: ModelConfig,
    /// Optimisation and early stopping.
    pub train: TrainConfig,
    /// Continue each chunk's training from the previous chunk's model (cheaper, sequential).
    pub warm_start: bool,
    /// Implementation of the models.
    pub backend: ModelBackend,
    /// How K(Z) is obtained.
    pub k_z: KzMethod,
    /// Early-stopping criterion of the final model.
    pub final_stop: FinalStop,
    /// Worker threads for the independent chunk trainings (0 = all cores).
    pub threads: usize,
    /// The coding scheme (`reference` reproduces the block-wise protocol bit for bit).
    #[serde(skip_serializing_if = "Scheme::is_reference")]
    pub scheme: Scheme,
    /// Settings of the online scheme (ignored by `reference`).
    #[serde(skip_serializing_if = "OnlineConfig::is_default")]
    pub online: OnlineConfig,
}

/// How the prequential code is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// Block-wise: a model trained from scratch (early-stopped on held-out rows) per chunk.
    #[default]
    Reference,
    /// Online learning with replay, calibration, and a switching mixture of learners
    /// (src/estimators/prequential/online.rs); encodes every row.
    Online,
}

impl Scheme {
    // Defaults are left out of serialised configurations, so that run fingerprints written
    // before the option existed still match.
    fn is_reference(&self) -> bool {
        *self == Scheme::Reference
    }
}

impl Default for PrequentialConfig {
    fn default() -> Self {
        PrequentialConfig {
            seed: 0,
            ordering: Ordering::Grouped,
            val_size: 400,
            schedule: Schedule::default(),
            model: ModelConfig::default(),
            train: TrainConfig::default(),
            warm_start: false,
            backend: ModelBackend::Fast,
            k_z: KzMethod::Analytic,
            final_stop: FinalStop::Training,
            threads: 0,
            scheme: Scheme::Reference,
            online: OnlineConfig::default(),
        }
    }
}

/// Keys of [`PrequentialConfig`] that only the reference protocol reads.
pub const REFERENCE_KEYS: &[&str] = &[
    "val_size",
    "schedule",
    "model",
    "train",
    "warm_start",
    "backend",
    "final_stop",
];

/// The configuration of `kcomp prequential` and of panels when nothing is set: the online
/// scheme. (`PrequentialConfig::default()` stays `reference` for library callers and for
/// settings saved before the online scheme existed.)
pub fn online_default() -> PrequentialConfig {
    PrequentialConfig {
        scheme: Scheme::Online,
        ..Default::default()
    }
}

/// The scheme of a user-facing configuration table (`[prequential]` of `kcomp prequential`,
/// `[prequential.config]` of a panel): the one it names, else `online`. A key only the
/// reference protocol reads ([`REFERENCE_KEYS`]) in a table that names no scheme is an error
/// (`Err(key)`), never a silent switch of estimator: the caller names the key and the
/// protocol it needs. Saved configurations name their scheme ([`with_scheme_named`]).
pub fn settle_scheme(t: &mut toml::Table) -> std::result::Result<(), &'static str> {
    if t.contains_key("scheme") {
        return Ok(());
    }
    if let Some(key) = REFERENCE_KEYS.iter().copied().find(|k| t.contains_key(*k)) {
        return Err(key);
    }
    t.insert("scheme".into(), "online".into());
    Ok(())
}

/// `table` (a serialised prequential configuration, at `path` inside it) with its scheme
/// written out: serialisation leaves out the default `reference`, and a reference table with
/// no scheme would be refused when read back ([`settle_scheme`]).
pub fn with_scheme_named(table: &mut toml::Table, path: &[&str]) {
    let mut t = table;
    for part in path {
        match t.get_mut(*part).and_then(|v| v.as_table_mut()) {
            Some(inner) => t = inner,
            None => return,
        }
    }
    t.entry("scheme").or_insert_with(|| "reference".into());
}

/// Why a reference-only key set without a scheme is refused.
pub const REFERENCE_ONLY: &str = "only the reference protocol reads it, not the default online \
     scheme: add --protocol reference (scheme = \"reference\" in a config) to use it, or drop it";

/// Deserialises a panel's `[prequential.config]` with [`settle_scheme`].
pub fn deserialize_user_config<'de, D>(d: D) -> std::result::Result<PrequentialConfig, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error;
    let mut value = toml::Value::deserialize(d)?;
    if let Some(t) = value.as_table_mut() {
        settle_scheme(t).map_err(|key| {
            D::Error::custom(format!("prequential.config.{key}: {REFERENCE_ONLY}"))
        })?;
    }
    PrequentialConfig::deserialize(value).map_err(D::Error::custom)
}

/// One encoded chunk of the prequential curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Rows encoded before this chunk (the model was trained on them).
    pub start: usize,
    /// Rows encoded after this chunk.
    pub end: usize,
    /// Code length of the chunk under the model, bits (null for the first chunk).
    pub model_bits: Option<f64>,
    /// Code length of the chunk under the naive code, bits.
    pub naive_bits: f64,
    /// Bits charged: min(model, naive) + 1 flag bit (first chunk: naive, no flag).
    pub bits: f64,
    /// Bits charged per row of the chunk.
    pub bits_per_sample: f64,
    /// Whether the model's code was used.
    pub used_model: bool,
    /// Epochs of the training run that produced the model (0 for the first chunk).
    pub epochs: usize,
}

/// Result of a prequential run. All lengths in bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrequentialResult {
    /// K(Data): the prequential code length of the encoded Z given W.
    pub k_data: f64,
    /// K(Data|f): code length of the encoded Z under the final model (trained on all of them).
    pub k_data_given_f: f64,
    /// K(f) = K(Data) - K(Data|f).
    pub k_f: f64,
    /// K(Z).
    pub k_z: f64,
    /// C^L(Z) = K(Z) / K(Data).
    pub c_l: f64,
    /// How K(Z) was obtained.
    pub k_z_method: KzMethod,
    /// Rows encoded.
    pub n_encoded: usize,
    /// Rows held out for validation.
    pub n_val: usize,
    /// The curve.
    pub chunks: Vec<Chunk>,
    /// Epochs of the final model.
    pub final_epochs: usize,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
    /// Caveats about the numbers (e.g. a negative K(f)); empty when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The online scheme's learners (absent for the reference protocol).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub learners: Vec<LearnerTotal>,
    /// The coding scheme that produced the numbers.
    #[serde(default)]
    pub scheme: Scheme,
}

/// The prequential code without the C^L ratio (used for K(Z|W) and the prequential K(Z)).
#[derive(Debug, Clone, PartialEq)]
pub struct PrequentialCode {
    pub k_data: f64,
    pub k_data_given_f: f64,
    pub chunks: Vec<Chunk>,
    pub final_epochs: usize,
    pub n_encoded: usize,
    pub n_val: usize,
    /// The online scheme's learners (empty for the reference protocol).
    pub learners: Vec<LearnerTotal>,
}

/// SplitMix64 finaliser: independent seeds from (seed, index).
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed
        .wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(index.wrapping_add(1)))
        .wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The model specification for data `w`, `z` and hyper-parameters `m`.
pub fn model_spec(w: &TokenData, z: &Targets, m: &ModelConfig) -> MlpSpec {
    let head = match z {
        Targets::Discrete { n_attr, n_vals, .. } => HeadSpec::Categorical {
            n_attr: *n_attr,
            n_vals: *n_vals,
        },
        Targets::Continuous { dim, .. } => HeadSpec::Gaussian {
            dim: *dim,
            std: m.std,
        },
    };
    MlpSpec {
        vocab: w.vocab,
        n_words: w.n_words,
        emb_dim: m.emb_dim,
        hidden: m.hidden.clone(),
        dropout: m.dropout,
        head,
    }
}

/// A fresh learner of the chosen backend.
pub fn make_learner(
    spec: &MlpSpec,
    train: &TrainConfig,
    backend: ModelBackend,
    seed: u64,
) -> Box<dyn Learner> {
    match backend {
        ModelBackend::Fast => Box::new(FastMlp::new(spec, train.lr, seed)),
        #[cfg(feature = "burn")]
        ModelBackend::Burn => Box::new(BurnMlp::new(spec, train.lr, seed)),
        // `validate` refuses this backend in a build without burn.
        #[cfg(not(feature = "burn"))]
        ModelBackend::Burn => unreachable!("the burn backend is not built in"),
    }
}

/// Checks a configuration against its data before anything is trained or allocated: the
/// training settings, the row counts, the model shape, the thread count and the memory the
/// run needs (see [`PrequentialConfig::memory_terms`]).
pub fn validate(w: &TokenData, z: &Targets, cfg: &PrequentialConfig) -> Result<()> {
    if cfg.backend == ModelBackend::Burn && !cfg!(feature = "burn") {
        return Err(KcompError::param(
            "backend",
            "burn is not built into this kcomp: rebuild with `--features burn` \
             (e.g. `cargo install --path . --features burn`)",
        ));
    }
    cfg.train.validate()?;
    if cfg.train.lr.is_nan() || cfg.train.lr > MAX_LR {
        return Err(KcompError::param(
            "lr",
            format!(
                "must be at most {MAX_LR} (larger steps only diverge), got {}",
                cfg.train.lr
            ),
        ));
    }
    crate::io::limits::check_threads("threads", cfg.threads, true)?;
    if w.n != z.n() {
        return Err(KcompError::param(
            "w/z",
            format!("W has {} rows but Z has {} rows", w.n, z.n()),
        ));
    }
    if w.n == 0 {
        return Err(KcompError::param("w/z", "no rows"));
    }
    if cfg.scheme == Scheme::Online {
        // Every row is encoded: no validation rows, no chunk schedule. Settings only the
        // reference protocol reads are errors when changed, not silently ignored (defaults
        // pass: saved fingerprints list them).
        let d = PrequentialConfig::default();
        for (changed, key) in [
            (cfg.warm_start != d.warm_start, "warm_start"),
            (cfg.model != d.model, "model"),
            (cfg.train != d.train, "train"),
            (cfg.schedule != d.schedule, "schedule"),
            (cfg.final_stop != d.final_stop, "final_stop"),
        ] {
            if changed {
                return Err(KcompError::param(
                    format!("prequential.{key}"),
                    "is read only by the reference protocol; the online scheme would ignore it \
                     (leave it at its default, or choose the reference protocol)",
                ));
            }
        }
        cfg.online.validate()?;
        // A padding token W carries replaces the setting (OnlineConfig::for_data).
        if let Some(p) = cfg.online.pad
            && w.pad.is_none()
            && p as usize >= w.vocab
        {
            return Err(KcompError::param(
                "online.pad",
                format!("token {p} is outside the vocabulary of size {}", w.vocab),
            ));
        }
        return crate::datasets::validate::memory(
            "this prequential run",
            &cfg.online.memory_terms(w, z),
        );
    }
    if cfg.val_size >= w.n {
        return Err(KcompError::param(
            "val_size",
            format!(
                "the validation set ({}) leaves no row to encode out of {}",
                cfg.val_size, w.n
            ),
        ));
    }
    // A categorical head has no std: a std set for discrete Z would be ignored (a negative
    // one would pass unnoticed).
    if matches!(z, Targets::Discrete { .. }) && cfg.model.std != ModelConfig::default().std {
        return Err(KcompError::param(
            "model.std",
            "applies to continuous Z only (this Z is discrete: its head is categorical)",
        ));
    }
    model_spec(w, z, &cfg.model).validate()?;
    let n_train = w.n - cfg.val_size;
    if let Schedule::Log { n, .. } = cfg.schedule
        && n > n_train
    {
        return Err(KcompError::param(
            "log_schedule",
            format!("{n} chunk boundaries for {n_train} encoded rows: at most one per row"),
        ));
    }
    cfg.schedule.boundaries(n_train)?;
    crate::datasets::validate::memory("this prequential run", &cfg.memory_terms(w, z))
}

/// Largest learning rate accepted.
pub const MAX_LR: f64 = 10.0;

impl PrequentialConfig {
    /// The large allocations of a run, in bytes (`f64`: absurd sizes cannot overflow): per
    /// model the weights, gradients, Adam moments and best weights (6 copies of the
    /// parameters, f32) and the activations of a batch, times the models trained at once;
    /// the data and the per-row outputs.
    pub fn memory_terms(&self, w: &TokenData, z: &Targets) -> Vec<(&'static str, f64)> {
        let m = &self.model;
        let outputs = model_spec(w, z, m).head.n_outputs() as f64;
        let emb = m.emb_dim as f64;
        let mut widths = vec![w.n_words as f64 * emb];
        widths.extend(m.hidden.iter().map(|&h| h as f64));
        widths.push(outputs);
        let layer_params: f64 = widths.windows(2).map(|p| p[0] * p[1] + p[1]).sum();
        let emb_params = w.vocab as f64 * emb;
        let rows = w.n as f64;
        let batch = (self.train.batch_size as f64).min(rows);
        let activations = batch * widths.iter().sum::<f64>() * 4.0 * 4.0;
        let concurrent = if self.warm_start {
            1.0
        } else if self.threads == 0 {
            rayon::current_num_threads() as f64
        } else {
            self.threads as f64
        };
        vec![
            ("vocab x emb_dim", concurrent * (emb_params * 24.0)),
            (
                "emb_dim x hidden",
                concurrent * (layer_params * 24.0 + activations),
            ),
            (
                "w/z rows",
                rows * (w.n_words as f64 * 4.0 + z.width() as f64 * 8.0 + outputs * 8.0),
            ),
        ]
    }
}

/// Runs the prequential code of `z` given `w`. `progress` counts the training rows of finished
/// trainings (a training's cost grows with its prefix, so counting trainings made the ETA
/// of growing chunks far too short).
pub fn prequential_code(
    w: &TokenData,
    z: &Targets,
    cfg: &PrequentialConfig,
    progress: Option<&ProgressBar>,
) -> Result<PrequentialCode> {
    validate(w, z, cfg)?;
    if cfg.scheme == Scheme::Online {
        return super::online::online_code(w, z, cfg, progress);
    }
    let order = order_rows(z, cfg.ordering, cfg.seed);
    let n_train = w.n - cfg.val_size;
    let (train_rows, val_rows) = order.split_at(n_train);
    let bounds = cfg.schedule.boundaries(n_train)?;
    let spec = model_spec(w, z, &cfg.model);
    let n_jobs = bounds.len(); // bounds.len() - 1 encoding models + the final model
    if let Some(pb) = progress {
        let rows: usize = bounds.iter().sum();
        pb.set_length(pb.length().unwrap_or(0) + rows as u64);
    }
    let final_stop = match cfg.final_stop {
        FinalStop::Training => StopOn::Training,
        FinalStop::Validation => StopOn::Validation,
    };
    // Job j trains on the first bounds[j] rows; for j < last it encodes the next chunk.
    let run_job = |learner: &mut dyn Learner, j: usize| -> (FitReport, f64) {
        let prefix = &train_rows[..bounds[j]];
        let last = j + 1 == bounds.len();
        let stop = if last { final_stop } else { StopOn::Validation };
        let shuffle_seed = derive_seed(cfg.seed, 2 * j as u64 + 1);
        let rep = fit(
            learner,
            w,
            z,
            prefix,
            val_rows,
            &cfg.train,
            stop,
            shuffle_seed,
        );
        let bits = if last {
            learner.code_bits(w, z, train_rows)
        } else {
            learner.code_bits(w, z, &train_rows[bounds[j]..bounds[j + 1]])
        };
        if let Some(pb) = progress {
            pb.inc(bounds[j] as u64);
        }
        (rep, bits)
    };
    let results: Vec<(FitReport, f64)> = if cfg.warm_start {
        let mut learner = make_learner(&spec, &cfg.train, cfg.backend, derive_seed(cfg.seed, 0));
        (0..n_jobs)
            .map(|j| {
                learner.reset_optimizer();
                run_job(learner.as_mut(), j)
            })
            .collect()
    } else {
        let jobs = || -> Vec<(FitReport, f64)> {
            (0..n_jobs)
                .into_par_iter()
                .with_max_len(1)
                .map(|j| {
                    let mut l = make_learner(
                        &spec,
                        &cfg.train,
                        cfg.backend,
                        derive_seed(cfg.seed, 2 * j as u64),
                    );
                    run_job(l.as_mut(), j)
                })
                .collect()
        };
        in_pool(cfg.threads, jobs)?
    };
    let mut chunks = Vec::with_capacity(n_jobs);
    let first = &train_rows[..bounds[0]];
    let nb0 = naive_bits(z, first);
    chunks.push(Chunk {
        start: 0,
        end: bounds[0],
        model_bits: None,
        naive_bits: nb0,
        bits: nb0,
        bits_per_sample: nb0 / bounds[0] as f64,
        used_model: false,
        epochs: 0,
    });
    for j in 0..n_jobs - 1 {
        let rows = &train_rows[bounds[j]..bounds[j + 1]];
        let nb = naive_bits(z, rows);
        let (rep, mb) = results[j];
        let used_model = mb < nb;
        let bits = mb.min(nb) + 1.0;
        chunks.push(Chunk {
            start: bounds[j],
            end: bounds[j + 1],
            model_bits: Some(mb),
            naive_bits: nb,
            bits,
            bits_per_sample: bits / rows.len() as f64,
            used_model,
            epochs: rep.epochs,
        });
    }
    let k_data = chunks.iter().map(|c| c.bits).sum();
    let (final_rep, k_data_given_f) = results[n_jobs - 1];
    Ok(PrequentialCode {
        k_data,
        k_data_given_f,
        chunks,
        final_epochs: final_rep.epochs,
        n_encoded: n_train,
        n_val: cfg.val_size,
        learners: Vec::new(),
    })
}

/// Runs `jobs` on the global rayon pool (`threads` = 0) or on a pool of `threads` threads.
pub fn in_pool<T: Send>(threads: usize, jobs: impl FnOnce() -> T + Send) -> Result<T> {
    if threads == 0 {
        Ok(jobs())
    } else {
        Ok(rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| KcompError::Other(format!("cannot start threads: {e}")))?
            .install(jobs))
    }
}

/// A progress bar on stderr (bars on a terminal, a line every few seconds off it) in the
/// unit `scheme`'s engine counts: training rows of finished chunk trainings (reference) or
/// learners that coded the whole stream (online).
pub fn progress_bar(enabled: bool, scheme: Scheme) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let unit = match scheme {
        Scheme::Reference => "training rows",
        Scheme::Online => "learners",
    };
    crate::progress::bar(0, unit, "")
}

/// The full estimate: prequential K(Z|W), K(f), K(Z) and C^L(Z) = K(Z) / K(Z|W).
pub fn language_compositionality(
    w: &TokenData,
    z: &Targets,
    cfg: &PrequentialConfig,
    progress: Option<&ProgressBar>,
) -> Result<PrequentialResult> {
    let t0 = Instant::now();
    let code = prequential_code(w, z, cfg, progress)?;
    let k_z = match cfg.k_z {
        KzMethod::Analytic => match z {
            Targets::Discrete { .. } => {
                let idx: Vec<usize> = (0..code.n_encoded).collect();
                naive_bits(z, &idx)
            }
            Targets::Continuous { .. } => {
                let ordering = match cfg.scheme {
                    Scheme::Online => cfg.ordering.for_code_length(),
                    Scheme::Reference => cfg.ordering,
                };
                let order = order_rows(z, ordering, cfg.seed);
                naive_bits(z, &order[..code.n_encoded])
            }
        },
        KzMethod::Prequential => {
            let blind = TokenData::blind(w.n);
            // Same seed, hence the same ordering, split and schedule as the code given W.
            prequential_code(&blind, z, cfg, progress)?.k_data
        }
    };
    let c_l = k_z / code.k_data;
    let k_f = code.k_data - code.k_data_given_f;
    let mut warnings = Vec::new();
    if k_f < 0.0 {
        warnings.push(format!(
            "K(f) = {k_f:.1} bits is negative: the final model codes the data worse \
             ({:.1} bits) than the prequential sum ({:.1} bits); it stopped early or underfit, \
             so K(f) is not meaningful here",
            code.k_data_given_f, code.k_data
        ));
    }
    if cfg.scheme == Scheme::Reference && cfg.ordering == Ordering::Grouped {
        warnings.push(
            "rows grouped by Z (the published protocol's order): the order tells the decoder \
             which rows share an object, information about Z this code length does not charge \
             when W is not injective (synonyms, holistic exceptions); the online scheme uses a \
             seeded permutation"
                .into(),
        );
    }
    Ok(PrequentialResult {
        warnings,
        k_data: code.k_data,
        k_data_given_f: code.k_data_given_f,
        k_f,
        k_z,
        c_l,
        k_z_method: cfg.k_z,
        n_encoded: code.n_encoded,
        n_val: code.n_val,
        chunks: code.chunks,
        learners: code.learners,
        final_epochs: code.final_epochs,
        wall_seconds: t0.elapsed().as_secs_f64(),
        scheme: cfg.scheme,
    })
}
