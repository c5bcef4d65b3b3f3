//! The mapping-table metric of the rule-generation paper (seed 001): a program an LLM wrote
//! for a string-to-grid dataset is read as a mapping table P+ of size L(P+) = sum n + sum m,
//! run on the 16 samples for its error count E(P), and scored
//! C(P) = 100 (L_z - clip(L(P), L_s, L_z)) / (L_z - L_s) with L(P) = L(P+) + (N+M) E(P).
//!
//! - [`reference`]: the published evaluator's counts, rule by rule (flaws included);
//! - [`robust`]: a mapping table measured from the AST with those flaws fixed;
//! - [`extract`]: getting the program out of an answer;
//! - [`score`]: scores and T1/T2/T3 profiles.

pub mod extract;
pub mod pyval;
pub mod reference;
pub mod robust;
pub mod score;
pub mod space;
pub mod unparse;

use serde::Serialize;

/// The four counts of a mapping table (the reference's `calculate_estimate` output).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Input-side size from dict keys.
    pub n_dict: usize,
    /// Output-side size from dict values.
    pub m_dict: usize,
    /// Input-side size from if/else paths and assignments.
    pub n_block: usize,
    /// Output-side size from '*'/'.' literals outside deleted dicts.
    pub m_block: usize,
}

/// Which parser measures the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParserMode {
    Reference,
    Robust,
}

impl ParserMode {
    /// Parses `reference|robust`.
    pub fn parse(s: &str) -> crate::Result<ParserMode> {
        match s {
            "reference" => Ok(ParserMode::Reference),
            "robust" => Ok(ParserMode::Robust),
            other => Err(crate::KcompError::param(
                "parser",
                format!("unknown parser `{other}` (expected reference or robust)"),
            )),
        }
    }
}
