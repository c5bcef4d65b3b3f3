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
    /// The last `(lam, exp(-lam))` of the multiplication method: runs draw many values with
    /// one `lam`, and the exponential was a fifth of their Poisson time.
    last_enlam: (f64, f64),
    /// The last PTRS constants (`lam >= 10`).
    last_ptrs: PtrsConstants,
}

impl NumpyLegacy {
    /// `np.random.RandomState(array)`, e.g. a tuple seed `(s, s)`.
    pub fn from_array_seed(key: &[u32]) -> Self {
        NumpyLegacy {
            mt: Mt19937::from_key(key),
            last_enlam: (0.0, 1.0),
            last_ptrs: PtrsConstants::new(10.0),
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
        if self.last_enlam.0 != lam {
            self.last_enlam = (lam, (-lam).exp());
        }
        let enlam = self.last_enlam.1;
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
        if self.last_ptrs.lam != lam {
            self.last_ptrs = PtrsConstants::new(lam);
        }
        let c = self.last_ptrs;
        loop {
            let u = self.random_sample() - 0.5;
            let v = self.random_sample();
            let us = 0.5 - u.abs();
            let k = floor_to_i64((2.0 * c.a / us + c.b) * u + lam + 0.43);
            if us >= 0.07 && v <= c.vr {
                return k;
            }
            if k < 0 || (us < 0.013 && v > us) {
                continue;
            }
            let lhs = v.ln() + c.log_invalpha - (c.a / (us * us) + c.b).ln();
            let rhs = -lam + k as f64 * c.loglam - numpy_loggam(k as f64 + 1.0);
            if lhs <= rhs {
                return k;
            }
        }
    }
}

/// PTRS's constants of one `lam`, computed as NumPy computes them on every call (same
/// expressions, so the same bits); cached because a run draws a whole table with one `lam`.
#[derive(Debug, Clone, Copy)]
struct PtrsConstants {
    lam: f64,
    loglam: f64,
    b: f64,
    a: f64,
    vr: f64,
    log_invalpha: f64,
}

impl PtrsConstants {
    fn new(lam: f64) -> Self {
        let slam = lam.sqrt();
        let b = 0.931 + 2.53 * slam;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        PtrsConstants {
            lam,
            loglam: lam.ln(),
            b,
            a: -0.059 + 0.02483 * b,
            vr: 0.9277 - 3.6224 / (b - 2.0),
            log_invalpha: invalpha.ln(),
        }
    }
}

/// `x.floor() as i64` without the libm call that baseline x86-64 (no SSE4.1 `roundsd`) makes
/// for `floor`: truncate, then step down for negative non-integers. Equal for every `x`: in
/// range the truncation is exact; NaN gives 0 and out-of-range values saturate either way.
#[inline]
fn floor_to_i64(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) > x {
        t.saturating_sub(1)
    } else {
        t
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
    fn floor_to_i64_is_floor() {
        for x in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999_999,
            -2.000_001,
            1e18,
            -1e18,
            1e300,
            -1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -9.223_372_036_854_776e18,
        ] {
            assert_eq!(floor_to_i64(x), x.floor() as i64, "{x}");
        }
    }

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
