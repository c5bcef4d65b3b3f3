//! Generators of synthetic datasets.
//!
//! - [`lookup_table`]: seed 004's lookup-table representations (Section 4.1, Appendix H);
//! - [`protocols`]: the seven test languages of Korbak et al. 2020;
//! - [`grammar`]: seed 004's context-free-grammar representations;
//! - [`validate`]: shared parameter checks;
//! - [`string_grid`]: seed 001's string-to-grid datasets (Python-`random` compatible).

pub mod grammar;
pub mod language_system;
pub mod lookup_table;
pub mod protocols;
pub mod string_grid;
pub mod validate;
