//! The field's compositional-generalisation test suites beside the complexity view.
//!
//! - [`pcfgset`]: PCFG SET (Hupkes, Dankers, Mul, Bruni, "Compositionality decomposed: how do
//!   neural networks generalise?", JAIR 2020): the interpreter (the ground-truth program), the
//!   checks against the published files and the scoring of a model's predictions for the five
//!   tests with the published conventions.
//!
//! - [`ordered_commongen`]: Ordered CommonGen (Sakai, Kamigaito, Watanabe, ACL 2025, arXiv
//!   2506.15629): the 27,648 prompts, `ask` through [`crate::programs::ask`], and the
//!   coverage, ordered-coverage, ordered-rate and diversity scores.
//!
//! Scoring here is the tests' own (accuracy, consistency); nothing under `src/estimators`
//! imports it.

pub mod ordered_commongen;
pub mod pcfgset;
