//! Scoring LLM-written programs (the rule-generation pipeline of Xu et al., "Estimating the
//! compositionality of rules with Kolmogorov complexity", ACL 2026). These score *programs*, not
//! datasets, so they live apart from `crate::estimators`; nothing in `estimators` imports them.
//!
//! - [`mapping_table`]: answer extraction, the reference and robust parsers, the mapping table
//!   P+ and its scores E(P), L(P+), C(P);
//! - [`sandbox`]: the OS-enforced sandbox that runs the untrusted programs;
//! - [`reports`]: the grid report over answer trees (tables and figures per model x setting);
//! - [`ask`]: `kcomp grid ask`, the chat-completions client that collects answers.

pub mod ask;
pub mod mapping_table;
pub mod reports;
pub mod sandbox;
