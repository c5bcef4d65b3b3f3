//! Draws that follow NumPy's legacy `RandomState` algorithms on an MT19937 stream, so that a
//! published NumPy experiment can be replayed value for value.
//!
//! Algorithms (as documented for NumPy's legacy generator):
//! - doubles: 53-bit `genrand_res53`;
//! - bounded integers in `[0, n)`: mask rejection on 32-bit words;
//! - Poisson: multiplication of uniforms for `lam < 10`, Hörmann's PTRS transformed rejection
//!   (1993) for `lam >= 10`, with NumPy's Stirling-series log-gamma;
//! - `choice(n, p)`: cumulative sum, normalised by its last entry, `searchsorted(side="right")`.

use super::mt19937::Mt19937;

/// A NumPy `RandomState`-compatible stream.
#[derive(Debug, Clone)]
pub struct NumpyLegacy {
    mt: Mt19937,
}

impl NumpyLegacy {
    /// `np.random.RandomState(array)`, e.g. a tuple seed `(s, s)`.
    pub fn from_array_seed(key: &[u32]) -> Self {
        NumpyLegacy {
            mt: Mt19937::from_key(key),
        }
    }

    /// `random_sample()`: uniform in [0, 1).
    pub fn random_sample(&mut self) -> f64 {
        self.mt.next_f64()
    }

    /// `randint(0, n)` for `1 <= n <= 2^32` with mask rejection.
    pub fn randint_below(&mut self, n: u64) -> u64 {
        debug_assert!((1..=1 << 32).contains(&n));
        let max = n - 1;
        if max == 0 {
            return 0;
        }
        let mut mask = max;
        for shift in [1, 2, 4, 8, 16] {
            mask |= mask >> shift;
        }
        loop {
            let v = u64::from(self.mt.next_u32()) & mask;
            if v <= max {
                return v;
            }
        }
    }

    /// `poisson(lam)`.
    pub fn poisson(&mut self, lam: f64) -> i64 {
        if lam <= 0.0 {
            0
        } else if lam >= 10.0 {
            self.poisson_ptrs(lam)
        } else {
            self.poisson_mult(lam)
        }
    }

    fn poisson_mult(&mut self, lam: f64) -> i64 {
        let enlam = (-lam).exp();
        let mut count = 0;
        let mut prod = 1.0;
        loop {
            prod *= self.random_sample();
            if prod > enlam {
                count += 1;
            } else {
                return count;
            }
        }
    }

    fn poisson_ptrs(&mut self, lam: f64) -> i64 {
        let slam = lam.sqrt();
        let loglam = lam.ln();
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = self.random_sample() - 0.5;
            let v = self.random_sample();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor() as i64;
            if us >= 0.07 && v <= vr {
                return k;
            }
            if k < 0 || (us < 0.013 && v > us) {
                continue;
            }
            let lhs = v.ln() + invalpha.ln() - (a / (us * us) + b).ln();
            let rhs = -lam + k as f64 * loglam - numpy_loggam(k as f64 + 1.0);
            if lhs <= rhs {
                return k;
            }
        }
    }
}

/// The normalised cumulative distribution NumPy's `choice` builds from `p`.
#[derive(Debug, Clone)]
pub struct NumpyCdf {
    cdf: Vec<f64>,
}

impl NumpyCdf {
    /// Sequential cumulative sum divided by its last entry, as `p.cumsum(); cdf /= cdf[-1]`.
    pub fn new(p: &[f64]) -> Self {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = p
            .iter()
            .map(|&x| {
                acc += x;
                acc
            })
            .collect();
        let last = *cdf.last().expect("non-empty probability vector");
        for c in &mut cdf {
            *c /= last;
        }
        NumpyCdf { cdf }
    }

    /// Index of the first entry strictly greater than `u` (`searchsorted(u, side="right")`).
    pub fn search_right(&self, u: f64) -> usize {
        self.cdf.partition_point(|&c| c <= u)
    }
}

/// NumPy's log-gamma used inside PTRS: a 10-term Stirling series, shifted up to x >= 7.
fn numpy_loggam(x: f64) -> f64 {
    const A: [f64; 10] = [
        8.333333333333333e-02,
        -2.777777777777778e-03,
        7.936507936507937e-04,
        -5.952380952380952e-04,
        8.417508417508418e-04,
        -1.917526917526918e-03,
        6.410_256_410_256_41e-3, // same f64 as NumPy's 6.410256410256410e-03
        -2.955065359477124e-02,
        1.796443723688307e-01,
        -1.39243221690590e+00,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = (1.0 / x0) * (1.0 / x0);
    let lg2pi = 1.837_877_066_409_345_3;
    let mut gl0 = A[9];
    for k in (0..9).rev() {
        gl0 *= x2;
        gl0 += A[k];
    }
    let mut gl = gl0 / x0 + 0.5 * lg2pi + (x0 - 0.5) * x0.ln() - x0;
    if x < 7.0 {
        for _ in 0..n {
            gl -= (x0 - 1.0).ln();
            x0 -= 1.0;
        }
    }
    gl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loggam_matches_ln_factorial() {
        // ln(9!) = ln 362880.
        assert!((numpy_loggam(10.0) - 362_880f64.ln()).abs() < 1e-12);
        assert!((numpy_loggam(4.0) - 6f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn replays_numpy_random_state() {
        // Values printed by NumPy 2.4.6: r = RandomState((0, 0)); r.poisson(5000., 4);
        // r.poisson(0.5, 6); r.randint(0, 10, size=6); r.random_sample().
        let mut r = NumpyLegacy::from_array_seed(&[0, 0]);
        let big: Vec<i64> = (0..4).map(|_| r.poisson(5000.0)).collect();
        assert_eq!(big, [4917, 4922, 4953, 4914]);
        let small: Vec<i64> = (0..6).map(|_| r.poisson(0.5)).collect();
        assert_eq!(small, [1, 0, 1, 2, 2, 0]);
        let ints: Vec<u64> = (0..6).map(|_| r.randint_below(10)).collect();
        assert_eq!(ints, [5, 6, 6, 1, 6, 9]);
        assert_eq!(r.random_sample(), 0.6147598903990517);
    }

    #[test]
    fn cdf_search_is_right_sided() {
        let cdf = NumpyCdf::new(&[0.0, 0.5, 0.0, 0.5]);
        assert_eq!(cdf.search_right(0.0), 1);
        assert_eq!(cdf.search_right(0.5), 3);
        assert_eq!(cdf.search_right(0.99), 3);
    }
}
