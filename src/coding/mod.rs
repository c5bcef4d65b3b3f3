//! coding
