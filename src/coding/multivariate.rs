//! Multivariate Gaussian codes of continuous vectors on the grid of spacing `lam`, and the
//! covariance they are learned from online.
//!
//! A vector of grid indices `k` (value `k lam` per dimension) is coded **dimension by
//! dimension**: dimension `d` is a discretised univariate Gaussian
//! ([`super::grid_gaussian::grid_gaussian_nll_nats`]) whose mean and standard deviation are
//! those of N(mean, scale^2 L L^T) given the earlier dimensions' *decoded grid values*. With the
//! Cholesky factor `L` this is a forward substitution: `e_j = (k_j lam - m_j) / (scale L_jj)`,
//! `m_d = mean_d + scale sum_{j<d} L_dj e_j`, standard deviation `scale L_dd`. Every conditional
//! is a proper distribution over the integers (its cell masses sum to 1), so the product sums
//! to 1 over all grid vectors: a real code on the grid, not a density, for any positive
//! definite covariance. For `lam` far below the conditional standard deviations it is the
//! multivariate Gaussian density times `lam^D`.
//!
//! [`OnlineCovariance`] accumulates second moments row by row; [`OnlineCovariance::shrunk`]
//! turns them into a covariance shrunk towards its diagonal (weight `c D / n`: with few rows a
//! full D x D estimate is noise), and [`CovarianceCode`] is what learners use: the residual
//! covariance learned from the rows they coded, refactorised as rows accumulate.

use nalgebra::DMatrix;

use super::grid_gaussian::grid_gaussian_nll_nats;

/// A Cholesky factor `L` (lower triangular, rows packed: row `d` holds `d + 1` entries) of a
/// D x D covariance, and the sequential grid code it defines.
#[derive(Debug, Clone, PartialEq)]
pub struct GaussianFactor {
    dim: usize,
    packed: Vec<f64>,
}

/// Offset of row `d` in a packed lower triangle.
fn row_start(d: usize) -> usize {
    d * (d + 1) / 2
}

impl GaussianFactor {
    /// The factor of a diagonal covariance (`var[d] > 0`).
    pub fn diagonal(var: &[f64]) -> Self {
        let dim = var.len();
        let mut packed = vec![0.0; row_start(dim)];
        for (d, &v) in var.iter().enumerate() {
            packed[row_start(d) + d] = v.sqrt();
        }
        GaussianFactor { dim, packed }
    }

    /// The Cholesky factor of `cov` (D x D, row-major, symmetric); `None` when it is not
    /// positive definite (or not finite).
    pub fn from_covariance(cov: &[f64], dim: usize) -> Option<Self> {
        if cov.len() != dim * dim || cov.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let chol = DMatrix::from_row_slice(dim, dim, cov).cholesky()?;
        let l = chol.l();
        let mut packed = Vec::with_capacity(row_start(dim));
        for d in 0..dim {
            for j in 0..=d {
                packed.push(l[(d, j)]);
            }
        }
        if packed.iter().any(|v| !v.is_finite())
            || (0..dim).any(|d| packed[row_start(d) + d] <= 0.0)
        {
            return None;
        }
        Some(GaussianFactor { dim, packed })
    }

    /// Dimensions.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// `L_dj`, `j <= d`.
    pub fn entry(&self, d: usize, j: usize) -> f64 {
        debug_assert!(j <= d);
        self.packed[row_start(d) + j]
    }

    /// log2 of the determinant of `L L^T` (for closed forms in tests and reports).
    pub fn log2_det(&self) -> f64 {
        (0..self.dim)
            .map(|d| 2.0 * self.packed[row_start(d) + d].log2())
            .sum()
    }

    /// Bits of the grid vector `k` under N(`mean`, `scale`^2 L L^T), dimensions coded in
    /// sequence, each given the decoded earlier ones. `scratch` (length D) holds the
    /// standardised values.
    pub fn bits(
        &self,
        k: &[i64],
        lam: f64,
        mean: &[f64],
        scale: f64,
        scratch: &mut Vec<f64>,
    ) -> f64 {
        debug_assert_eq!(k.len(), self.dim);
        debug_assert_eq!(mean.len(), self.dim);
        scratch.clear();
        scratch.resize(self.dim, 0.0);
        let mut nats = 0.0;
        for d in 0..self.dim {
            let row = &self.packed[row_start(d)..row_start(d + 1)];
            let m = mean[d] + scale * dot(&row[..d], &scratch[..d]);
            let sd = scale * row[d];
            nats += grid_gaussian_nll_nats(k[d], lam, m, sd);
            scratch[d] = (k[d] as f64 * lam - m) / sd;
        }
        nats / std::f64::consts::LN_2
    }

    /// Bits of `k` under N(`mean`, S L L^T S) with S = diag(`scales`): the factor's rows scaled
    /// per dimension (a model that predicts each dimension's standard deviation, the factor
    /// holding the correlations of its standardised residuals).
    pub fn bits_scaled(
        &self,
        k: &[i64],
        lam: f64,
        mean: &[f64],
        scales: &[f64],
        scratch: &mut Vec<f64>,
    ) -> f64 {
        debug_assert_eq!(scales.len(), self.dim);
        scratch.clear();
        scratch.resize(self.dim, 0.0);
        let mut nats = 0.0;
        for d in 0..self.dim {
            let row = &self.packed[row_start(d)..row_start(d + 1)];
            let m = mean[d] + scales[d] * dot(&row[..d], &scratch[..d]);
            let sd = scales[d] * row[d];
            nats += grid_gaussian_nll_nats(k[d], lam, m, sd);
            scratch[d] = (k[d] as f64 * lam - m) / sd;
        }
        nats / std::f64::consts::LN_2
    }

    /// The conditional (mean, standard deviation) of each dimension given the earlier ones at
    /// `k` (what [`Self::bits`] codes with).
    pub fn conditionals(&self, k: &[i64], lam: f64, mean: &[f64], scale: f64) -> Vec<(f64, f64)> {
        let mut e = vec![0.0; self.dim];
        (0..self.dim)
            .map(|d| {
                let row = &self.packed[row_start(d)..row_start(d + 1)];
                let m = mean[d] + scale * dot(&row[..d], &e[..d]);
                let sd = scale * row[d];
                e[d] = (k[d] as f64 * lam - m) / sd;
                (m, sd)
            })
            .collect()
    }
}

/// Dot product with four independent accumulators (vectorises; the order is fixed, so the
/// result does not depend on the machine's thread count).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let chunks = a.len() / 4;
    for i in 0..chunks {
        for l in 0..4 {
            acc[l] += a[4 * i + l] * b[4 * i + l];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for i in 4 * chunks..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// Second moments of vectors added one at a time: centred on their running mean (Welford) or
/// about zero (residuals of a model that predicts the mean).
#[derive(Debug, Clone, PartialEq)]
pub struct OnlineCovariance {
    dim: usize,
    centred: bool,
    n: f64,
    mean: Vec<f64>,
    /// Upper triangle of the (co-)moment sum, row-major D x D (the lower half is unused).
    m2: Vec<f64>,
    delta: Vec<f64>,
}

impl OnlineCovariance {
    pub fn new(dim: usize, centred: bool) -> Self {
        OnlineCovariance {
            dim,
            centred,
            n: 0.0,
            mean: vec![0.0; dim],
            m2: vec![0.0; dim * dim],
            delta: vec![0.0; dim],
        }
    }

    /// Rows added.
    pub fn n(&self) -> f64 {
        self.n
    }

    /// Running mean (zero when not centred).
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Adds one vector, after multiplying the moments so far by `forget` (1 = keep them all;
    /// below 1 an exponential window of about 1 / (1 - forget) rows, for residuals of a model
    /// that improves). Centred moments ignore `forget`.
    pub fn add_forgetting(&mut self, x: &[f64], forget: f64) {
        if forget < 1.0 && !self.centred {
            self.n *= forget;
            self.m2.iter_mut().for_each(|v| *v *= forget);
        }
        self.add(x);
    }

    /// Adds one vector.
    pub fn add(&mut self, x: &[f64]) {
        debug_assert_eq!(x.len(), self.dim);
        self.n += 1.0;
        let d = self.dim;
        if self.centred {
            // Welford: m2 += (x - mean_old) (x - mean_new)^T, symmetric in exact arithmetic.
            for ((dl, m), &xi) in self.delta.iter_mut().zip(&mut self.mean).zip(x) {
                *dl = xi - *m;
                *m += *dl / self.n;
            }
            for (i, (&xi, &m)) in x.iter().zip(&self.mean).enumerate() {
                let a = xi - m;
                let row = &mut self.m2[i * d..(i + 1) * d];
                for (r, &dl) in row[i..].iter_mut().zip(&self.delta[i..]) {
                    *r += a * dl;
                }
            }
        } else {
            for (i, &a) in x.iter().enumerate() {
                let row = &mut self.m2[i * d..(i + 1) * d];
                for (r, &xj) in row[i..].iter_mut().zip(&x[i..]) {
                    *r += a * xj;
                }
            }
        }
    }

    /// Variance of each dimension (moment sum / n; zero before any row).
    pub fn variances(&self) -> Vec<f64> {
        let n = self.n.max(1.0);
        (0..self.dim)
            .map(|i| self.m2[i * self.dim + i] / n)
            .collect()
    }

    /// The covariance (moment sum / n) shrunk towards its diagonal with weight
    /// `min(1, shrink D / n)`, plus `floor` on the diagonal; row-major D x D.
    pub fn shrunk(&self, shrink: f64, floor: f64) -> Vec<f64> {
        let d = self.dim;
        let n = self.n.max(1.0);
        let w = (shrink * d as f64 / n).min(1.0);
        let mut c = vec![0.0; d * d];
        for i in 0..d {
            c[i * d + i] = self.m2[i * d + i] / n + floor;
            for j in i + 1..d {
                let v = (1.0 - w) * self.m2[i * d + j] / n;
                c[i * d + j] = v;
                c[j * d + i] = v;
            }
        }
        c
    }
}

/// log2(2^a + 2^b), without overflow.
fn log2_add(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + ((a - m).exp2() + (b - m).exp2()).log2()
}

/// Settings of a [`CovarianceCode`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CovarianceSettings {
    /// Shrinkage towards the diagonal: weight `min(1, shrink D / n)`.
    pub shrink: f64,
    /// Refactorise when the rows seen have grown by this fraction since the last factor.
    pub refresh_growth: f64,
    /// Weight of the moments so far at each new row (1 = all rows count alike; see
    /// [`OnlineCovariance::add_forgetting`]).
    pub forget: f64,
    /// Code every row ([`CovarianceCode::bits`]) by a Bayesian mixture, prior 1/2 each, of the
    /// shrunk covariance and a per-dimension code: at most 1 bit above the better of the two
    /// over the stream, for learners whose covariance comes from few rows (a window) where the
    /// dimensions may well be independent. The per-dimension code is refreshed at every row
    /// (O(D), unlike the factorisation), plug-in variances without the quantisation floor (the
    /// residuals of grid values hold it already) and standard deviations of at least a quarter
    /// of a grid step: the code the Bayesian linear learners had before the covariance, which
    /// the mixture therefore never exceeds by more than 1 bit.
    pub mix_diagonal: bool,
}

impl Default for CovarianceSettings {
    fn default() -> Self {
        CovarianceSettings {
            shrink: 0.5,
            refresh_growth: 0.1,
            forget: 1.0,
            mix_diagonal: false,
        }
    }
}

/// A multivariate code of continuous rows learned online: the covariance of the (standardised)
/// residuals a learner saw, shrunk and factorised; each row is coded with the learner's mean and
/// a per-row scale (e.g. `sqrt(1 + h)` of a Bayesian linear model) before it is learned.
#[derive(Debug, Clone)]
pub struct CovarianceCode {
    moments: OnlineCovariance,
    settings: CovarianceSettings,
    lam: f64,
    factor: Option<GaussianFactor>,
    /// log2 weights of (diagonal, full) in the mixture, and the bits each gave the rows coded
    /// and not yet learned, oldest first (`mix_diagonal`).
    log_w: [f64; 2],
    pending: std::collections::VecDeque<[f64; 2]>,
    factored_at: f64,
    /// Rows learned since the last factorisation.
    rows_since: f64,
    scratch: Vec<f64>,
}

impl CovarianceCode {
    /// `centred`: the code predicts the running mean itself (a code of Z without W); else the
    /// caller gives the mean and the moments are of residuals about it.
    pub fn new(dim: usize, lam: f64, centred: bool, settings: CovarianceSettings) -> Self {
        CovarianceCode {
            moments: OnlineCovariance::new(dim, centred),
            settings,
            lam,
            factor: None,
            log_w: [-1.0, -1.0],
            pending: std::collections::VecDeque::new(),
            factored_at: 0.0,
            rows_since: 0.0,
            scratch: Vec::with_capacity(dim),
        }
    }

    /// Rows learned.
    pub fn n(&self) -> f64 {
        self.moments.n()
    }

    /// The running mean (a centred code's own prediction).
    pub fn mean(&self) -> &[f64] {
        self.moments.mean()
    }

    /// Per-dimension predictive variances (value units): the running variances plus the grid's
    /// quantisation floor, times (n + 1) / n; `None` before any row. The marginals of this code
    /// (requential coding compares per-output predictives in closed form).
    pub fn marginal_variances(&self) -> Option<Vec<f64>> {
        let n = self.moments.n();
        if n <= 0.0 {
            return None;
        }
        let floor = self.floor();
        Some(
            self.moments
                .variances()
                .iter()
                .map(|v| (v + floor) * (n + 1.0) / n)
                .collect(),
        )
    }

    /// Quantisation variance of the grid: the floor of every variance (a constant dimension
    /// costs about nothing but its code stays proper).
    fn floor(&self) -> f64 {
        self.lam * self.lam / 12.0
    }

    fn refresh(&mut self) {
        let n = self.moments.n();
        let due = if self.settings.forget < 1.0 {
            // A window: refactorise every tenth of its length.
            self.rows_since >= (0.1 / (1.0 - self.settings.forget)).max(1.0)
        } else {
            n >= self.factored_at * (1.0 + self.settings.refresh_growth)
        };
        if self.factor.is_some() && !due {
            return;
        }
        self.rows_since = 0.0;
        let d = self.moments.dim;
        let floor = self.floor();
        // With no more rows than the shrinkage needs the covariance is its diagonal: no
        // factorisation.
        let diag_only = self.settings.shrink * d as f64 >= n;
        self.factor = if n < 1.0 {
            None
        } else if diag_only {
            let v: Vec<f64> = self.moments.variances().iter().map(|v| v + floor).collect();
            Some(GaussianFactor::diagonal(&v))
        } else {
            let cov = self.moments.shrunk(self.settings.shrink, floor);
            GaussianFactor::from_covariance(&cov, d).or_else(|| {
                let v: Vec<f64> = self.moments.variances().iter().map(|v| v + floor).collect();
                Some(GaussianFactor::diagonal(&v))
            })
        };
        self.factored_at = n;
    }

    /// Bits of the grid row `k` with mean `mean` (ignored for a centred code, which uses its
    /// running mean) and the learned covariance scaled by `scale^2`. Before any row was learned
    /// every dimension gets standard deviation `fallback_sd`.
    pub fn bits(&mut self, k: &[i64], mean: Option<&[f64]>, scale: f64, fallback_sd: f64) -> f64 {
        self.refresh();
        let n = self.moments.n();
        let own_mean;
        let mean = match mean {
            Some(m) if !self.moments.centred => m,
            _ => {
                own_mean = self.moments.mean().to_vec();
                &own_mean
            }
        };
        match &self.factor {
            Some(f) => {
                // A plug-in variance from n rows understates the predictive one: (n + 1) / n.
                let s = scale * ((n + 1.0) / n).sqrt();
                let full = f.bits(k, self.lam, mean, s, &mut self.scratch);
                if !self.settings.mix_diagonal {
                    return full;
                }
                let b = [self.per_dimension_bits(k, mean, scale), full];
                self.pending.push_back(b);
                let [wd, wf] = self.log_w;
                -log2_add(wd - b[0], wf - b[1])
            }
            None => {
                let f = GaussianFactor::diagonal(&vec![fallback_sd * fallback_sd; k.len()]);
                f.bits(k, self.lam, mean, scale, &mut self.scratch)
            }
        }
    }

    /// Bits of `k` under independent dimensions with the current plug-in variances times
    /// `scale^2` (no floor, no (n + 1) / n), standard deviations at least `lam / 4` (the
    /// per-dimension side of `mix_diagonal`).
    fn per_dimension_bits(&self, k: &[i64], mean: &[f64], scale: f64) -> f64 {
        let nats: f64 = self
            .moments
            .variances()
            .iter()
            .zip(k.iter().zip(mean))
            .map(|(&v, (&kd, &m))| {
                let sd = (scale * v.sqrt()).max(0.25 * self.lam);
                grid_gaussian_nll_nats(kd, self.lam, m, sd)
            })
            .sum();
        nats / std::f64::consts::LN_2
    }

    /// Bits of the grid row `k` with mean `mean` and per-dimension scales `scales` (the
    /// learned covariance is of residuals divided by them); before any row was learned the
    /// dimensions are coded independently with standard deviations `scales`.
    pub fn bits_scaled(&mut self, k: &[i64], mean: &[f64], scales: &[f64]) -> f64 {
        self.refresh();
        let n = self.moments.n();
        match &self.factor {
            Some(f) => {
                let s = ((n + 1.0) / n).sqrt();
                let scaled: Vec<f64> = scales.iter().map(|x| x * s).collect();
                f.bits_scaled(k, self.lam, mean, &scaled, &mut self.scratch)
            }
            None => {
                let f = GaussianFactor::diagonal(&vec![1.0; k.len()]);
                f.bits_scaled(k, self.lam, mean, scales, &mut self.scratch)
            }
        }
    }

    /// Learns a row: the residual (already divided by the row's scale) or, for a centred code,
    /// the row's values.
    pub fn learn(&mut self, x: &[f64]) {
        // The mixture's weights move by the bits the row got when it was coded (rows learned
        // without being coded, the first block, leave them).
        if let Some(b) = self.pending.pop_front() {
            let w = [self.log_w[0] - b[0], self.log_w[1] - b[1]];
            let tot = log2_add(w[0], w[1]);
            if tot.is_finite() {
                self.log_w = [w[0] - tot, w[1] - tot];
            }
        }
        self.moments.add_forgetting(x, self.settings.forget);
        self.rows_since += 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequential code of a 2-D Gaussian against the closed-form conditional:
    /// x2 | x1 ~ N(m2 + rho s2/s1 (x1 - m1), s2^2 (1 - rho^2)).
    #[test]
    fn two_dimensions_match_the_closed_form_conditional() {
        let (s1, s2, rho) = (0.3, 0.2, 0.7);
        let cov = [s1 * s1, rho * s1 * s2, rho * s1 * s2, s2 * s2];
        let f = GaussianFactor::from_covariance(&cov, 2).unwrap();
        let (lam, mean) = (0.01, [0.1, -0.05]);
        let mut scratch = Vec::new();
        for k in [[3i64, -4], [40, 12], [-25, -30]] {
            let x1 = k[0] as f64 * lam;
            let m2 = mean[1] + rho * s2 / s1 * (x1 - mean[0]);
            let sd2 = s2 * (1.0 - rho * rho).sqrt();
            let want = (grid_gaussian_nll_nats(k[0], lam, mean[0], s1)
                + grid_gaussian_nll_nats(k[1], lam, m2, sd2))
                / std::f64::consts::LN_2;
            let got = f.bits(&k, lam, &mean, 1.0, &mut scratch);
            assert!((got - want).abs() < 1e-10, "{got} vs {want}");
        }
    }

    /// For a fine grid the code is -log2 of the multivariate normal density times lam^D.
    #[test]
    fn fine_grid_matches_the_density() {
        let d = 3;
        let cov = [1.0, 0.5, 0.2, 0.5, 2.0, -0.3, 0.2, -0.3, 0.8];
        let f = GaussianFactor::from_covariance(&cov, d).unwrap();
        let lam: f64 = 1e-4;
        let mean = [0.2, -0.1, 0.3];
        let x = [0.7, 0.4, -0.5];
        let k: Vec<i64> = x.iter().map(|v| (v / lam).round() as i64).collect();
        let xg: Vec<f64> = k.iter().map(|&v| v as f64 * lam).collect();
        // Closed form: 0.5 (x - m)^T S^-1 (x - m) + 0.5 ln det(2 pi S) - D ln lam, in bits.
        let s = DMatrix::from_row_slice(d, d, &cov);
        let inv = s.clone().try_inverse().unwrap();
        let r = nalgebra::DVector::from_iterator(d, xg.iter().zip(&mean).map(|(a, b)| a - b));
        let quad = (r.transpose() * &inv * &r)[(0, 0)];
        let nats = 0.5 * quad
            + 0.5 * (s.determinant() * (2.0 * std::f64::consts::PI).powi(d as i32)).ln()
            - d as f64 * lam.ln();
        let want = nats / std::f64::consts::LN_2;
        let got = f.bits(&k, lam, &mean, 1.0, &mut Vec::new());
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        assert!((f.log2_det() - s.determinant().log2()).abs() < 1e-9);
    }

    /// Kraft: the probabilities of every grid vector in a box that holds all but a negligible
    /// mass sum to 1 (coarse grid, strong correlation, a scale).
    #[test]
    fn probabilities_sum_to_one_over_the_grid() {
        let cov = [0.09, 0.05, 0.05, 0.04];
        let f = GaussianFactor::from_covariance(&cov, 2).unwrap();
        let (lam, mean) = (0.1, [0.05, -0.12]);
        let mut scratch = Vec::new();
        let mut total = 0.0;
        for a in -40i64..=40 {
            for b in -40i64..=40 {
                total += (-f.bits(&[a, b], lam, &mean, 1.3, &mut scratch)).exp2();
            }
        }
        assert!((total - 1.0).abs() < 1e-9, "{total}");
    }

    /// `mix_diagonal`: the stream costs at most 1 bit more than the better of the full and the
    /// diagonal code alone (Bayesian mixture, prior 1/2), on independent and on correlated
    /// dimensions, every row coded before it is learned.
    #[test]
    fn diagonal_mixture_is_within_one_bit_of_the_better_code() {
        let lam: f64 = 0.01;
        for rho in [0.0, 0.9] {
            let settings = |mix_diagonal, shrink| CovarianceSettings {
                shrink,
                forget: 0.99,
                mix_diagonal,
                ..Default::default()
            };
            // Diagonal alone: shrinkage weight 1 at every n.
            let mut codes = [
                CovarianceCode::new(4, lam, false, settings(true, 0.5)),
                CovarianceCode::new(4, lam, false, settings(false, 0.5)),
                CovarianceCode::new(4, lam, false, settings(false, 1e9)),
            ];
            let mut totals = [0.0; 3];
            let mut state = 12345u64;
            let mut uniform = || {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
            };
            for _ in 0..400 {
                let common = uniform() - 0.5;
                let x: Vec<f64> = (0..4)
                    .map(|_| 0.2 * (rho * common + (1.0 - rho) * (uniform() - 0.5)))
                    .collect();
                let k: Vec<i64> = x.iter().map(|v| (v / lam).round() as i64).collect();
                let xq: Vec<f64> = k.iter().map(|&v| v as f64 * lam).collect();
                for (c, t) in codes.iter_mut().zip(&mut totals) {
                    *t += c.bits(&k, Some(&[0.0; 4]), 1.0, 0.1);
                    c.learn(&xq);
                }
            }
            let best = totals[1].min(totals[2]);
            assert!(totals[0] <= best + 1.0 + 1e-9, "rho {rho}: {totals:?}");
        }
    }

    #[test]
    fn moments_match_a_direct_computation() {
        let rows = [
            [1.0, 2.0, 0.5],
            [0.3, -1.0, 2.0],
            [2.5, 0.0, -1.0],
            [0.7, 0.4, 0.1],
        ];
        let mut c = OnlineCovariance::new(3, true);
        let mut u = OnlineCovariance::new(3, false);
        for r in &rows {
            c.add(r);
            u.add(r);
        }
        let n = rows.len() as f64;
        let mean: Vec<f64> = (0..3)
            .map(|j| rows.iter().map(|r| r[j]).sum::<f64>() / n)
            .collect();
        let full = c.shrunk(0.0, 0.0);
        let raw = u.shrunk(0.0, 0.0);
        for i in 0..3 {
            for j in 0..3 {
                let cv: f64 = rows
                    .iter()
                    .map(|r| (r[i] - mean[i]) * (r[j] - mean[j]))
                    .sum::<f64>()
                    / n;
                let rv: f64 = rows.iter().map(|r| r[i] * r[j]).sum::<f64>() / n;
                assert!((full[i * 3 + j] - cv).abs() < 1e-12);
                assert!((raw[i * 3 + j] - rv).abs() < 1e-12);
            }
        }
        // Shrinkage weight min(1, 0.5 * 3 / 4) on the off-diagonal entries.
        let s = c.shrunk(0.5, 0.0);
        assert!((s[1] - full[1] * (1.0 - 0.375)).abs() < 1e-12);
        assert_eq!(s[0], full[0]);
    }

    /// Per-dimension scales are the factor S L: the same as the covariance S L L^T S factored.
    #[test]
    fn scaled_rows_match_the_scaled_covariance() {
        let cov = [1.0, 0.6, 0.6, 1.0];
        let f = GaussianFactor::from_covariance(&cov, 2).unwrap();
        let s = [0.3, 0.05];
        let full = [
            cov[0] * s[0] * s[0],
            cov[1] * s[0] * s[1],
            cov[2] * s[1] * s[0],
            cov[3] * s[1] * s[1],
        ];
        let g = GaussianFactor::from_covariance(&full, 2).unwrap();
        let (k, mean) = ([12i64, -3], [0.05, 0.0]);
        let a = f.bits_scaled(&k, 0.01, &mean, &s, &mut Vec::new());
        let b = g.bits(&k, 0.01, &mean, 1.0, &mut Vec::new());
        assert!((a - b).abs() < 1e-10, "{a} vs {b}");
    }

    #[test]
    fn not_positive_definite_is_refused() {
        assert!(GaussianFactor::from_covariance(&[1.0, 2.0, 2.0, 1.0], 2).is_none());
        assert!(GaussianFactor::from_covariance(&[1.0, f64::NAN, f64::NAN, 1.0], 2).is_none());
    }
}
