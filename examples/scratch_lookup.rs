use kcomp::datasets::lookup_table::*;
use kcomp::rng::stream::RngKind;
fn main() {
    for (m, d, k, q) in [
        (16usize, 64usize, 10usize, 1usize),
        (64, 64, 10, 1),
        (16, 16, 10, 1),
        (16, 64, 2, 2),
        (16, 64, 2, 4),
        (1, 64, 10, 1),
    ] {
        let mut cs = vec![];
        for seed in 0..10 {
            let p = LookupParams {
                length: m,
                dim: d,
                vocab: k,
                ngram: q,
                seed,
                rng: RngKind::Numpy,
                ..Default::default()
            };
            let data = generate(&p).unwrap();
            cs.push(data.terms.c_per_sample());
            if seed == 0 {
                println!("seed0 {:.16}", data.terms.c_per_sample());
            }
        }
        println!(
            "M={m} D={d} K={k} q={q} mean {:.6}",
            cs.iter().sum::<f64>() / 10.0
        );
    }
}
