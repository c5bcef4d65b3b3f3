//! K(W) per row of a grammar's own W: kcomp's code of W today (marginal + bigram counts over
//! the prefix, `representation::terms::code_w`) against a two-part class-bigram code (the word
//! classes learned from W, stated first: Elias-delta of the class count plus log2(k) bits a
//! word; then the rows sent one by one under Dirichlet predictive counts,
//! P(class_t | class_{t-1}) P(word | class), coded before learned).
//! `cargo run --release --example class_code_probe -- N [VOCAB] [SEED]`
use kcomp::dataset::TokenData;
use kcomp::datasets::grammar::{GrammarParams, generate};
use kcomp::estimators::prequential::learners::tree::classes::learn_classes;
use kcomp::estimators::prequential::naive::elias_delta_bits;
use kcomp::representation::terms::{TermsConfig, code_w};

/// Sequential code (bits) of `w` under the class bigram with assignment `cls` of `k` classes.
fn class_bigram_bits(w: &TokenData, cls: &[usize], k: usize) -> f64 {
    const ALPHA: f64 = 0.5;
    const BETA: f64 = 1.0;
    let size: Vec<f64> = (0..k)
        .map(|c| cls.iter().filter(|&&x| x == c).count() as f64)
        .collect();
    // Context k is START.
    let mut trans = vec![vec![0.0f64; k]; k + 1];
    let mut trans_tot = vec![0.0f64; k + 1];
    let mut emit = vec![0.0f64; cls.len()];
    let mut emit_tot = vec![0.0f64; k];
    let mut bits = 0.0;
    for r in 0..w.n {
        let mut prev = k;
        for &t in w.row(r) {
            let t = t as usize;
            let c = cls[t];
            let p = (trans[prev][c] + ALPHA) / (trans_tot[prev] + k as f64 * ALPHA)
                * (emit[t] + BETA)
                / (emit_tot[c] + size[c] * BETA);
            bits -= p.log2();
            trans[prev][c] += 1.0;
            trans_tot[prev] += 1.0;
            emit[t] += 1.0;
            emit_tot[c] += 1.0;
            prev = c;
        }
    }
    bits
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(1000, |s| s.parse().unwrap());
    let vocab: usize = args.get(2).map_or(100, |s| s.parse().unwrap());
    let seed: u64 = args.get(3).map_or(0, |s| s.parse().unwrap());
    let gp = GrammarParams {
        samples: n,
        seed,
        vocab,
        ..Default::default()
    };
    let d = generate(&gp).unwrap().to_dataset().unwrap();
    let w = &d.w;
    let today: f64 = code_w(w, &TermsConfig::default(), seed)
        .unwrap()
        .iter()
        .sum();
    let learned = learn_classes(w, 20);
    let used = (0..w.vocab)
        .filter(|&t| (0..w.n).any(|r| w.row(r).contains(&(t as u32))))
        .count();
    // Which words occur: one bit each (a code of the used set), then log2 k per used word.
    let assign =
        |k: usize| w.vocab as f64 + elias_delta_bits(k as u64) + used as f64 * (k as f64).log2();
    let lb = class_bigram_bits(w, &learned.of_word, learned.count) + assign(learned.count);
    let pos: Vec<usize> = (0..w.vocab).map(|t| t % 5).collect();
    let tb = class_bigram_bits(w, &pos, 5) + assign(5);
    println!(
        "N {n} vocab {vocab} used {used}: today {:.1} bits/row; learned classes k={} {:.1} bits/row (assignment {:.0} bits); true POS classes {:.1} bits/row",
        today / n as f64,
        learned.count,
        lb / n as f64,
        assign(learned.count),
        tb / n as f64
    );
}
