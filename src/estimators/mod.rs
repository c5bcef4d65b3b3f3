//! estimators
pub mod mapping_table;
