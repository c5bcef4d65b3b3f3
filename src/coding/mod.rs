//! Coding primitives. Every code length is in bits unless the name ends in `_nats`.
//!
//! - [`bits`]: nats/bits conversion and `log2` helpers;
//! - [`skellam`]: the Skellam distribution (log-pmf accurate in the far tails, entropy, sampling);
//! - [`discretised_gaussian`]: Elmoznino et al.'s "mean, std, precision" discretised Gaussian, values on
//!   an integer grid;
//! - [`predictive`]: one output's predictive distribution (grid Gaussian, mixture, categorical),
//!   closed-form relative entropies (requential coding) and exact sampling.

pub mod bits;
pub mod discretised_gaussian;
pub mod predictive;
pub mod skellam;
