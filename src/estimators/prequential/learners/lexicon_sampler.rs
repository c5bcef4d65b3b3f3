//! A Bayesian learner of one hypothesis class, a lexicon with holistic exceptions, for the
//! rule learner's new messages: its posterior over lexicons is sampled by MCMC, and
//! each lexicon's likelihood of the messages seen so far is in closed form.
//!
//! **Model.** Each attribute `a` is said by one message position `s(a)` (an assignment: distinct
//! positions), through an injective lexicon `L_a`: token -> value (a token may say nothing). A
//! message `m` has the lexicon object `L(m)` (none if a token says nothing). A set `H` of
//! holistic objects, its size uniform on 0..=O, the set uniform given its size, exchanges its
//! messages by a uniform permutation: a message whose lexicon object is not in `H` names that
//! object (a *lexicon row*), one whose lexicon object is in `H` names another object of `H` (an
//! *exception*). Given the lexicon, the first occurrences seen so far leave `nl` lexicon rows,
//! `k` exceptions and `c` objects known to be holistic (the exceptions' own lexicon objects and
//! the objects they name); summing over `H` and the permutation,
//!
//! P(rows | L) = sum_h 1/(O + 1) * C(O - c - nl, h - c) / C(O, h) * (h - k)! / h!
//!
//! (zero when two messages share a lexicon object). The probability of a new message's object
//! is the ratio of two such terms, normalised over the objects no message names yet. It is
//! exact given the lexicon and independent of the row order; the sum over lexicons (V!
//! bijections per attribute) is the intractable part, estimated by Metropolis chains over
//! swaps of two tokens' values, warm-started from the previous message and averaged over
//! their states after each sweep; the assignments are mixed as Bayes would (each codes the
//! new messages, its weight is the probability it gave them).
//!
//! Why hand-written: the closed form is specific to this class, and the chains only need
//! swap moves on small permutations with incremental updates, which no sampler crate offers.
//!
//! A valid code: every probability is a function of the messages already learned, and the
//! chains' random numbers come from a seeded generator advanced only in `learn`.

use std::collections::HashMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::super::switching::log2_sum_exp2;
use crate::rng::shuffle;

/// Metropolis chains per assignment.
const CHAINS: usize = 4;
/// Sweeps (each `A * T` proposed swaps) per chain after each new message, at most; every
/// sweep's state is one sample of the posterior.
const SWEEPS: usize = 24;
/// Row updates per new message (a sweep of one chain costs about 4 A t of them after t
/// messages): fewer sweeps, down to one, as messages and live assignments grow, so that a
/// run costs O(messages) of them.
const WORK_PER_MESSAGE: usize = 1 << 18;
/// An assignment this many bits behind the best is dropped (its weight is below 2^-40).
const PRUNE_BITS: f64 = 40.0;
/// The sampler runs while objects and distinct messages stay within these bounds and the
/// vocabulary is small (time per message grows with all three).
const MAX_OBJECTS: usize = 4096;
const MAX_MESSAGES: usize = 1024;
const MAX_VOCAB: usize = 64;
/// At most this many assignments of distinct positions to the attributes.
const MAX_ASSIGNMENTS: usize = 32;
/// Seed of the chains (the sampler is deterministic given the data).
const SEED: u64 = 0x1e71_c0de;

/// ln P(rows | lexicon) for (c, nl, k), memoised.
struct Evidence {
    n_obj: usize,
    ln_fact: Vec<f64>,
    memo: HashMap<(u32, u32, u32), f64>,
}

impl Evidence {
    fn new(n_obj: usize) -> Self {
        let mut ln_fact = vec![0.0; n_obj + 2];
        for i in 1..ln_fact.len() {
            ln_fact[i] = ln_fact[i - 1] + (i as f64).ln();
        }
        Evidence {
            n_obj,
            ln_fact,
            memo: HashMap::new(),
        }
    }

    fn ln_p(&mut self, c: usize, nl: usize, k: usize) -> f64 {
        let o = self.n_obj;
        if c + nl > o || k > c {
            return f64::NEG_INFINITY;
        }
        if let Some(&v) = self.memo.get(&(c as u32, nl as u32, k as u32)) {
            return v;
        }
        // The sum's terms, over h = c..=O - nl, are ln of C(O - c - nl, h - c) / C(O, h) *
        // (h - k)! / h! = const * (h - k)! / (h - c)! * (O - h)! / (O - nl - h)!: concave in h
        // (both factors' log-increments fall as h grows), so the peak is found by bisection
        // and the sum runs outward from it until a term is e^-46 of the peak's (a relative
        // error below 1e-16 even over 4,096 terms).
        let lf = &self.ln_fact;
        let term = |h: usize| lf[h - k] - lf[h - c] + lf[o - h] - lf[o - nl - h];
        let (mut lo, mut hi) = (c, o - nl);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if term(mid + 1) > term(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let (peak, m) = (lo, term(lo));
        let tail = |hs: &mut dyn Iterator<Item = usize>| -> f64 {
            hs.map(|h| term(h) - m)
                .take_while(|&t| t >= -46.0)
                .map(f64::exp)
                .sum()
        };
        let sum = tail(&mut (c..=peak).rev()) + tail(&mut (peak + 1..=o - nl));
        let v = m + sum.ln() + lf[o - c - nl] - lf[o] - ((o + 1) as f64).ln();
        self.memo.insert((c as u32, nl as u32, k as u32), v);
        v
    }
}

/// One chain's lexicon and what it implies for the rows seen so far.
#[derive(Clone)]
struct Chain {
    /// `perm[a * T + t]`: the value token `t` says for attribute `a` (>= V: nothing).
    perm: Vec<u16>,
    /// Lexicon object of each row (`NONE` if a token says nothing).
    img: Vec<u32>,
    /// Rows whose lexicon object is each object.
    img_count: Vec<u16>,
    /// Objects two or more rows share as lexicon object.
    collisions: usize,
    /// Exception contributions per object (own lexicon object, object named).
    known: Vec<u16>,
    /// Objects known to be holistic (`known > 0`).
    c: usize,
    nl: usize,
    ln_p: f64,
}

const NONE: u32 = u32::MAX;

/// A posterior sample: enough to code any new message.
struct Sample {
    perm: Vec<u16>,
    /// Objects known to be holistic, sorted.
    known: Vec<u32>,
    c: usize,
    nl: usize,
    /// Objects known holistic that no message names yet.
    known_unnamed: usize,
}

struct Assignment {
    pos: Vec<usize>,
    chains: Vec<Chain>,
    samples: Vec<Sample>,
}

/// See the module documentation.
pub struct LexiconSampler {
    n_attr: usize,
    n_vals: usize,
    vocab: usize,
    n_obj: usize,
    /// First occurrences: tokens (flat) and object.
    msgs: Vec<u32>,
    objs: Vec<u32>,
    n_pos: usize,
    /// `rows_at[p * T + t]`: rows with token `t` at position `p`.
    rows_at: Vec<Vec<u32>>,
    named: Vec<bool>,
    n_named: usize,
    assignments: Vec<Assignment>,
    /// log2 weights of the assignments.
    log_w: Vec<f64>,
    evidence: Evidence,
    rng: ChaCha8Rng,
}

impl LexiconSampler {
    /// `None` when the class does not apply or would be too slow: fewer positions than
    /// attributes, more values than tokens, too many objects, assignments or symbols.
    pub fn new(n_pos: usize, vocab: usize, n_attr: usize, n_vals: usize) -> Option<Self> {
        if n_attr == 0 || n_pos < n_attr || n_vals > vocab || vocab > MAX_VOCAB || n_vals < 2 {
            return None;
        }
        let n_obj = n_vals.checked_pow(n_attr as u32)?;
        let n_assign: usize = (n_pos - n_attr + 1..=n_pos).product();
        if n_obj > MAX_OBJECTS || n_assign > MAX_ASSIGNMENTS {
            return None;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        let mut assignments = Vec::with_capacity(n_assign);
        let mut stack = vec![Vec::new()];
        while let Some(pos) = stack.pop() {
            if pos.len() == n_attr {
                assignments.push(pos);
                continue;
            }
            for p in (0..n_pos).rev() {
                if !pos.contains(&p) {
                    let mut next = pos.clone();
                    next.push(p);
                    stack.push(next);
                }
            }
        }
        let assignments: Vec<Assignment> = assignments
            .into_iter()
            .map(|pos| {
                let chains = (0..CHAINS)
                    .map(|_| {
                        let mut perm = Vec::with_capacity(n_attr * vocab);
                        for _ in 0..n_attr {
                            let mut p: Vec<u16> = (0..vocab as u16).collect();
                            shuffle(&mut p, &mut rng);
                            perm.extend(p);
                        }
                        Chain {
                            perm,
                            img: Vec::new(),
                            img_count: vec![0; n_obj],
                            collisions: 0,
                            known: vec![0; n_obj],
                            c: 0,
                            nl: 0,
                            ln_p: 0.0,
                        }
                    })
                    .collect::<Vec<_>>();
                let mut a = Assignment {
                    pos,
                    chains,
                    samples: Vec::new(),
                };
                a.samples = a.chains.iter().map(|ch| Sample::of(ch, &[], &[])).collect();
                a
            })
            .collect();
        let k = assignments.len();
        Some(LexiconSampler {
            n_attr,
            n_vals,
            vocab,
            n_obj,
            msgs: Vec::new(),
            objs: Vec::new(),
            n_pos,
            rows_at: vec![Vec::new(); n_pos * vocab],
            named: vec![false; n_obj],
            n_named: 0,
            assignments,
            log_w: vec![-(k as f64).log2(); k],
            evidence: Evidence::new(n_obj),
            rng,
        })
    }

    /// Attributes of Z.
    pub fn n_attr(&self) -> usize {
        self.n_attr
    }

    /// Whether the sampler can still learn (at most [`MAX_MESSAGES`] first occurrences).
    pub fn active(&self) -> bool {
        self.objs.len() < MAX_MESSAGES
    }

    fn object(&self, z: &[u32]) -> Option<u32> {
        let mut o = 0usize;
        for &v in z {
            if v as usize >= self.n_vals {
                return None;
            }
            o = o * self.n_vals + v as usize;
        }
        Some(o as u32)
    }

    /// log2 P(z | a message no earlier row sent).
    pub fn log2p(&mut self, msg: &[u32], z: &[u32]) -> f64 {
        let Some(zo) = self.object(z) else {
            return f64::NEG_INFINITY;
        };
        let per = self.per_assignment(msg, zo);
        self.mixed(&per)
    }

    /// The mixture over assignments of their log2 P of one object.
    fn mixed(&self, per: &[f64]) -> f64 {
        // Every object has its message: the model allows no new one, yet the code must stay
        // complete (uniform; the cores then win the mixture).
        if self.n_named == self.n_obj {
            return -(self.n_obj as f64).log2();
        }
        log2_sum_exp2(self.log_w.iter().zip(per).map(|(w, p)| w + p))
    }

    /// log2 P of object `zo` for a new message `msg` per assignment (dropped ones: -inf).
    fn per_assignment(&mut self, msg: &[u32], zo: u32) -> Vec<f64> {
        (0..self.assignments.len())
            .map(|i| {
                if self.log_w[i] == f64::NEG_INFINITY {
                    f64::NEG_INFINITY
                } else {
                    self.assignment_log2p(i, msg, zo)
                }
            })
            .collect()
    }

    fn assignment_log2p(&mut self, i: usize, msg: &[u32], zo: u32) -> f64 {
        let (t, v) = (self.vocab, self.n_vals);
        let unnamed = self.n_obj - self.n_named;
        let zo = zo as usize;
        if self.named[zo] {
            return f64::NEG_INFINITY;
        }
        let rows = self.objs.len();
        let a = &self.assignments[i];
        let mut sum = 0.0;
        for s in &a.samples {
            let mut lx = Some(0usize);
            for (at, &p) in a.pos.iter().enumerate() {
                let val = s.perm[at * t + msg[p] as usize] as usize;
                lx = lx.filter(|_| val < v).map(|o| o * v + val);
            }
            let is_known = |o: usize| s.known.binary_search(&(o as u32)).is_ok();
            let k = rows - s.nl;
            let base = self.evidence.ln_p(s.c, s.nl, k);
            // Candidates of an exception: unnamed objects known to be holistic, and the others.
            let (mut n_known, mut n_new) = (s.known_unnamed, unnamed - s.known_unnamed);
            let (mut p_lex, mut c_exc, mut feasible) = (0.0, s.c, true);
            if let Some(o) = lx {
                let known = is_known(o);
                if !self.named[o] && !known {
                    p_lex = (self.evidence.ln_p(s.c, s.nl + 1, k) - base).exp();
                }
                // The message's own lexicon object cannot be what it names as an exception.
                if !self.named[o] {
                    if known {
                        n_known -= 1;
                    } else {
                        n_new -= 1;
                    }
                }
                if !known {
                    // Named by a lexicon row: that object already has its message.
                    feasible = !self.named[o];
                    c_exc += 1;
                }
            }
            let (p_known, p_new) = if feasible {
                (
                    (self.evidence.ln_p(c_exc, s.nl, k + 1) - base).exp(),
                    (self.evidence.ln_p(c_exc + 1, s.nl, k + 1) - base).exp(),
                )
            } else {
                (0.0, 0.0)
            };
            let total = p_lex + n_known as f64 * p_known + n_new as f64 * p_new;
            let pz = if Some(zo) == lx {
                p_lex
            } else if is_known(zo) {
                p_known
            } else {
                p_new
            };
            sum += if total > 0.0 && total.is_finite() {
                pz / total
            } else {
                1.0 / unnamed as f64
            };
        }
        (sum / a.samples.len() as f64).log2()
    }

    /// Learns a first occurrence (a message no earlier row sent) and resamples the lexicons;
    /// returns the log2 P that [`Self::log2p`] gave it before.
    pub fn learn(&mut self, msg: &[u32], z: &[u32]) -> f64 {
        let Some(zo) = self.object(z) else {
            return f64::NEG_INFINITY;
        };
        // Bayes weights of the assignments on this message; the hopeless ones are dropped.
        let per = self.per_assignment(msg, zo);
        let coded = self.mixed(&per);
        self.log_w.iter_mut().zip(&per).for_each(|(w, p)| *w += p);
        let best = self.log_w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for (w, a) in self.log_w.iter_mut().zip(self.assignments.iter_mut()) {
            if *w < best - PRUNE_BITS {
                *w = f64::NEG_INFINITY;
                a.chains.clear();
                a.samples.clear();
            }
        }
        let tot = log2_sum_exp2(self.log_w.iter().copied());
        if tot.is_finite() {
            self.log_w.iter_mut().for_each(|w| *w -= tot);
        }
        let r = self.objs.len() as u32;
        self.msgs.extend_from_slice(msg);
        self.objs.push(zo);
        for (p, &tok) in msg.iter().enumerate() {
            self.rows_at[p * self.vocab + tok as usize].push(r);
        }
        if !self.named[zo as usize] {
            self.named[zo as usize] = true;
            self.n_named += 1;
        }
        let alive = self.log_w.iter().filter(|w| w.is_finite()).count();
        let sweep_cost = (alive * CHAINS * 4 * self.n_attr * self.objs.len()).max(1);
        let sweeps = (WORK_PER_MESSAGE / sweep_cost).clamp(1, SWEEPS);
        for i in 0..self.assignments.len() {
            if self.log_w[i] == f64::NEG_INFINITY {
                continue;
            }
            let mut chains = std::mem::take(&mut self.assignments[i].chains);
            let pos = self.assignments[i].pos.clone();
            let mut samples = Vec::with_capacity(CHAINS * sweeps);
            for ch in chains.iter_mut() {
                let im = self.image(&pos, &ch.perm, r as usize);
                ch.img.push(im);
                contribute(ch, im, zo, true);
                ch.ln_p = self.chain_ln_p(ch);
                for _ in 0..sweeps {
                    self.sweep(&pos, ch);
                    samples.push(Sample::of(ch, &self.objs, &self.named));
                }
            }
            self.assignments[i].chains = chains;
            self.assignments[i].samples = samples;
        }
        coded
    }

    fn image(&self, pos: &[usize], perm: &[u16], r: usize) -> u32 {
        let (t, v) = (self.vocab, self.n_vals);
        let msg = &self.msgs[r * self.n_pos..(r + 1) * self.n_pos];
        let mut o = 0u32;
        for (a, &p) in pos.iter().enumerate() {
            let val = perm[a * t + msg[p] as usize] as usize;
            if val >= v {
                return NONE;
            }
            o = o * v as u32 + val as u32;
        }
        o
    }

    /// Moves row `r`'s lexicon object to `new`, keeping the chain's counts.
    fn set_image(&self, ch: &mut Chain, r: usize, new: u32) {
        let z = self.objs[r];
        contribute(ch, ch.img[r], z, false);
        ch.img[r] = new;
        contribute(ch, new, z, true);
    }

    fn chain_ln_p(&mut self, ch: &Chain) -> f64 {
        if ch.collisions > 0 {
            return f64::NEG_INFINITY;
        }
        self.evidence.ln_p(ch.c, ch.nl, self.objs.len() - ch.nl)
    }

    /// One sweep of Metropolis swaps of two tokens' values within one attribute.
    fn sweep(&mut self, pos: &[usize], ch: &mut Chain) {
        let t = self.vocab;
        for _ in 0..self.n_attr * t {
            let a = self.rng.random_range(0..self.n_attr);
            let t1 = self.rng.random_range(0..t);
            let mut t2 = self.rng.random_range(0..t - 1);
            if t2 >= t1 {
                t2 += 1;
            }
            let (i1, i2) = (a * t + t1, a * t + t2);
            if ch.perm[i1] as usize >= self.n_vals && ch.perm[i2] as usize >= self.n_vals {
                continue;
            }
            let u: f64 = self.rng.random();
            ch.perm.swap(i1, i2);
            self.update_rows(pos, ch, pos[a], t1, t2);
            let new = self.chain_ln_p(ch);
            let d = new - ch.ln_p;
            if d >= 0.0 || u < d.exp() {
                ch.ln_p = new;
            } else {
                ch.perm.swap(i1, i2);
                self.update_rows(pos, ch, pos[a], t1, t2);
            }
        }
    }

    fn update_rows(&self, pos: &[usize], ch: &mut Chain, p: usize, t1: usize, t2: usize) {
        for tok in [t1, t2] {
            for &r in &self.rows_at[p * self.vocab + tok] {
                let im = self.image(pos, &ch.perm, r as usize);
                if im != ch.img[r as usize] {
                    self.set_image(ch, r as usize, im);
                }
            }
        }
    }
}

/// Adds (or removes) the counts of a row whose lexicon object is `im` and object `z`.
fn contribute(ch: &mut Chain, im: u32, z: u32, add: bool) {
    if im != NONE {
        let n = &mut ch.img_count[im as usize];
        if add {
            *n += 1;
            ch.collisions += usize::from(*n == 2);
        } else {
            ch.collisions -= usize::from(*n == 2);
            *n -= 1;
        }
    }
    if im == z {
        if add {
            ch.nl += 1;
        } else {
            ch.nl -= 1;
        }
        return;
    }
    for o in [im, z] {
        if o == NONE {
            continue;
        }
        let n = &mut ch.known[o as usize];
        if add {
            *n += 1;
            ch.c += usize::from(*n == 1);
        } else {
            *n -= 1;
            ch.c -= usize::from(*n == 0);
        }
    }
}

impl Sample {
    /// The chain's state; `objs` are the rows' objects, `named` the objects some message names.
    fn of(ch: &Chain, objs: &[u32], named: &[bool]) -> Sample {
        let mut known: Vec<u32> = Vec::with_capacity(2 * objs.len());
        for (&im, &z) in ch.img.iter().zip(objs) {
            if im != z {
                known.push(z);
                if im != NONE {
                    known.push(im);
                }
            }
        }
        known.sort_unstable();
        known.dedup();
        let known_unnamed = known.iter().filter(|&&o| !named[o as usize]).count();
        Sample {
            perm: ch.perm.clone(),
            known,
            c: ch.c,
            nl: ch.nl,
            known_unnamed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(rows | lexicon) by brute force over the model: the size h uniform on 0..=O, H uniform
    /// given h, the permutation of H uniform. `exc` lists (own object, named object) of the
    /// exceptions, `lex` the lexicon rows' objects.
    fn brute(o: usize, exc: &[(usize, usize)], lex: &[usize]) -> f64 {
        fn perms(v: &[usize]) -> Vec<Vec<usize>> {
            if v.is_empty() {
                return vec![vec![]];
            }
            let mut out = vec![];
            for i in 0..v.len() {
                let mut rest = v.to_vec();
                let x = rest.remove(i);
                for mut p in perms(&rest) {
                    p.insert(0, x);
                    out.push(p);
                }
            }
            out
        }
        let mut total = 0.0;
        for mask in 0u32..1 << o {
            let h: Vec<usize> = (0..o).filter(|i| mask >> i & 1 == 1).collect();
            let choose = |n: usize, k: usize| -> f64 {
                (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product()
            };
            let p_set = 1.0 / (o + 1) as f64 / choose(o, h.len());
            if lex.iter().any(|x| h.contains(x)) {
                continue;
            }
            let ps = perms(&h);
            let ok = ps
                .iter()
                .filter(|p| {
                    exc.iter().all(|&(own, named)| {
                        h.iter()
                            .position(|&x| x == own)
                            .is_some_and(|i| p[i] == named)
                    })
                })
                .count();
            total += p_set * ok as f64 / ps.len() as f64;
        }
        total
    }

    #[test]
    fn the_closed_form_matches_the_model_by_brute_force() {
        let o = 5;
        let mut e = Evidence::new(o);
        // (exceptions as (own, named), lexicon objects, the (c, nl, k) they give)
        type Case<'a> = (&'a [(usize, usize)], &'a [usize], (usize, usize, usize));
        let cases: [Case; 5] = [
            (&[], &[], (0, 0, 0)),
            (&[], &[0, 1, 2, 3, 4], (0, 5, 0)),
            (&[(0, 1)], &[2], (2, 1, 1)),
            (&[(0, 1), (1, 0)], &[], (2, 0, 2)),
            (&[(0, 1), (2, 3)], &[4], (4, 1, 2)),
        ];
        for (exc, lex, (c, nl, k)) in cases {
            let want = brute(o, exc, lex);
            let got = e.ln_p(c, nl, k).exp();
            assert!(
                (got - want).abs() < 1e-12,
                "{exc:?} {lex:?}: {got} vs {want}"
            );
        }
        assert_eq!(e.ln_p(3, 3, 1), f64::NEG_INFINITY);
    }

    #[test]
    fn the_sum_from_its_peak_matches_the_whole_sum() {
        let o = 4096;
        let mut e = Evidence::new(o);
        let lf = e.ln_fact.clone();
        let lnc = |n: usize, k: usize| lf[n] - lf[k] - lf[n - k];
        for (c, nl, k) in [
            (0, 0, 0),
            (3, 100, 2),
            (700, 40, 400),
            (2000, 0, 1024),
            (10, 4000, 5),
        ] {
            let terms: Vec<f64> = (c..=o - nl)
                .map(|h| lnc(o - c - nl, h - c) - lnc(o, h) + lf[h - k] - lf[h])
                .collect();
            let m = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let whole =
                m + terms.iter().map(|t| (t - m).exp()).sum::<f64>().ln() - ((o + 1) as f64).ln();
            let got = e.ln_p(c, nl, k);
            assert!(
                (got - whole).abs() < 1e-9,
                "({c}, {nl}, {k}): {got} vs {whole}"
            );
        }
    }

    /// Rows of a 2-attribute language over `v` values: a lexicon (token t says value
    /// `(t * 3 + a) % v`), exceptions exchanging the messages of objects listed in `hol` by a
    /// seeded random derangement.
    fn rows(v: usize, hol: &[usize]) -> Vec<(Vec<u32>, Vec<u32>)> {
        let word = |a: usize, val: usize| (0..v).find(|&t| (t * 3 + a) % v == val).unwrap() as u32;
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut perm: Vec<usize> = hol.to_vec();
        while perm.len() > 1 && perm.iter().zip(hol).any(|(p, h)| p == h) {
            for i in (1..perm.len()).rev() {
                perm.swap(i, rng.random_range(0..=i));
            }
        }
        (0..v * v)
            .map(|o| {
                let i = hol.iter().position(|&x| x == o);
                let f = i.map_or(o, |i| perm[i]);
                let msg = vec![word(0, f / v), word(1, f % v)];
                (msg, vec![(o / v) as u32, (o % v) as u32])
            })
            .collect()
    }

    #[test]
    fn every_new_message_has_probabilities_summing_to_one() {
        // Vocabulary 6 over 5 values (a token says nothing), and 3 positions for 2
        // attributes (the third position is noise).
        let v = 5;
        let data = rows(v, &[1, 7, 12, 20]);
        let mut s = LexiconSampler::new(3, 6, 2, v).unwrap();
        for (i, (msg, z)) in data.iter().enumerate() {
            let msg: Vec<u32> = [msg.clone(), vec![(i % 6) as u32]].concat();
            if i % 4 == 1 {
                let total: f64 = (0..v * v)
                    .map(|o| s.log2p(&msg, &[(o / v) as u32, (o % v) as u32]).exp2())
                    .sum();
                assert!((total - 1.0).abs() < 1e-9, "row {i}: {total}");
            }
            s.learn(&msg, z);
        }
    }

    fn bits(v: usize, hol: &[usize]) -> f64 {
        let mut s = LexiconSampler::new(2, v, 2, v).unwrap();
        let mut total = 0.0;
        for (msg, z) in rows(v, hol) {
            // What `learn` returns is what `log2p` gives before it.
            let before = s.log2p(&msg, &z);
            let coded = s.learn(&msg, &z);
            assert_eq!(before, coded);
            total -= coded;
        }
        total
    }

    #[test]
    fn a_lexicon_costs_about_log2_v_factorial_per_attribute_and_exceptions_their_table() {
        let v = 8;
        let log2_fact = |n: usize| (1..=n).map(|i| (i as f64).log2()).sum::<f64>();
        // No exception: exact Bayes pays the two lexicons (2 log2 8! = 30.6 bits), the number
        // of holistic objects (log2 65 = 6.0) and the assignment (1 bit); the chains' finite
        // samples add a few bits (41.6 in all, rows in object order).
        let lexicon = bits(v, &[]);
        let bayes = 2.0 * log2_fact(v) + (65f64).log2() + 1.0;
        assert!(
            lexicon > bayes - 1.0 && lexicon < bayes + 6.0,
            "{lexicon} vs {bayes}"
        );
        // Every object holistic: about a table, log2 64! = 296 bits.
        let table = bits(v, &(0..64).collect::<Vec<_>>());
        assert!((table - log2_fact(64)).abs() < 8.0, "{table}");
        // Deterministic.
        assert_eq!(bits(v, &[3, 9, 17]), bits(v, &[3, 9, 17]));
    }
}
