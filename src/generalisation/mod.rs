//! The field's compositional-generalisation test suites beside the complexity view (issue 26).
//!
//! - [`pcfgset`]: PCFG SET (Hupkes, Dankers, Mul, Bruni, "Compositionality decomposed: how do
//!   neural networks generalise?", JAIR 2020): the interpreter (the ground-truth program), the
//!   checks against the published files and the scoring of a model's predictions for the five
//!   tests with the published conventions.
//!
//! Scoring here is the tests' own (accuracy, consistency); nothing under `src/estimators`
//! imports it.

pub mod pcfgset;
