//! datasets
pub mod language_system;
