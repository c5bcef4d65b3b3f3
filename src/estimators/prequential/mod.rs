//! Prequential coding (Elmoznino et al., ICML 2025, Section 3.1 and Appendix G): the code length of Z given W
//! obtained by training models on growing prefixes of the data, and the language-system
//! compositionality C^L(Z) = K(Z) / K(Z|W). All lengths in bits.
//!
//! - [`schedule`]: row orderings (random, grouped by object) and chunk boundaries;
//! - [`naive`]: the fallback code (uniform for discrete Z, a charged discretised Gaussian for
//!   continuous Z);
//! - [`code`]: the engine (parallel, deterministic chunk trainings; warm start);
//! - [`online`]: the online scheme (continued training with replay, EMA, forward calibration);
//! - [`learners`]: its learners, one file each (marginal, n-gram tables, Bayesian linear,
//!   networks, the discrete rule learner and its lexicon sampler);
//! - [`padding`]: detecting the padding token of variable-length messages;
//! - [`switching`]: Bayesian mixture and switching over learners (model choice in the code);
//! - [`report`]: JSON, CSV and PNG outputs;
//! - [`single_run`]: the single-run code length K_auc (Finzi et al. 2026) of the same run;
//! - [`run_config`]: a run's TOML configuration, flag overrides, data, fingerprint and outputs;
//! - [`estimator`]: the engine behind the panel's [`crate::estimators::interface::Estimator`] interface.

pub mod code;
pub mod estimator;
pub mod learners;
pub mod naive;
pub mod online;
pub mod padding;
pub mod report;
pub mod run_config;
pub mod schedule;
pub mod single_run;
pub mod switching;

pub use code::{
    Chunk, FinalStop, KzMethod, ModelBackend, ModelConfig, PrequentialCode, PrequentialConfig,
    PrequentialResult, Scheme, language_compositionality, prequential_code,
};
pub use schedule::{Ordering, Schedule};
