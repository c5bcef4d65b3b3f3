//! The random stream every generator draws from.
//!
//! Two kinds, chosen by [`RngKind`]:
//! - `kcomp` (default): ChaCha8 seeded from a `u64`, Poisson draws from `rand_distr`; portable
//!   and independent of thread count because every run owns its stream;
//! - `numpy`: NumPy's legacy `RandomState` seeded with the array `[seed, seed]`, which is what the
//!   authors' notebook did (it passed `random_seed=(i, i)` from `enumerate`); with it the
//!   published per-seed figures are replayed exactly.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Poisson};
use serde::{Deserialize, Serialize};

use super::numpy_legacy::{NumpyCdf, NumpyLegacy};

/// Which random stream to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum RngKind {
    /// kcomp's own stream (ChaCha8).
    #[default]
    Kcomp,
    /// NumPy legacy `RandomState((seed, seed))`, the stream of the published sweeps of Elmoznino et al.
    Numpy,
}

/// A seeded random stream.
#[derive(Debug, Clone)]
pub enum Stream {
    /// ChaCha8-based stream.
    Kcomp(Box<ChaCha8Rng>),
    /// NumPy-compatible stream.
    Numpy(Box<NumpyLegacy>),
}

impl Stream {
    /// A new stream of the given kind and seed.
    pub fn new(kind: RngKind, seed: u64) -> Self {
        match kind {
            RngKind::Kcomp => Stream::Kcomp(Box::new(ChaCha8Rng::seed_from_u64(seed))),
            RngKind::Numpy => {
                let s = seed as u32;
                Stream::Numpy(Box::new(NumpyLegacy::from_array_seed(&[s, s])))
            }
        }
    }

    /// Uniform integer in `[0, n)`, `n >= 1`.
    pub fn below(&mut self, n: u64) -> u64 {
        match self {
            Stream::Kcomp(rng) => rng.random_range(0..n),
            Stream::Numpy(np) => np.randint_below(n),
        }
    }

    /// Uniform double in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        match self {
            Stream::Kcomp(rng) => rng.random::<f64>(),
            Stream::Numpy(np) => np.random_sample(),
        }
    }

    /// One Poisson(lam) draw.
    pub fn poisson(&mut self, lam: f64) -> i64 {
        match self {
            Stream::Kcomp(rng) => {
                if lam <= 0.0 {
                    0
                } else {
                    let dist = Poisson::new(lam).expect("lam validated positive and finite");
                    dist.sample(rng.as_mut()) as i64
                }
            }
            Stream::Numpy(np) => np.poisson(lam),
        }
    }

    /// `count` draws of Skellam(mu, mu) as SciPy's `skellam.rvs` does: all first Poissons, then
    /// all second Poissons, then the differences.
    pub fn skellam_symmetric(&mut self, mu: f64, count: usize) -> Vec<i64> {
        let first: Vec<i64> = (0..count).map(|_| self.poisson(mu)).collect();
        first
            .into_iter()
            .map(|a| a - self.poisson(mu))
            .collect::<Vec<_>>()
    }

    /// Index drawn from a categorical distribution given as a NumPy-style CDF.
    pub fn categorical(&mut self, cdf: &NumpyCdf) -> usize {
        cdf.search_right(self.uniform())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_stream_replays_scipy_skellam_rvs() {
        // SciPy: skellam.rvs(5000, 5000, size=(2, 3), random_state=RandomState((3, 3))), then
        // the same state's randint(0, 10, size=(2, 3)).
        let mut s = Stream::new(RngKind::Numpy, 3);
        assert_eq!(
            s.skellam_symmetric(5000.0, 6),
            [12, 149, -257, -186, -16, -250]
        );
        let ints: Vec<u64> = (0..6).map(|_| s.below(10)).collect();
        assert_eq!(ints, [9, 4, 4, 5, 9, 8]);
    }

    #[test]
    fn kcomp_stream_is_seeded() {
        let a = Stream::new(RngKind::Kcomp, 7).skellam_symmetric(0.5, 100);
        let b = Stream::new(RngKind::Kcomp, 7).skellam_symmetric(0.5, 100);
        let c = Stream::new(RngKind::Kcomp, 8).skellam_symmetric(0.5, 100);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
