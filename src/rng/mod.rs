//! Random-number streams.
//!
//! - [`mt19937`]: the Mersenne Twister core shared by CPython's `random` and NumPy's legacy
//!   `RandomState`, needed to reproduce published datasets and figures bit for bit;
//! - [`numpy_legacy`]: NumPy `RandomState` draws (doubles, masked bounded integers, Poisson,
//!   `choice` with probabilities) on top of MT19937;
//! - [`stream`]: the [`stream::Stream`] trait the generators draw from, with kcomp's own
//!   default stream (ChaCha8) and the NumPy-compatible one.

pub mod mt19937;
pub mod numpy_legacy;
pub mod python_random;
pub mod stream;
