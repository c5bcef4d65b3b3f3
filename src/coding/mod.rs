//! Coding primitives. Every code length is in bits unless the name ends in `_nats`.
//!
//! - [`bits`]: nats/bits conversion and `log2` helpers;
//! - [`class_bigram`]: a two-part code of discrete sentences W over word classes (classes
//!   stated first, then every word as class given the previous class and word given class);
//! - [`skellam`]: the Skellam distribution (log-pmf accurate in the far tails, entropy, sampling);
//! - [`discretised_gaussian`]: Elmoznino et al.'s "mean, std, precision" discretised Gaussian, values on
//!   an integer grid;
//! - [`grid_gaussian`]: the univariate Gaussian mass of a grid cell (the code of one continuous
//!   value at a precision);
//! - [`multivariate`]: multivariate Gaussian codes of grid vectors (dimension by dimension
//!   through a Cholesky factor) and the shrunk covariances learned online behind them;
//! - [`predictive`]: one output's predictive distribution (grid Gaussian, mixture, categorical),
//!   closed-form relative entropies (requential coding) and exact sampling.

pub mod bits;
pub mod class_bigram;
pub mod discretised_gaussian;
pub mod grid_gaussian;
pub mod multivariate;
pub mod predictive;
pub mod skellam;
