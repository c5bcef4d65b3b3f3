//! sweeps
