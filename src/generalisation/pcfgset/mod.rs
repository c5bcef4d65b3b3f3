//! PCFG SET (Hupkes, Dankers, Mul, Bruni, JAIR 2020): ten string-edit functions composed in
//! prefix notation over letter tokens, binary arguments separated by ` , `.
//!
//! - [`interpreter`]: parse and evaluate an input sequence (the ground-truth program), with the
//!   overgeneralisation test's exceptions as an alternative semantics;
//! - [`check`]: the interpreter against published source/target files and the localism
//!   test's unrolled files;
//! - [`generator`]: seeded PCFG SET-style data with the published grammar parameters and the
//!   five tests' splits;
//! - [`evaluate`]: a model's predictions for the five tests scored with the published
//!   conventions, and the published numbers they are compared with.

pub mod check;
pub mod complexity;
pub mod evaluate;
pub mod generator;
pub mod interpreter;
pub mod localism;
pub mod naturalise;
pub mod rules;

pub use interpreter::{Expr, Function, Semantics, evaluate_sequence, parse};
