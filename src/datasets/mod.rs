//! datasets
