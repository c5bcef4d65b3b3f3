//! Every discrete online learner, and their mixture, is a valid code: over every Z of a few
//! rows, sum 2^-K(Z|W) <= 1 (Kraft). A learner whose probabilities sum above 1 (the `rules`
//! learner's exception draw did, by up to 6 %) reports lengths no decoder can achieve. The
//! count-based learners are complete (sum 1); the rule learner may leave a little mass on Z
//! its bases cannot produce (up to 10 % here), never more than the sum allows.

use kcomp::dataset::{Targets, TokenData};
use kcomp::estimators::prequential::code::{PrequentialConfig, Scheme, prequential_code};
use kcomp::estimators::prequential::online::{LearnerSpec, OnlineConfig};
use kcomp::estimators::prequential::schedule::Ordering;

fn kraft_sum(learners: &[LearnerSpec], w: &TokenData, n_attr: usize, n_vals: usize) -> f64 {
    let cfg = PrequentialConfig {
        seed: 3,
        ordering: Ordering::Random,
        val_size: 0,
        threads: 1,
        scheme: Scheme::Online,
        online: OnlineConfig {
            learners: learners.to_vec(),
            ..Default::default()
        },
        ..Default::default()
    };
    let cells = w.n * n_attr;
    let total = n_vals.pow(cells as u32);
    (0..total)
        .map(|code| {
            let mut c = code;
            let values: Vec<u32> = (0..cells)
                .map(|_| {
                    let x = (c % n_vals) as u32;
                    c /= n_vals;
                    x
                })
                .collect();
            let z = Targets::discrete(n_attr, n_vals, values).unwrap();
            let k = prequential_code(w, &z, &cfg, None).unwrap().k_data;
            (-k).exp2()
        })
        .sum()
}

#[test]
fn discrete_learners_are_complete_codes() {
    let blind = TokenData::blind(4);
    let two = TokenData::new(4, 2, 2, vec![0, 0, 0, 1, 1, 0, 0, 0]).unwrap();
    // Three positions: pair contexts (global and Latin-square bases) are in play.
    let three = TokenData::new(5, 3, 3, vec![0, 1, 2, 1, 1, 0, 2, 0, 1, 0, 1, 2, 1, 2, 0]).unwrap();
    // Token 2 only ever ends a message, as a run: detected as padding (contexts from the end).
    let padded = TokenData::new(4, 3, 3, vec![0, 2, 2, 1, 0, 2, 0, 1, 2, 1, 2, 2]).unwrap();
    // Token 4 is the only one that never occurs before the end (runs of one): padding too.
    let padded1 = TokenData::new(4, 2, 5, vec![0, 4, 2, 4, 0, 2, 1, 4]).unwrap();
    let learner_sets: Vec<(&str, Vec<LearnerSpec>)> = vec![
        ("marginal", vec![LearnerSpec::Marginal]),
        ("ngram", vec![LearnerSpec::Ngram { order: 2 }]),
        ("rules", vec![LearnerSpec::Rules(Default::default())]),
        ("ngram3", vec![LearnerSpec::Ngram { order: 3 }]),
        ("objects", vec![LearnerSpec::Objects]),
        (
            "marginal+ngram+rules",
            vec![
                LearnerSpec::Marginal,
                LearnerSpec::Ngram { order: 2 },
                LearnerSpec::Rules(Default::default()),
            ],
        ),
        (
            "marginal+objects+ngram3+rules",
            vec![
                LearnerSpec::Marginal,
                LearnerSpec::Objects,
                LearnerSpec::Ngram { order: 3 },
                LearnerSpec::Rules(Default::default()),
            ],
        ),
    ];
    for (name, learners) in &learner_sets {
        for (wname, w, shapes) in [
            ("blind", &blind, vec![(1, 2), (1, 3), (2, 2)]),
            ("two positions", &two, vec![(1, 2), (1, 3), (2, 2)]),
            ("three positions", &three, vec![(2, 2)]),
            ("padded", &padded, vec![(1, 3), (2, 2)]),
            ("padded, runs of one", &padded1, vec![(1, 3), (2, 2)]),
        ] {
            for (a, v) in shapes {
                let s = kraft_sum(learners, w, a, v);
                let complete = !name.contains("rules");
                assert!(
                    s <= 1.0 + 1e-9 && (s > 1.0 - 1e-9 || !complete && s > 0.85),
                    "{name}, W {wname}, {a} attributes x {v} values: Kraft sum {s}"
                );
            }
        }
    }
}
