//! The requential code of Z given W: a teacher learns the real rows, a student (same learner,
//! same initial state) learns only synthetic rows drawn from the teacher, the synthetic rows
//! are sent by relative-entropy coding against the student's predictive, and the real Z is
//! finally coded by the student. See [`super`] for the argument that this is a code.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::config::{RequentialConfig, Teacher};
use crate::coding::predictive::{OutputDist, guarded_kl_bits, is_finite, sample};
use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
use crate::estimators::prequential::code::{derive_seed, in_pool};
use crate::estimators::prequential::learners::{Marginal, OnlineLearner, make_online_learner};
use crate::estimators::prequential::naive::naive_bits;
use crate::estimators::prequential::online::{LearnerSpec, OnlineConfig};
use crate::estimators::prequential::schedule::order_rows;

/// Expected-length overhead of one relative-entropy code of a sample whose KL is `kl` bits:
/// `log2(kl + 1) + 4` (the Poisson functional representation, Li and El Gamal 2018).
pub fn rec_overhead_bits(kl: f64) -> f64 {
    (kl + 1.0).log2() + 4.0
}

/// KL budget of one message of a relative-entropy code whose running time (about 2^KL
/// candidate draws) is practical; used only for the `practical_overhead_bits` estimate.
pub const PRACTICAL_MESSAGE_BITS: f64 = 16.0;

/// One message of the chosen learner: its rows, KL and overhead, and the teacher's own
/// prequential bits of the same real rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub start: usize,
    pub end: usize,
    /// Sum over its rows of KL(teacher || student), bits.
    pub kl_bits: f64,
    /// log2(kl + 1) + 4.
    pub overhead_bits: f64,
    /// The teacher's prequential code of the real rows (coded before learned; the first
    /// message by the naive code), bits.
    pub teacher_bits: f64,
}

/// One teacher/student pair's totals (bits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnerRequential {
    pub name: String,
    /// model_bits + data_bits (no selection cost).
    pub total_bits: f64,
    /// The paper's K_req: the summed KL(teacher || student) over the synthetic rows.
    pub k_req_bits: f64,
    /// The relative-entropy codes' overhead, one per message.
    pub rec_overhead_bits: f64,
    /// The real Z coded by the final student.
    pub data_bits: f64,
    /// The real Z coded by the final teacher (not decodable: the paper's data term).
    pub teacher_data_bits: f64,
    /// The teacher's prequential code of the real rows in the same run.
    pub teacher_prequential_bits: f64,
    /// The area of the teacher's loss curve above its final loss (the paper's K_auc).
    pub teacher_k_auc_bits: f64,
}

/// The requential code of one (W, Z) (bits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequentialCode {
    /// The code length: selection + K_req + overhead + the data under the final student.
    pub total_bits: f64,
    /// The learner whose code is shortest.
    pub learner: String,
    /// log2 of the number of learners that apply (the decoder is told which one won).
    pub selection_bits: f64,
    pub k_req_bits: f64,
    pub rec_overhead_bits: f64,
    /// K_req + overhead: the model part of the code.
    pub model_bits: f64,
    pub data_bits: f64,
    pub teacher_data_bits: f64,
    pub teacher_prequential_bits: f64,
    pub teacher_k_auc_bits: f64,
    /// Overhead if the synthetic rows were sent in messages of at most
    /// [`PRACTICAL_MESSAGE_BITS`] of KL (an estimate: rows are not split).
    pub practical_overhead_bits: f64,
    pub n: usize,
    pub teacher: Teacher,
    /// The chosen learner's messages.
    pub messages: Vec<Message>,
    /// Every learner that ran.
    pub learners: Vec<LearnerRequential>,
    /// Learners that did not apply or diverged, with the reason.
    pub skipped: Vec<(String, String)>,
}

/// Targets shaped like `z` with every value 0: the synthetic rows are written in as drawn.
fn blank_like(z: &Targets) -> Targets {
    match z {
        Targets::Discrete {
            n_attr,
            n_vals,
            values,
        } => Targets::Discrete {
            n_attr: *n_attr,
            n_vals: *n_vals,
            values: vec![0; values.len()],
        },
        Targets::Continuous { dim, lam, grid } => Targets::Continuous {
            dim: *dim,
            lam: *lam,
            grid: vec![0; grid.len()],
        },
    }
}

/// Codes rows `a..b` of `order` with `learner`, then lets it learn them, in steps of its own
/// block size (the whole range for learners on the block schedule). Returns the bits; the
/// first message's bits are those of the naive code, as the online prequential scheme sends
/// its first rows (a learner's prior can be far wider than the data: only a diagnostic).
fn advance(
    learner: &mut dyn OnlineLearner,
    w: &TokenData,
    z: &Targets,
    order: &[usize],
    a: usize,
    b: usize,
) -> f64 {
    let step = learner.block_rows().unwrap_or(b - a).max(1);
    let naive = (a == 0).then(|| naive_bits(z, &order[a..b]));
    let mut bits = 0.0;
    let mut s = a;
    while s < b {
        let e = (s + step).min(b);
        bits += learner.code(w, z, &order[s..e]).iter().sum::<f64>();
        learner.learn(w, z, &order[..e], e - s);
        s = e;
    }
    naive.unwrap_or(bits)
}

/// Writes one drawn value into the synthetic targets.
fn write(z_syn: &mut Targets, row: usize, out: usize, v: i64) {
    match z_syn {
        Targets::Discrete { n_attr, values, .. } => values[row * *n_attr + out] = v as u32,
        Targets::Continuous { dim, grid, .. } => grid[row * *dim + out] = v,
    }
}

/// Largest guard scale: 2^GUARD_SCALES grid cells.
const GUARD_SCALES: i32 = 40;

/// A continuous guard made scale-free: the running Gaussian of Z without W (overconfident
/// after a few rows) and zero-mean Gaussians of std 2^0 .. 2^40 grid cells, in equal
/// weights, so no value is ever more than about log2(|value| / std) + log2(42) bits away
/// from the guard. Categorical guards (Krichevsky-Trofimov counts) are returned as they are.
fn scale_free(g: OutputDist) -> OutputDist {
    let OutputDist::Gaussian { mean, sd } = g else {
        return g;
    };
    let lw = -((GUARD_SCALES + 2) as f64).log2();
    OutputDist::GaussianMixture(
        std::iter::once((lw, mean, sd))
            .chain((0..=GUARD_SCALES).map(|k| (lw, 0.0, 2f64.powi(k))))
            .collect(),
    )
}

/// One learner's run: its totals and messages, or why it could not run.
type PairRun = std::result::Result<(LearnerRequential, Vec<Message>), String>;

/// The K_auc of a loss curve given as (rows, bits) per message: the bits above the final
/// message's loss per row.
fn k_auc(curve: &[(usize, f64)]) -> f64 {
    let Some(&(last_rows, last_bits)) = curve.iter().rev().find(|c| c.0 > 0) else {
        return 0.0;
    };
    let final_loss = last_bits / last_rows as f64;
    curve
        .iter()
        .map(|&(rows, bits)| bits - rows as f64 * final_loss)
        .sum()
}

#[allow(clippy::too_many_arguments)]
fn run_pair(
    spec: &LearnerSpec,
    oc: &OnlineConfig,
    cfg: &RequentialConfig,
    w: &TokenData,
    z: &Targets,
    order: &[usize],
    bounds: &[usize],
    seed: u64,
) -> Option<PairRun> {
    // Same seed, so the same initial state: the decoder builds the student from it.
    let mut teacher = make_online_learner(spec, oc, w, z, seed)?;
    let mut student = make_online_learner(spec, oc, w, z, seed)?;
    student.predictive(w, z, &order[..1])?;
    let name = student.name();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7E9A_C4E5_0A11_0C0D);
    let mut z_syn = blank_like(z);
    // The guard: Z without W on the synthetic rows so far, mixed into every message's coding
    // distribution with weight `cfg.guard`.
    let mut guard = Marginal::new(z);
    let mut teacher_curve = Vec::with_capacity(bounds.len());
    if cfg.teacher == Teacher::Final {
        for win in bounds.windows(2) {
            let bits = advance(teacher.as_mut(), w, z, order, win[0], win[1]);
            teacher_curve.push((win[1] - win[0], bits));
        }
    }
    let mut messages = Vec::with_capacity(bounds.len());
    for win in bounds.windows(2) {
        let (a, b) = (win[0], win[1]);
        let rows = &order[a..b];
        let teacher_bits = if cfg.teacher == Teacher::Online {
            let bits = advance(teacher.as_mut(), w, z, order, a, b);
            teacher_curve.push((b - a, bits));
            bits
        } else {
            teacher_curve[messages.len()].1
        };
        let Some(p) = teacher.predictive(w, z, rows) else {
            return Some(Err("the teacher has no closed-form predictive".into()));
        };
        // The student's predictive is frozen for the whole message (one relative-entropy code).
        let Some(q) = student.predictive(w, &z_syn, rows) else {
            return Some(Err("the student has no closed-form predictive".into()));
        };
        let Some(g) = guard
            .predictive(w, &z_syn, &rows[..1])
            .and_then(|g| g.into_iter().next())
        else {
            return Some(Err("the guard has no predictive".into()));
        };
        let g: Vec<OutputDist> = g.into_iter().map(scale_free).collect();
        let mut kl = 0.0;
        for (i, (pi, qi)) in p.iter().zip(&q).enumerate() {
            for (o, ((po, qo), go)) in pi.iter().zip(qi).zip(&g).enumerate() {
                if !is_finite(po) {
                    return Some(Err(format!("the teacher diverged at row {}", a + i)));
                }
                let d = guarded_kl_bits(po, qo, go, cfg.guard);
                if !d.is_finite() {
                    return Some(Err(format!("infinite KL at row {}", a + i)));
                }
                kl += d;
                write(&mut z_syn, rows[i], o, sample(po, &mut rng));
            }
        }
        // The realised synthetic bits are not charged (the KL is); the call keeps the
        // learners' code-then-learn protocol.
        advance(student.as_mut(), w, &z_syn, order, a, b);
        guard.learn(w, &z_syn, &order[..b], b - a);
        messages.push(Message {
            start: a,
            end: b,
            kl_bits: kl,
            overhead_bits: rec_overhead_bits(kl),
            teacher_bits,
        });
    }
    let data_bits: f64 = student.code(w, z, order).iter().sum();
    let teacher_data_bits: f64 = teacher.code(w, z, order).iter().sum();
    if !data_bits.is_finite() {
        return Some(Err(
            "the final student codes the data with infinite length".into()
        ));
    }
    let k_req_bits: f64 = messages.iter().map(|m| m.kl_bits).sum();
    let rec_overhead_bits: f64 = messages.iter().map(|m| m.overhead_bits).sum();
    Some(Ok((
        LearnerRequential {
            name,
            total_bits: k_req_bits + rec_overhead_bits + data_bits,
            k_req_bits,
            rec_overhead_bits,
            data_bits,
            teacher_data_bits,
            teacher_prequential_bits: teacher_curve.iter().map(|c| c.1).sum(),
            teacher_k_auc_bits: k_auc(&teacher_curve),
        },
        messages,
    )))
}

/// The requential code of `z` given `w` (pass `TokenData::blind(n)` for K(Z)).
pub fn requential_code(
    w: &TokenData,
    z: &Targets,
    cfg: &RequentialConfig,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<RequentialCode> {
    cfg.validate()?;
    if w.n != z.n() {
        return Err(KcompError::param(
            "w/z",
            format!("W has {} rows but Z has {} rows", w.n, z.n()),
        ));
    }
    let n = w.n;
    if n == 0 {
        return Err(KcompError::param("w/z", "no rows"));
    }
    let oc = cfg.online();
    crate::datasets::validate::memory("this requential run", &oc.memory_terms(w, z))?;
    let order = order_rows(z, cfg.ordering.for_code_length(), cfg.seed);
    let bounds = cfg.boundaries(n);
    if let Some(pb) = progress {
        pb.set_length(pb.length().unwrap_or(0) + cfg.learners.len() as u64);
    }
    let jobs = || -> Vec<Option<PairRun>> {
        use rayon::prelude::*;
        cfg.learners
            .par_iter()
            .with_max_len(1)
            .enumerate()
            .map(|(k, spec)| {
                let seed = derive_seed(cfg.seed, 2_000_003 + k as u64);
                let r = run_pair(spec, &oc, cfg, w, z, &order, &bounds, seed);
                if let Some(pb) = progress {
                    pb.inc(1);
                }
                r
            })
            .collect()
    };
    let runs = in_pool(cfg.threads, jobs)?;
    let mut skipped = Vec::new();
    let mut ok = Vec::new();
    let mut applicable = 0usize;
    for (spec, run) in cfg.learners.iter().zip(runs) {
        match run {
            None => skipped.push((
                spec.name(),
                "does not apply to these data or has no closed-form predictive".to_string(),
            )),
            Some(Err(e)) => {
                applicable += 1;
                skipped.push((spec.name(), e));
            }
            Some(Ok(r)) => {
                applicable += 1;
                ok.push(r);
            }
        }
    }
    let best = ok
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.0.total_bits.total_cmp(&b.1.0.total_bits))
        .map(|(i, _)| i)
        .ok_or_else(|| {
            KcompError::param(
                "requential.learners",
                format!(
                    "no learner gave a requential code: {}",
                    skipped
                        .iter()
                        .map(|(n, r)| format!("{n}: {r}"))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            )
        })?;
    let selection_bits = (applicable.max(1) as f64).log2();
    let (chosen, messages) = ok[best].clone();
    let practical_overhead_bits = {
        let chunks = (chosen.k_req_bits / PRACTICAL_MESSAGE_BITS).ceil().max(1.0);
        chunks * rec_overhead_bits(chosen.k_req_bits / chunks)
    };
    Ok(RequentialCode {
        total_bits: selection_bits + chosen.total_bits,
        learner: chosen.name.clone(),
        selection_bits,
        k_req_bits: chosen.k_req_bits,
        rec_overhead_bits: chosen.rec_overhead_bits,
        model_bits: chosen.k_req_bits + chosen.rec_overhead_bits,
        data_bits: chosen.data_bits,
        teacher_data_bits: chosen.teacher_data_bits,
        teacher_prequential_bits: chosen.teacher_prequential_bits,
        teacher_k_auc_bits: chosen.teacher_k_auc_bits,
        practical_overhead_bits,
        n,
        teacher: cfg.teacher,
        messages,
        learners: ok.into_iter().map(|r| r.0).collect(),
        skipped,
    })
}
