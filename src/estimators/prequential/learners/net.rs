//! Networks trained online: the fast MLP and the GRU, with replay of earlier rows, an optional
//! EMA of the weights and forward calibration (see [`super::super::online`]).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::super::online::OnlineConfig;
use super::OnlineLearner;
use crate::coding::multivariate::{CovarianceCode, CovarianceSettings};
use crate::coding::predictive::OutputDist;
use crate::dataset::{Targets, TokenData};
use crate::neural::fast::{FastMlp, code_bits_from_outputs};
use crate::neural::gru::FastGru;
use crate::neural::train::Learner;
use crate::neural::{HeadSpec, StdSpec};

/// Training settings of one online network.
#[derive(Debug, Clone)]
pub struct OnlineTraining {
    pub lr: f64,
    pub lr_decay_rows: usize,
    pub epochs: f64,
    pub max_steps: usize,
    pub batch_size: usize,
    pub ema: f64,
    pub calibrate: bool,
    pub calib_window: usize,
}

impl OnlineTraining {
    /// A learner's own settings with the scheme's replay budget.
    pub fn new(
        cfg: &OnlineConfig,
        lr: f64,
        lr_decay_rows: usize,
        ema: f64,
        calibrate: bool,
    ) -> Self {
        OnlineTraining {
            lr,
            lr_decay_rows,
            epochs: cfg.epochs,
            max_steps: cfg.max_steps,
            batch_size: cfg.batch_size,
            ema,
            calibrate,
            calib_window: cfg.calib_window,
        }
    }
}

/// A network [`NetOnline`] trains: raw outputs of a head, Adam steps, flat parameters.
pub trait OnlineNet: Send {
    fn head(&self) -> HeadSpec;
    /// Raw outputs (rows x n_outputs) of the current weights.
    fn outputs(&mut self, w: &TokenData, rows: &[usize]) -> Vec<f32>;
    /// One Adam step on `rows`.
    fn step(&mut self, w: &TokenData, z: &Targets, rows: &[usize]);
    fn set_lr(&mut self, lr: f64);
    fn params(&self) -> &[f32];
    fn params_mut(&mut self) -> &mut [f32];
}

/// Both networks have these methods under the same names (`$set_lr` names the learning-rate
/// setter: the MLP's is [`Learner`]'s); the trait forwards to them.
macro_rules! online_net {
    ($t:ty, $set_lr:path) => {
        impl OnlineNet for $t {
            fn head(&self) -> HeadSpec {
                self.spec().head
            }
            fn outputs(&mut self, w: &TokenData, rows: &[usize]) -> Vec<f32> {
                <$t>::outputs(self, w, rows)
            }
            fn step(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) {
                <$t>::step(self, w, z, rows);
            }
            fn set_lr(&mut self, lr: f64) {
                $set_lr(self, lr);
            }
            fn params(&self) -> &[f32] {
                <$t>::params(self)
            }
            fn params_mut(&mut self) -> &mut [f32] {
                <$t>::params_mut(self)
            }
        }
    };
}

online_net!(FastMlp, Learner::set_lr);
online_net!(FastGru, FastGru::set_lr);

/// The fast MLP trained online.
pub type MlpOnline = NetOnline<FastMlp>;

/// A network trained online with replay, optional EMA and forward calibration.
pub struct NetOnline<N: OnlineNet> {
    net: N,
    name: String,
    cfg: OnlineTraining,
    rng: ChaCha8Rng,
    ema: Option<Vec<f32>>,
    /// Log of the std scale (Gaussian) or of the inverse temperature (categorical).
    log_scale: f64,
    /// (row, raw outputs when it was coded), most recent last, at most `calib_window`.
    history: std::collections::VecDeque<(usize, Vec<f32>)>,
    /// Gaussian heads of two or more dimensions: the correlations of the standardised
    /// residuals (residual / predicted standard deviation), learned from the rows coded, with
    /// which every row is coded dimension by dimension ([`crate::coding::multivariate`]).
    residuals: Option<CovarianceCode>,
    /// Standardised residuals of the rows coded last, for `learn`.
    pending: std::collections::HashMap<usize, Vec<f64>>,
}

impl<N: OnlineNet> NetOnline<N> {
    pub fn new(net: N, name: String, cfg: OnlineTraining, seed: u64) -> Self {
        let ema = (cfg.ema > 0.0).then(|| net.params().to_vec());
        NetOnline {
            net,
            name,
            cfg,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x05EE_D0F0_471E),
            ema,
            log_scale: 0.0,
            history: Default::default(),
            residuals: None,
            pending: Default::default(),
        }
    }

    /// Codes continuous rows with the residual covariance (Gaussian heads of two or more
    /// dimensions); `lam` is the grid.
    pub fn with_residual_covariance(mut self, lam: f64) -> Self {
        if let HeadSpec::Gaussian { dim, .. } = self.net.head()
            && dim >= 2
        {
            self.residuals = Some(CovarianceCode::new(
                dim,
                lam,
                false,
                CovarianceSettings::default(),
            ));
        }
        self
    }

    /// (mean, standard deviation) per dimension of a Gaussian head's outputs (one row).
    fn gaussian(&self, out: &[f32]) -> (Vec<f64>, Vec<f64>) {
        let HeadSpec::Gaussian { dim, std } = self.net.head() else {
            return (Vec::new(), Vec::new());
        };
        let mean = out[..dim].iter().map(|&m| m as f64).collect();
        let sd = (0..dim)
            .map(|d| match std {
                StdSpec::Fixed { std } => std,
                StdSpec::Learned { min_std } => (out[dim + d] as f64).max(min_std.ln()).exp(),
            })
            .collect();
        (mean, sd)
    }

    /// Raw outputs of the coding weights (the EMA when enabled).
    fn coding_outputs(&mut self, w: &TokenData, rows: &[usize]) -> Vec<f32> {
        match &mut self.ema {
            Some(avg) => {
                swap_params(&mut self.net, avg);
                let out = self.net.outputs(w, rows);
                swap_params(&mut self.net, avg);
                out
            }
            None => self.net.outputs(w, rows),
        }
    }

    fn history_bits(&self, z: &Targets, log_scale: f64) -> f64 {
        let head = self.net.head();
        self.history
            .iter()
            .map(|(row, out)| {
                code_bits_from_outputs(&head, z, &[*row], &scaled(&head, out, log_scale))[0]
            })
            .sum()
    }

    /// Golden-section search of the log scale on the recorded predictions (the code length is
    /// unimodal in it for both heads).
    fn fit_scale(&mut self, z: &Targets) {
        if self.history.is_empty() {
            return;
        }
        let (mut a, mut b) = (-4.0f64, 4.0f64);
        let g = 0.5 * (5f64.sqrt() - 1.0);
        let mut c = b - g * (b - a);
        let mut d = a + g * (b - a);
        let (mut fc, mut fd) = (self.history_bits(z, c), self.history_bits(z, d));
        for _ in 0..14 {
            if fc < fd {
                b = d;
                d = c;
                fd = fc;
                c = b - g * (b - a);
                fc = self.history_bits(z, c);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + g * (b - a);
                fd = self.history_bits(z, d);
            }
        }
        let x = 0.5 * (a + b);
        // Keep the identity unless the fit is better (ties, flat curves).
        if self.history_bits(z, x) < self.history_bits(z, 0.0) {
            self.log_scale = x;
        } else {
            self.log_scale = 0.0;
        }
    }
}

fn swap_params<N: OnlineNet>(net: &mut N, other: &mut [f32]) {
    net.params_mut().swap_with_slice(other);
}

/// Outputs with the calibration applied: Gaussian learned std scaled by `e^log_scale`
/// (log-std outputs shifted); categorical logits multiplied by `e^-log_scale` (temperature).
fn scaled(head: &HeadSpec, out: &[f32], log_scale: f64) -> Vec<f32> {
    let mut o = out.to_vec();
    if log_scale == 0.0 {
        return o;
    }
    match *head {
        HeadSpec::Categorical { .. } => {
            let t = (-log_scale).exp() as f32;
            o.iter_mut().for_each(|v| *v *= t);
        }
        HeadSpec::Gaussian {
            dim,
            std: StdSpec::Learned { .. },
        } => {
            let n = head.n_outputs();
            for r in o.chunks_mut(n) {
                r[dim..].iter_mut().for_each(|v| *v += log_scale as f32);
            }
        }
        HeadSpec::Gaussian {
            std: StdSpec::Fixed { .. },
            ..
        } => {}
    }
    o
}

impl<N: OnlineNet> OnlineLearner for NetOnline<N> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn block_rows(&self) -> Option<usize> {
        None
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let head = self.net.head();
        let out = self.coding_outputs(w, rows);
        let o = head.n_outputs();
        let calibrated = scaled(&head, &out, self.log_scale);
        let bits = match (&self.residuals, z) {
            (Some(_), Targets::Continuous { dim, grid, lam }) => rows
                .iter()
                .enumerate()
                .map(|(r, &row)| {
                    let (mean, sd) = self.gaussian(&calibrated[r * o..(r + 1) * o]);
                    let k = &grid[row * dim..(row + 1) * dim];
                    let e: Vec<f64> = (0..*dim)
                        .map(|d| (k[d] as f64 * lam - mean[d]) / sd[d])
                        .collect();
                    self.pending.insert(row, e);
                    let code = self.residuals.as_mut().expect("checked above");
                    code.bits_scaled(k, &mean, &sd)
                })
                .collect(),
            _ => code_bits_from_outputs(&head, z, rows, &calibrated),
        };
        if self.cfg.calibrate {
            for (r, &row) in rows.iter().enumerate() {
                self.history
                    .push_back((row, out[r * o..(r + 1) * o].to_vec()));
                if self.history.len() > self.cfg.calib_window {
                    self.history.pop_front();
                }
            }
        }
        bits
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        if self.residuals.is_some() {
            // The residuals of the new rows as they were coded (the first rows, sent naively,
            // with the current weights).
            let new = &sent[sent.len() - n_new..];
            let missing: Vec<usize> = new
                .iter()
                .copied()
                .filter(|r| !self.pending.contains_key(r))
                .collect();
            if !missing.is_empty()
                && let Targets::Continuous { dim, grid, lam } = z
            {
                let head = self.net.head();
                let o = head.n_outputs();
                let out = scaled(&head, &self.coding_outputs(w, &missing), self.log_scale);
                for (r, &row) in missing.iter().enumerate() {
                    let (mean, sd) = self.gaussian(&out[r * o..(r + 1) * o]);
                    let e = (0..*dim)
                        .map(|d| (grid[row * dim + d] as f64 * lam - mean[d]) / sd[d])
                        .collect();
                    self.pending.insert(row, e);
                }
            }
            for row in new {
                if let (Some(e), Some(code)) = (self.pending.remove(row), self.residuals.as_mut()) {
                    code.learn(&e);
                }
            }
            self.pending.clear();
        }
        let c = &self.cfg;
        let n = sent.len();
        let lr = if c.lr_decay_rows > 0 {
            c.lr / (1.0 + n as f64 / c.lr_decay_rows as f64).sqrt()
        } else {
            c.lr
        };
        self.net.set_lr(lr);
        let bs = c.batch_size;
        let new_steps = n_new.div_ceil(bs);
        let steps = ((c.epochs * n as f64 / bs as f64).ceil() as usize)
            .max(new_steps)
            .min(c.max_steps.max(new_steps));
        let new = &sent[n - n_new..];
        let mut batch = Vec::with_capacity(bs);
        for s in 0..steps {
            batch.clear();
            if s < new_steps {
                // The new block first, then replay fills the batch.
                batch.extend_from_slice(&new[s * bs..((s + 1) * bs).min(n_new)]);
            }
            while batch.len() < bs.min(n) {
                batch.push(sent[self.rng.random_range(0..n)]);
            }
            self.net.step(w, z, &batch);
            if let Some(avg) = &mut self.ema {
                let d = self.cfg.ema as f32;
                for (a, &p) in avg.iter_mut().zip(self.net.params()) {
                    *a = d * *a + (1.0 - d) * p;
                }
            }
        }
        if self.cfg.calibrate {
            self.fit_scale(z);
        }
    }

    /// The head's distributions under the coding weights and the calibration, as `code`
    /// uses them: a softmax per attribute, or a Gaussian per dimension (std floored as the
    /// code floors it).
    fn predictive(
        &mut self,
        w: &TokenData,
        z: &Targets,
        rows: &[usize],
    ) -> Option<Vec<Vec<OutputDist>>> {
        let head = self.net.head();
        let out = scaled(&head, &self.coding_outputs(w, rows), self.log_scale);
        let o = head.n_outputs();
        let res = match (head, z) {
            (HeadSpec::Categorical { n_attr, n_vals }, Targets::Discrete { .. }) => {
                let mut logp = vec![0.0; n_vals];
                (0..rows.len())
                    .map(|r| {
                        (0..n_attr)
                            .map(|a| {
                                let base = r * o + a * n_vals;
                                crate::neural::likelihood::log_softmax(
                                    &out[base..base + n_vals],
                                    &mut logp,
                                );
                                OutputDist::Categorical(logp.iter().map(|l| l.exp()).collect())
                            })
                            .collect()
                    })
                    .collect()
            }
            (HeadSpec::Gaussian { dim, std }, Targets::Continuous { lam, .. }) => (0..rows.len())
                .map(|r| {
                    (0..dim)
                        .map(|d| {
                            let mu = out[r * o + d] as f64;
                            let sigma = match std {
                                StdSpec::Fixed { std } => std,
                                StdSpec::Learned { min_std } => {
                                    (out[r * o + dim + d] as f64).max(min_std.ln()).exp()
                                }
                            };
                            OutputDist::Gaussian {
                                mean: mu / lam,
                                sd: sigma / lam,
                            }
                        })
                        .collect()
                })
                .collect(),
            _ => return None,
        };
        Some(res)
    }
}
