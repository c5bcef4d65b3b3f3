//! Ordered CommonGen (Sakai, Kamigaito, Watanabe, "Revisiting Compositional Generalization
//! Capability of Large Language Models Considering Instruction Following Ability", ACL 2025,
//! arXiv 2506.15629): generate a sentence holding four concepts in a specified order.
//!
//! - [`data`]: the 192 four-concept sets of CommonGen-lite (allenai/CommonGen-Eval), their
//!   24 orders, the six FLAN `common_gen` templates with "in the specified order" (27,648
//!   prompts) and the lemma table of the concept words (committed in `data/`, provenance in
//!   `data/README.md`);
//! - [`ask`]: the prompts through [`crate::programs::ask`]'s chat-completions client;
//! - [`score`]: coverage w/o order, ordered coverage, ordered rate, diversity across the 24
//!   orders and the POS-pattern tables; [`report`]: the tables, report.md, JSON and figure.

pub mod ask;
pub mod data;
pub mod report;
pub mod score;
