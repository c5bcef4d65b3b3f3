//! grammar
