//! Random-number streams.
//!
//! - [`mt19937`]: the Mersenne Twister core shared by CPython's `random` and NumPy's legacy
//!   `RandomState`, needed to reproduce published datasets and figures bit for bit;
//! - [`numpy_legacy`]: NumPy `RandomState` draws (doubles, masked bounded integers, Poisson,
//!   `choice` with probabilities) on top of MT19937;
//! - [`stream`]: the [`stream::Stream`] trait the generators draw from, with kcomp's own
//!   default stream (ChaCha8) and the NumPy-compatible one.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// Fisher-Yates from the last element down, each swap partner `random_range(0..=i)`. Hand-
/// written because every committed dataset, row order and result was drawn with this stream;
/// rand's `SliceRandom::shuffle` draws its indices differently and would change them all.
pub fn shuffle<T>(v: &mut [T], rng: &mut ChaCha8Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}

pub mod mt19937;
pub mod numpy_legacy;
pub mod python_random;
pub mod stream;
