//! datasets
pub mod string_grid;
