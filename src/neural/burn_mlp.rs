//! The model family written with burn 0.22 (the general path; GPU with `gpu-wgpu`).
//!
//! Parameters are initialised from the fast path's initialisation with the same seed, and
//! dropout masks come from a seeded ChaCha8 stream, so runs are deterministic and, without
//! dropout, give the same code lengths as [`super::fast::FastMlp`] up to float rounding.

use burn::module::{Module, Param};
use burn::nn::{Embedding, Linear};
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Int, Tensor, TensorData, activation};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::fast::{FastMlp, code_bits_from_outputs};
use super::train::Learner;
use super::{HeadSpec, MlpSpec, StdSpec};
use crate::dataset::{Targets, TokenData};

const LN_2PI_HALF: f64 = 0.918_938_533_204_672_8;
const EVAL_BATCH: usize = 512;

#[derive(Module, Debug)]
struct Net {
    emb: Embedding,
    layers: Vec<Linear>,
}

/// The device burn runs on: flex (CPU) with autodiff, or wgpu with the `gpu-wgpu` feature.
pub fn training_device() -> Device {
    #[cfg(feature = "gpu-wgpu")]
    {
        Device::wgpu(Default::default()).autodiff()
    }
    #[cfg(not(feature = "gpu-wgpu"))]
    {
        Device::flex().autodiff()
    }
}

/// The burn implementation of the model family, with its Adam optimiser.
pub struct BurnMlp {
    spec: MlpSpec,
    net: Option<Net>,
    best: Option<Net>,
    optim: ModuleOptimizer,
    device: Device,
    lr: f64,
    rng: ChaCha8Rng,
}

impl BurnMlp {
    /// A model initialised exactly as `FastMlp::new(spec, lr, seed)`.
    pub fn new(spec: &MlpSpec, lr: f64, seed: u64) -> Self {
        let fast = FastMlp::new(spec, lr, seed);
        Self::from_fast(&fast, lr, seed)
    }

    /// A model with the parameters of `fast`.
    pub fn from_fast(fast: &FastMlp, lr: f64, seed: u64) -> Self {
        let spec = fast.spec().clone();
        let device = training_device();
        let p = fast.params();
        let n_emb = spec.vocab * spec.emb_dim;
        let emb = Embedding {
            weight: Param::from_data(
                TensorData::new(p[..n_emb].to_vec(), [spec.vocab, spec.emb_dim]),
                &device,
            ),
        };
        let widths = spec.widths();
        let layers = fast
            .layer_offsets()
            .into_iter()
            .enumerate()
            .map(|(l, (wo, bo))| {
                let (fi, fo) = (widths[l], widths[l + 1]);
                Linear {
                    weight: Param::from_data(
                        TensorData::new(p[wo..wo + fi * fo].to_vec(), [fi, fo]),
                        &device,
                    ),
                    bias: Some(Param::from_data(
                        TensorData::new(p[bo..bo + fo].to_vec(), [fo]),
                        &device,
                    )),
                }
            })
            .collect();
        BurnMlp {
            spec,
            net: Some(Net { emb, layers }),
            best: None,
            optim: AdamConfig::new().with_epsilon(1e-8).init(),
            device,
            lr,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x9E37_79B9_7F4A_7C15),
        }
    }

    fn tokens(&self, w: &TokenData, rows: &[usize], device: &Device) -> Tensor<2, Int> {
        let mut t = Vec::with_capacity(rows.len() * w.n_words);
        for &r in rows {
            t.extend(w.row(r).iter().map(|&x| x as i64));
        }
        Tensor::from_data(TensorData::new(t, [rows.len(), w.n_words]), device)
    }

    fn forward(&mut self, net: &Net, tok: Tensor<2, Int>, train: bool, dev: &Device) -> Tensor<2> {
        let bsz = tok.dims()[0];
        let mut x: Tensor<2> = net.emb.forward(tok).reshape([bsz, self.spec.input_dim()]);
        let nl = net.layers.len();
        let p = self.spec.dropout;
        for (l, layer) in net.layers.iter().enumerate() {
            x = layer.forward(x);
            if l + 1 < nl {
                x = activation::relu(x);
                if train && p > 0.0 {
                    let width = self.spec.hidden[l];
                    let scale = (1.0 / (1.0 - p)) as f32;
                    let mask: Vec<f32> = (0..bsz * width)
                        .map(|_| {
                            if self.rng.random::<f32>() >= p as f32 {
                                scale
                            } else {
                                0.0
                            }
                        })
                        .collect();
                    x = x * Tensor::from_data(TensorData::new(mask, [bsz, width]), dev);
                }
            }
        }
        x
    }

    fn loss(&self, out: Tensor<2>, z: &Targets, rows: &[usize], dev: &Device) -> Tensor<1> {
        let bsz = rows.len();
        match (self.spec.head, z) {
            (HeadSpec::Categorical { n_attr, n_vals }, Targets::Discrete { values, .. }) => {
                let t: Vec<i64> = rows
                    .iter()
                    .flat_map(|&r| {
                        values[r * n_attr..(r + 1) * n_attr]
                            .iter()
                            .map(|&v| v as i64)
                    })
                    .collect();
                let t: Tensor<3, Int> =
                    Tensor::from_data(TensorData::new(t, [bsz, n_attr, 1]), dev);
                let logp = activation::log_softmax(out.reshape([bsz, n_attr, n_vals]), 2);
                logp.gather(2, t).mean().neg()
            }
            (HeadSpec::Gaussian { dim, std }, Targets::Continuous { lam, grid, .. }) => {
                let x: Vec<f32> = rows
                    .iter()
                    .flat_map(|&r| {
                        grid[r * dim..(r + 1) * dim]
                            .iter()
                            .map(|&k| (k as f64 * lam) as f32)
                    })
                    .collect();
                let x: Tensor<2> = Tensor::from_data(TensorData::new(x, [bsz, dim]), dev);
                match std {
                    StdSpec::Fixed { std } => {
                        let d = (x - out)
                            .powi_scalar(2)
                            .mul_scalar((0.5 / (std * std)) as f32);
                        d.mean().add_scalar((std.ln() + LN_2PI_HALF) as f32)
                    }
                    StdSpec::Learned { min_std } => {
                        let mu = out.clone().narrow(1, 0, dim);
                        let ls = out.narrow(1, dim, dim).clamp_min(min_std.ln() as f32);
                        let inv_var = ls.clone().mul_scalar(-2.0).exp();
                        let d = (x - mu).powi_scalar(2).mul(inv_var).mul_scalar(0.5);
                        (d + ls).mean().add_scalar(LN_2PI_HALF as f32)
                    }
                }
            }
            _ => panic!("head and targets disagree (validated by the caller)"),
        }
    }

    /// Raw outputs (rows x n_outputs), no dropout, no gradient tracking.
    pub fn outputs(&mut self, w: &TokenData, idx: &[usize]) -> Vec<f32> {
        let net = self.net.take().expect("model present");
        let valid = net.valid();
        let mut res = Vec::with_capacity(idx.len() * self.spec.head.n_outputs());
        for rows in idx.chunks(EVAL_BATCH) {
            let dev = valid.emb.weight.val().device();
            let tok = self.tokens(w, rows, &dev);
            let out = self.forward(&valid, tok, false, &dev);
            res.extend(out.into_data().try_to_vec::<f32>().expect("f32 outputs"));
        }
        self.net = Some(net);
        res
    }
}

impl Learner for BurnMlp {
    fn train_epoch(&mut self, w: &TokenData, z: &Targets, order: &[usize], batch: usize) -> f64 {
        super::flush_denormals();
        let dev = self.device.clone();
        let mut s = 0.0;
        let mut n = 0;
        for rows in order.chunks(batch) {
            let net = self.net.take().expect("model present");
            let tok = self.tokens(w, rows, &dev);
            let out = self.forward(&net, tok, true, &dev);
            let loss = self.loss(out, z, rows, &dev);
            let lv = loss.clone().into_scalar::<f32>() as f64;
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            self.net = Some(self.optim.step(self.lr, net, grads));
            s += lv;
            n += 1;
        }
        if n == 0 { f64::INFINITY } else { s / n as f64 }
    }

    fn mean_loss(&mut self, w: &TokenData, z: &Targets, idx: &[usize]) -> f64 {
        let net = self.net.take().expect("model present");
        let valid = net.valid();
        let dev = valid.emb.weight.val().device();
        let mut total = 0.0;
        for rows in idx.chunks(EVAL_BATCH) {
            let tok = self.tokens(w, rows, &dev);
            let out = self.forward(&valid, tok, false, &dev);
            let l = self.loss(out, z, rows, &dev).into_scalar::<f32>() as f64;
            total += l * rows.len() as f64;
        }
        self.net = Some(net);
        total / idx.len().max(1) as f64
    }

    fn code_bits(&mut self, w: &TokenData, z: &Targets, idx: &[usize]) -> f64 {
        let out = self.outputs(w, idx);
        code_bits_from_outputs(&self.spec.head, z, idx, &out)
            .iter()
            .sum()
    }

    fn save_best(&mut self) {
        self.best = self.net.clone();
    }

    fn restore_best(&mut self) {
        if let Some(b) = self.best.clone() {
            self.net = Some(b);
        }
    }

    fn reset_optimizer(&mut self) {
        self.optim = AdamConfig::new().with_epsilon(1e-8).init();
        self.best = None;
    }

    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
}
