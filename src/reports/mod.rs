//! Batch reports over LLM answer trees: summaries, Mann-Whitney U tests and plots.
