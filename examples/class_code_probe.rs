//! K(W) per row of a grammar's own W under `kcomp represent`'s two codes of W
//! (`representation::terms::code_w_choice`): the positions code (marginal + bigram counts over
//! the prefix) and the class code (`coding::class_bigram`: word classes learned from W, stated
//! first, then class bigram and word given class, coded before learned), against the
//! generator's own K(p_w) + K(W|p_w).
//! `cargo run --release --example class_code_probe -- N [VOCAB] [SEED] [linear|tensor] [WIDTH]`
use kcomp::datasets::grammar::{Composition, GrammarParams, generate};
use kcomp::representation::terms::{TermsConfig, code_w_choice};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(1000, |s| s.parse().unwrap());
    let vocab: usize = args.get(2).map_or(100, |s| s.parse().unwrap());
    let seed: u64 = args.get(3).map_or(0, |s| s.parse().unwrap());
    let composition = match args.get(4).map(String::as_str) {
        None | Some("linear") => Composition::Linear,
        Some("tensor") => Composition::Tensor,
        Some(other) => panic!("composition {other}: linear or tensor"),
    };
    let mut gp = GrammarParams {
        samples: n,
        seed,
        vocab,
        composition,
        ..Default::default()
    };
    if let Some(w) = args.get(5) {
        gp.width = w.parse().unwrap();
    }
    let d = generate(&gp).unwrap().to_dataset().unwrap();
    let c = code_w_choice(&d.w, &TermsConfig::default(), seed).unwrap();
    let exact = d.exact.as_ref().unwrap();
    let exact_k_w = exact.k_z_bits - exact.k_z_given_w_bits;
    let row = |b: f64| b / n as f64;
    let class = c.class.as_ref().unwrap();
    println!(
        "N {n} vocab {vocab} used {}: positions code {:.2} bits/row; class code {:.2} bits/row \
         ({} classes, header {:.1} bits); K(W) {:.2} bits/row ({}); generator {:.2} bits/row",
        class.used_words,
        row(c.positions_bits),
        row(class.total_bits()),
        class.classes,
        class.header_bits,
        row(c.bits),
        c.code.name(),
        row(exact_k_w)
    );
}
