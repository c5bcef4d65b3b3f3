//! The per-row implementation TRE had before rows were grouped by object and the additive L1
//! model was trained one coordinate block at a time: dense one-hot targets, one prediction and
//! one gradient per row per step. Kept as the tests' oracle (the fast paths reorder sums of
//! gradients, so they agree with it to rounding, and bit for bit when N is a power of two).

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use super::{Composition, Model, Optimizer, TreConfig, TreError, TreFit, error_and_gradient};

/// Errors of every row and, into `grad`, the gradient of their mean, row by row.
pub(super) fn errors_and_gradient(
    model: &Model,
    p: &[f64],
    rows: &[Vec<usize>],
    targets: &[Vec<f64>],
    kind: TreError,
    grad: &mut [f64],
) -> Vec<f64> {
    let (w, len, vocab) = (model.width(), model.len, model.vocab);
    let n = rows.len() as f64;
    let contrib = model.contributions(p);
    grad.iter_mut().for_each(|x| *x = 0.0);
    let mut d_contrib = vec![0.0; contrib.len()];
    let (mut pred, mut g) = (vec![0.0; w], vec![0.0; w]);
    let bo = model.bias_offset();
    let errors = rows
        .iter()
        .zip(targets)
        .map(|(r, t)| {
            model.predict(p, &contrib, r, &mut pred);
            let e = error_and_gradient(kind, &pred, t, &mut g);
            for &c in r {
                for (d, gi) in d_contrib[c * w..(c + 1) * w].iter_mut().zip(&g) {
                    *d += gi / n;
                }
            }
            if model.composition == Composition::Linear {
                for pos in 0..len {
                    grad[bo + pos] += g[pos * vocab..(pos + 1) * vocab].iter().sum::<f64>() / n;
                }
            }
            e
        })
        .collect();
    model.backpropagate_maps(p, &d_contrib, grad);
    errors
}

/// TRE fitted by the per-row algorithm (inputs assumed valid).
pub(super) fn reference_fit(
    objects: &[Vec<u32>],
    messages: &[Vec<u32>],
    vocab: usize,
    cfg: &TreConfig,
) -> TreFit {
    let n = objects.len();
    let len = messages[0].len();
    let n_attr = objects[0].len();
    let mut index: BTreeMap<(usize, u32), usize> = BTreeMap::new();
    for o in objects {
        for (a, &v) in o.iter().enumerate() {
            let k = index.len();
            index.entry((a, v)).or_insert(k);
        }
    }
    let rows: Vec<Vec<usize>> = objects
        .iter()
        .map(|o| o.iter().enumerate().map(|(a, &v)| index[&(a, v)]).collect())
        .collect();
    let mut slot = vec![0; index.len()];
    for (&(a, _), &i) in &index {
        slot[i] = a;
    }
    let model = Model {
        slot,
        n_attr,
        len,
        vocab,
        composition: cfg.composition,
    };
    let width = model.width();
    let targets: Vec<Vec<f64>> = messages
        .iter()
        .map(|m| {
            let mut t = vec![0.0; width];
            for (p, &s) in m.iter().enumerate() {
                t[p * vocab + s as usize] = 1.0;
            }
            t
        })
        .collect();
    let n_params = model.n_params();
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let normal = Normal::new(0.0, 0.01).expect("valid sd");
    let mut params: Vec<f64> = (0..model.n_concepts() * width)
        .map(|_| normal.sample(&mut rng))
        .collect();
    if cfg.composition == Composition::Linear {
        for _ in 0..n_attr {
            params.extend((0..len * len).map(|i| f64::from(u8::from(i % (len + 1) == 0))));
        }
        params.extend(std::iter::repeat_n(0.0, len));
    }
    let (mut m1, mut m2) = (vec![0.0; n_params], vec![0.0; n_params]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let mut grad = vec![0.0; n_params];
    for step in 1..=cfg.steps {
        errors_and_gradient(&model, &params, &rows, &targets, cfg.error, &mut grad);
        match cfg.optimizer {
            Optimizer::Adam => {
                let (c1, c2) = (1.0 - b1.powi(step as i32), 1.0 - b2.powi(step as i32));
                for i in 0..n_params {
                    m1[i] = b1 * m1[i] + (1.0 - b1) * grad[i];
                    m2[i] = b2 * m2[i] + (1.0 - b2) * grad[i] * grad[i];
                    params[i] -= cfg.lr * (m1[i] / c1) / ((m2[i] / c2).sqrt() + eps);
                }
            }
            Optimizer::Rmsprop => {
                for i in 0..n_params {
                    m2[i] = 0.99 * m2[i] + 0.01 * grad[i] * grad[i];
                    params[i] -= cfg.lr * grad[i] / (m2[i].sqrt() + eps);
                }
            }
        }
    }
    let errors = errors_and_gradient(&model, &params, &rows, &targets, cfg.error, &mut grad);
    let mut concepts = vec![(0, 0); index.len()];
    for (&k, &i) in &index {
        concepts[i] = k;
    }
    let embeddings = (0..index.len())
        .map(|c| params[c * width..(c + 1) * width].to_vec())
        .collect();
    TreFit {
        mean_error: errors.iter().sum::<f64>() / n as f64,
        errors,
        concepts,
        embeddings,
    }
}
