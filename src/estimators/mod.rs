//! estimators
pub mod prequential;
