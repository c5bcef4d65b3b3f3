//! Word categories learned from W alone: the Bayesian class-bigram model.
//!
//! Every word belongs to one class; a sentence is generated class by class (the first from a
//! START context, each next one from the previous word's class) and each word from its class.
//! Transition rows and class emissions have symmetric Dirichlet priors, so the marginal
//! likelihood of W given a class assignment is a product of Dirichlet-multinomial terms
//! (closed form). The assignment is searched by the exchange algorithm (Kneser and Ney 1993:
//! move one word at a time to the class that most increases the score) for a growing number of
//! classes, each started from the best assignment with one class fewer plus the best
//! single-word seed of the new class; the number of classes is the one whose assignment has
//! the highest marginal likelihood plus a uniform prior over labelled partitions. Words with
//! the same contexts (the parts of speech of a grammar) share a class; on W whose words are
//! exchangeable (independent uniform tokens) one class wins.
//!
//! Hand-written: no crate does Bayesian class induction; it is a few count tables.

use statrs::function::gamma::ln_gamma;

use crate::dataset::TokenData;

// Dirichlet concentrations of a transition row (0.5: sparse, a class is followed by few
// classes) and of a class's emission (1.0: words of a class tend to be equally used); shared
// with the class code of W so that the score is that code's body length.
use crate::coding::class_bigram::{ALPHA_TRANSITION, BETA_EMISSION};
/// Exchange sweeps at most per number of classes.
const MAX_SWEEPS: usize = 30;

/// A learned class assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct WordClasses {
    /// Class of every word of the vocabulary (words that never occur are in class 0).
    pub of_word: Vec<usize>,
    /// Number of classes.
    pub count: usize,
    /// Log marginal likelihood of W (nats) plus the partition prior, of this assignment.
    pub score: f64,
}

/// Word-bigram counts of W (sparse per word), the START counts and the word counts.
struct Bigrams {
    out: Vec<Vec<(usize, f64)>>,
    inc: Vec<Vec<(usize, f64)>>,
    start: Vec<f64>,
    count: Vec<f64>,
    used: Vec<usize>,
}

impl Bigrams {
    fn new(w: &TokenData) -> Self {
        let v = w.vocab;
        let mut pairs = std::collections::BTreeMap::<(usize, usize), f64>::new();
        let mut start = vec![0.0; v];
        let mut count = vec![0.0; v];
        for r in 0..w.n {
            let row = w.row(r);
            for (i, &t) in row.iter().enumerate() {
                let t = t as usize;
                count[t] += 1.0;
                if i == 0 {
                    start[t] += 1.0;
                } else {
                    *pairs.entry((row[i - 1] as usize, t)).or_default() += 1.0;
                }
            }
        }
        let mut out = vec![Vec::new(); v];
        let mut inc = vec![Vec::new(); v];
        for (&(a, b), &n) in &pairs {
            out[a].push((b, n));
            inc[b].push((a, n));
        }
        let used = (0..v).filter(|&t| count[t] > 0.0).collect();
        Bigrams {
            out,
            inc,
            start,
            count,
            used,
        }
    }
}

/// Count tables of an assignment with `k` classes (context `k` is START).
struct Tables {
    k: usize,
    trans: Vec<f64>,
    class_tokens: Vec<f64>,
    class_words: Vec<f64>,
    /// Sum over words of ln Gamma(beta + n_w) - ln Gamma(beta), per class.
    class_word_terms: Vec<f64>,
}

impl Tables {
    fn new(k: usize, bg: &Bigrams, cls: &[usize]) -> Self {
        let mut t = Tables {
            k,
            trans: vec![0.0; (k + 1) * k],
            class_tokens: vec![0.0; k],
            class_words: vec![0.0; k],
            class_word_terms: vec![0.0; k],
        };
        // Every bigram once (`add` moves one word within a full table).
        for &u in &bg.used {
            for &(v, n) in &bg.out[u] {
                t.trans[cls[u] * k + cls[v]] += n;
            }
            t.trans[k * k + cls[u]] += bg.start[u];
            let c = cls[u];
            t.class_tokens[c] += bg.count[u];
            t.class_words[c] += 1.0;
            t.class_word_terms[c] +=
                ln_gamma(BETA_EMISSION + bg.count[u]) - ln_gamma(BETA_EMISSION);
        }
        t
    }

    /// Adds (`sign` = 1) or removes (-1) word `w` as a member of class `c`; `cls` holds the
    /// classes of the other words (`cls[w]` is ignored: a self-bigram follows `c`).
    fn add(&mut self, bg: &Bigrams, cls: &[usize], w: usize, c: usize, sign: f64) {
        let k = self.k;
        for &(v, n) in &bg.out[w] {
            let cv = if v == w { c } else { cls[v] };
            self.trans[c * k + cv] += sign * n;
        }
        for &(u, n) in &bg.inc[w] {
            if u != w {
                self.trans[cls[u] * k + c] += sign * n;
            }
        }
        self.trans[k * k + c] += sign * bg.start[w];
        self.class_tokens[c] += sign * bg.count[w];
        self.class_words[c] += sign;
        self.class_word_terms[c] +=
            sign * (ln_gamma(BETA_EMISSION + bg.count[w]) - ln_gamma(BETA_EMISSION));
    }

    /// Log marginal likelihood (nats) of the transitions and emissions.
    fn score(&self) -> f64 {
        let k = self.k as f64;
        let mut s = 0.0;
        for ctx in 0..=self.k {
            let row = &self.trans[ctx * self.k..(ctx + 1) * self.k];
            let tot: f64 = row.iter().sum();
            if tot == 0.0 {
                continue;
            }
            s += ln_gamma(k * ALPHA_TRANSITION) - ln_gamma(k * ALPHA_TRANSITION + tot);
            for &n in row {
                if n > 0.0 {
                    s += ln_gamma(ALPHA_TRANSITION + n) - ln_gamma(ALPHA_TRANSITION);
                }
            }
        }
        for c in 0..self.k {
            if self.class_words[c] > 0.0 {
                let b = self.class_words[c] * BETA_EMISSION;
                s += ln_gamma(b) - ln_gamma(b + self.class_tokens[c]) + self.class_word_terms[c];
            }
        }
        s
    }
}

/// Log prior (nats) of a labelled assignment of `used` words to `k` classes, up to a constant:
/// uniform over the k^used labellings, the k! relabellings identified, and 1/k over k.
fn partition_prior(used: usize, k: usize) -> f64 {
    -(used as f64) * (k as f64).ln() + ln_gamma(k as f64 + 1.0) - (k as f64).ln()
}

/// Exchange sweeps: every used word moves to its best class until none moves. Returns the
/// final tables' score.
fn exchange(bg: &Bigrams, cls: &mut [usize], k: usize) -> f64 {
    let mut t = Tables::new(k, bg, cls);
    for _ in 0..MAX_SWEEPS {
        let mut moved = false;
        for &w in &bg.used {
            let from = cls[w];
            // A class of one word is left as it is: emptying it changes k.
            if t.class_words[from] <= 1.0 {
                continue;
            }
            t.add(bg, cls, w, from, -1.0);
            let mut best = (f64::NEG_INFINITY, from);
            for c in 0..k {
                t.add(bg, cls, w, c, 1.0);
                let s = t.score();
                t.add(bg, cls, w, c, -1.0);
                // Ties keep the current class (deterministic, no cycling).
                if s > best.0 + 1e-9 || (c == from && s >= best.0 - 1e-9) {
                    best = (s, c);
                }
            }
            t.add(bg, cls, w, best.1, 1.0);
            if best.1 != from {
                cls[w] = best.1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    t.score()
}

/// Per used word: its distribution over next words and over previous words (START last),
/// each normalised to sum 1, concatenated (2 V + 1 values).
fn context_features(bg: &Bigrams, v: usize) -> Vec<Vec<f64>> {
    let mut f = vec![Vec::new(); v];
    for &w in &bg.used {
        let mut x = vec![0.0; 2 * v + 1];
        let out: f64 = bg.out[w].iter().map(|p| p.1).sum();
        for &(u, n) in &bg.out[w] {
            x[u] = n / out.max(1.0);
        }
        let inc: f64 = bg.inc[w].iter().map(|p| p.1).sum::<f64>() + bg.start[w];
        for &(u, n) in &bg.inc[w] {
            x[v + u] = n / inc.max(1.0);
        }
        x[2 * v] = bg.start[w] / inc.max(1.0);
        f[w] = x;
    }
    f
}

/// k-means of the used words' context features (k-means++ starts, 3 seeds, the lowest
/// within-cluster sum of squares kept); unused words go to class 0. Deterministic.
fn kmeans(features: &[Vec<f64>], used: &[usize], v: usize, k: usize) -> Vec<usize> {
    use rand::{RngExt, SeedableRng};
    let dist = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>();
    let mut best = (f64::INFINITY, vec![0usize; v]);
    for seed in 0..3u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut centres: Vec<Vec<f64>> =
            vec![features[used[rng.random_range(0..used.len())]].clone()];
        while centres.len() < k {
            let d2: Vec<f64> = used
                .iter()
                .map(|&w| {
                    centres
                        .iter()
                        .map(|c| dist(&features[w], c))
                        .fold(f64::INFINITY, f64::min)
                })
                .collect();
            let total: f64 = d2.iter().sum();
            if total <= 0.0 {
                break;
            }
            let mut u = rng.random::<f64>() * total;
            let mut pick = used[used.len() - 1];
            for (i, &dd) in d2.iter().enumerate() {
                if u < dd {
                    pick = used[i];
                    break;
                }
                u -= dd;
            }
            centres.push(features[pick].clone());
        }
        let mut cls = vec![0usize; v];
        for _ in 0..50 {
            let mut changed = false;
            for &w in used {
                let c = (0..centres.len())
                    .min_by(|&a, &b| {
                        dist(&features[w], &centres[a]).total_cmp(&dist(&features[w], &centres[b]))
                    })
                    .unwrap_or(0);
                if cls[w] != c {
                    cls[w] = c;
                    changed = true;
                }
            }
            for (c, centre) in centres.iter_mut().enumerate() {
                let members: Vec<usize> = used.iter().copied().filter(|&w| cls[w] == c).collect();
                if members.is_empty() {
                    continue;
                }
                for (i, x) in centre.iter_mut().enumerate() {
                    *x =
                        members.iter().map(|&w| features[w][i]).sum::<f64>() / members.len() as f64;
                }
            }
            if !changed {
                break;
            }
        }
        let wss: f64 = used
            .iter()
            .map(|&w| dist(&features[w], &centres[cls[w]]))
            .sum();
        if wss < best.0 {
            best = (wss, cls);
        }
    }
    // Relabel so that every class below the number used is non-empty.
    let mut map = vec![usize::MAX; k];
    let mut next = 0;
    let mut cls = best.1;
    for &w in used {
        if map[cls[w]] == usize::MAX {
            map[cls[w]] = next;
            next += 1;
        }
    }
    for c in cls.iter_mut() {
        *c = if map[*c] == usize::MAX { 0 } else { map[*c] };
    }
    cls
}

/// Learns the word classes of `w`, with at most `max_classes` classes (and at most one per
/// used word). Deterministic.
pub fn learn_classes(w: &TokenData, max_classes: usize) -> WordClasses {
    let bg = Bigrams::new(w);
    let used = bg.used.len();
    let one = Tables::new(1, &bg, &vec![0usize; w.vocab]).score() + partition_prior(used, 1);
    let mut best = WordClasses {
        of_word: vec![0usize; w.vocab],
        count: 1,
        score: one,
    };
    let features = context_features(&bg, w.vocab);
    let mut worse = 0;
    for k in 2..=max_classes.min(used) {
        // Start from k-means on the words' context distributions, then exchange.
        let mut cls = kmeans(&features, &bg.used, w.vocab, k);
        let score = exchange(&bg, &mut cls, k) + partition_prior(used, k);
        if score > best.score {
            best = WordClasses {
                of_word: cls.clone(),
                count: k,
                score,
            };
            worse = 0;
        } else {
            worse += 1;
            // Two classes more without a gain: the score has peaked.
            if worse >= 2 {
                break;
            }
        }
    }
    // Merge two classes while a merge (then exchange) raises the score: a class that
    // k-means split in two is joined again.
    loop {
        let k = best.count;
        if k <= 1 {
            break;
        }
        let mut improved: Option<WordClasses> = None;
        for a in 0..k {
            for b in a + 1..k {
                let mut cls: Vec<usize> = best
                    .of_word
                    .iter()
                    .map(|&c| match c {
                        c if c == b => a,
                        c if c > b => c - 1,
                        c => c,
                    })
                    .collect();
                let score = exchange(&bg, &mut cls, k - 1) + partition_prior(used, k - 1);
                if score > improved.as_ref().map_or(best.score, |i| i.score) {
                    improved = Some(WordClasses {
                        of_word: cls,
                        count: k - 1,
                        score,
                    });
                }
            }
        }
        match improved {
            Some(i) => best = i,
            None => break,
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasets::grammar::{GrammarParams, generate};

    #[test]
    fn recovers_the_parts_of_speech_of_a_grammar() {
        for (vocab, samples) in [(20, 100), (100, 300)] {
            let g = generate(&GrammarParams {
                samples,
                vocab,
                ..Default::default()
            })
            .unwrap();
            let d = g.to_dataset().unwrap();
            let c = learn_classes(&d.w, 12);
            assert_eq!(c.count, 5, "vocab {vocab}");
            // Same class exactly when the same part of speech (word i has POS i % 5).
            for a in 0..vocab {
                for b in 0..vocab {
                    assert_eq!(c.of_word[a] == c.of_word[b], a % 5 == b % 5);
                }
            }
        }
    }

    #[test]
    fn exchangeable_words_form_one_class() {
        let mut rng = crate::rng::stream::Stream::new(crate::rng::stream::RngKind::Kcomp, 3);
        let tokens: Vec<u32> = (0..400 * 8)
            .map(|_| (rng.uniform() * 10.0) as u32 % 10)
            .collect();
        let w = TokenData::new(400, 8, 10, tokens).unwrap();
        assert_eq!(learn_classes(&w, 8).count, 1);
    }
}
