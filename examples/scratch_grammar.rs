use kcomp::datasets::grammar::*;
use kcomp::rng::stream::RngKind;
fn main() {
    for (w, d, comp) in [
        (3usize, 2usize, Composition::Linear),
        (1, 2, Composition::Linear),
        (3, 1, Composition::Linear),
        (3, 2, Composition::Tensor),
    ] {
        let mut cs = vec![];
        for seed in 0..10 {
            let p = GrammarParams {
                width: w,
                depth: d,
                composition: comp,
                seed,
                rng: RngKind::Numpy,
                reference_compat: true,
                ..Default::default()
            };
            let data = generate(&p).unwrap();
            cs.push(data.terms.c_per_sample());
            if seed == 0 {
                println!(
                    "seed0 {:.16} {}",
                    data.terms.c_per_sample(),
                    data.trees[0].brackets()
                );
            }
        }
        println!(
            "w={w} d={d} {comp:?} mean {:.6}",
            cs.iter().sum::<f64>() / 10.0
        );
    }
}
