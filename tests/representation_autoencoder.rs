//! The discrete auto-encoder learner of `kcomp represent` (feature `burn`): deterministic for a seed,
//! identical for 1 and 2 threads, recovers the true W of a small lookup table, and refuses bad
//! inputs with one-line errors.
#![cfg(feature = "burn")]

use kcomp::dataset::Targets;
use kcomp::datasets::lookup_table::{LookupParams, generate};
use kcomp::representation::ami::adjusted_mutual_info as ami;
use kcomp::representation::autoencoder::{AutoEncoder, Discretiser};
use kcomp::representation::{LearnedSentences, LearnerConfig, SentenceLearner, SentenceSpace};

fn lookup(n: usize, m: usize, k: usize, d: usize, seed: u64) -> (Targets, Vec<u32>) {
    let params = LookupParams {
        samples: n,
        length: m,
        vocab: k,
        dim: d,
        ngram: 1,
        seed,
        ..LookupParams::default()
    };
    let ds = generate(&params).unwrap();
    let z = Targets::Continuous {
        dim: d,
        lam: params.precision,
        grid: ds.z.iter().copied().collect(),
    };
    (z, ds.w.iter().map(|&x| x as u32).collect())
}

fn learn(
    learner: &AutoEncoder,
    z: &Targets,
    space: SentenceSpace,
    cfg: &LearnerConfig,
    seed: u64,
) -> kcomp::Result<LearnedSentences> {
    learner.learn(z, space, cfg, seed, &|_, _| {})
}

fn small_config(epochs: usize) -> LearnerConfig {
    LearnerConfig {
        hidden: 64,
        epochs,
        batch: 64,
        lr: 1e-3,
    }
}

/// Mean AMI per true position after the best permutation of the learned positions (M = 2).
fn ami_two_positions(truth: &[u32], learned: &[u32]) -> f64 {
    let col = |w: &[u32], j: usize| -> Vec<u32> { w.iter().skip(j).step_by(2).copied().collect() };
    let s = |i: usize, j: usize| ami(&col(truth, i), &col(learned, j));
    ((s(0, 0) + s(1, 1)).max(s(0, 1) + s(1, 0))) / 2.0
}

#[test]
fn ami_helper_matches_known_values() {
    // Identical partitions up to relabelling: 1; scikit-learn's
    // adjusted_mutual_info_score([0,0,1,1], [0,0,1,2]) = 0.5714285714285715 (hand-checked:
    // MI = ln 2, E[MI] = 1/3 ln 2 ... computed by the same hypergeometric formula).
    assert!((ami(&[0, 0, 1, 1, 2, 2], &[2, 2, 0, 0, 1, 1]) - 1.0).abs() < 1e-12);
    let v = ami(&[0, 0, 1, 1], &[0, 0, 1, 2]);
    assert!((v - 0.571_428_571_428_571_5).abs() < 1e-9, "{v}");
}

#[test]
fn same_seed_same_sentences_and_curve() {
    let (z, _) = lookup(200, 2, 4, 16, 3);
    let space = SentenceSpace {
        length: 2,
        vocab: 4,
    };
    for disc in [Discretiser::Vq, Discretiser::Gumbel, Discretiser::Softmax] {
        let learner = AutoEncoder {
            discretiser: disc,
            restarts: 2,
        };
        let a = learn(&learner, &z, space, &small_config(4), 7).unwrap();
        let b = learn(&learner, &z, space, &small_config(4), 7).unwrap();
        assert_eq!(a, b, "{disc:?}");
        assert_eq!(a.curve.len(), 4);
        assert_eq!(a.w.n, 200);
        assert_eq!(a.w.n_words, 2);
        assert!(a.w.tokens.iter().all(|&t| t < 4));
        assert!(a.curve.iter().all(|r| r.prior_bits_per_row.is_finite()
            && r.prior_bits_per_row >= 0.0
            && r.reconstruction_bits_per_row.is_finite()));
        let c = learn(&learner, &z, space, &small_config(4), 8).unwrap();
        assert_ne!(
            a.curve, c.curve,
            "{disc:?}: another seed trains another model"
        );
    }
}

#[test]
fn one_and_two_threads_give_the_same_result() {
    let (z, _) = lookup(300, 2, 4, 16, 5);
    let space = SentenceSpace {
        length: 2,
        vocab: 4,
    };
    let learner = AutoEncoder {
        discretiser: Discretiser::Vq,
        restarts: 3,
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| learn(&learner, &z, space, &small_config(5), 11).unwrap())
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn progress_reaches_every_epoch_of_every_restart() {
    let (z, _) = lookup(100, 2, 4, 16, 1);
    let learner = AutoEncoder {
        discretiser: Discretiser::Vq,
        restarts: 2,
    };
    let calls = std::cell::RefCell::new(Vec::new());
    learner
        .learn(
            &z,
            SentenceSpace {
                length: 2,
                vocab: 4,
            },
            &small_config(3),
            0,
            &|d, t| calls.borrow_mut().push((d, t)),
        )
        .unwrap();
    let calls = calls.into_inner();
    assert_eq!(calls.first(), Some(&(0, 6)));
    assert_eq!(calls.last(), Some(&(6, 6)));
    assert_eq!(calls.len(), 7);
}

#[test]
fn recovers_the_true_w_of_a_small_lookup_table() {
    // q = 1, M = 2 positions, K = 4 words, D = 16, N = 500: trains in a few seconds.
    let (z, truth) = lookup(500, 2, 4, 16, 0);
    let learner = AutoEncoder::default();
    let cfg = LearnerConfig {
        hidden: 128,
        epochs: 60,
        batch: 64,
        lr: 1e-3,
    };
    let space = SentenceSpace {
        length: 2,
        vocab: 4,
    };
    let out = learn(&learner, &z, space, &cfg, 0).unwrap();
    let score = ami_two_positions(&truth, &out.w.tokens);
    assert!(score >= 0.9, "AMI {score}");
}

fn one_line_error(r: kcomp::Result<LearnedSentences>, needle: &str) {
    let e = r.expect_err("must be refused").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    assert!(e.contains(needle), "{e:?} should mention {needle:?}");
}

#[test]
fn bad_inputs_give_one_line_errors() {
    let learner = AutoEncoder::default();
    let cfg = small_config(2);
    let space = SentenceSpace {
        length: 2,
        vocab: 4,
    };
    // NaN never reaches a grid: the loader refuses it, naming the cell.
    let mut v = vec![0.5; 40];
    v[13] = f64::NAN;
    let e = Targets::from_floats(4, 0.01, &v).unwrap_err().to_string();
    assert!(!e.contains('\n') && e.contains("row 4 column 2"), "{e}");
    // A hand-built grid with a NaN precision.
    let z = Targets::Continuous {
        dim: 2,
        lam: f64::NAN,
        grid: (0..40).collect(),
    };
    one_line_error(learn(&learner, &z, space, &cfg, 0), "precision");
    // Constant Z.
    let z = Targets::from_floats(4, 0.01, &[1.25; 80]).unwrap();
    one_line_error(learn(&learner, &z, space, &cfg, 0), "same point");
    // A precision that puts every value in one cell.
    let vals: Vec<f64> = (0..80).map(|i| (i as f64 * 0.37).sin()).collect();
    let z = Targets::from_floats(4, 1e6, &vals).unwrap();
    one_line_error(learn(&learner, &z, space, &cfg, 0), "precision 1000000");
    // N < 10.
    let z = Targets::from_floats(4, 0.01, &vals[..36]).unwrap();
    one_line_error(learn(&learner, &z, space, &cfg, 0), "9 rows");
    // Categorical Z, empty sentence space, a vocabulary of one word, zero epochs, huge layers.
    let zd = Targets::discrete(
        2,
        3,
        vec![
            0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0,
        ],
    )
    .unwrap();
    one_line_error(learn(&learner, &zd, space, &cfg, 0), "continuous");
    let z = Targets::from_floats(4, 0.01, &vals).unwrap();
    let bad_space = SentenceSpace {
        length: 0,
        vocab: 4,
    };
    one_line_error(learn(&learner, &z, bad_space, &cfg, 0), "M must be");
    let bad_space = SentenceSpace {
        length: 2,
        vocab: 1,
    };
    one_line_error(learn(&learner, &z, bad_space, &cfg, 0), "V must be");
    one_line_error(learn(&learner, &z, space, &small_config(0), 0), "epochs");
    let huge = SentenceSpace {
        length: 1 << 20,
        vocab: 1 << 20,
    };
    one_line_error(learn(&learner, &z, huge, &cfg, 0), "weights");
    let mut lr = small_config(2);
    lr.lr = f64::INFINITY;
    one_line_error(learn(&learner, &z, space, &lr, 0), "lr");
}

/// A sentence may be longer than Z's dimension for the auto-encoder (a grammar's 16 words
/// for 10 dimensions), not for block k-means (one block of dimensions per position): the
/// selection asks the learner.
#[test]
fn sentences_longer_than_d_are_learned_by_the_autoencoder_only() {
    use kcomp::representation::kmeans::KMeansLearner;
    use kcomp::representation::select::{SelectConfig, select};
    let (z, _) = lookup(60, 2, 3, 4, 1);
    let cfg = SelectConfig {
        lengths: Some(vec![6]),
        vocabs: Some(vec![2]),
        learner: small_config(2),
        ..Default::default()
    };
    let one = AutoEncoder {
        restarts: 1,
        ..Default::default()
    };
    let s = select(&one, &z, &cfg, &|_, _| {}).unwrap();
    assert_eq!((s.learned.w.n, s.learned.w.n_words), (60, 6));
    let e = select(&KMeansLearner::default(), &z, &cfg, &|_, _| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("dimension D = 4") && !e.contains('\n'), "{e}");
}

/// `kcomp represent --learner autoencoder` runs end to end (W.npy of the asked shape, the
/// terms as JSON) and refuses a bad learning rate with a one-line error and exit status 2.
#[test]
fn represent_runs_the_autoencoder_and_refuses_a_bad_lr() {
    let dir = tempfile::tempdir().unwrap();
    let (z, _) = lookup(40, 2, 3, 4, 2);
    let Targets::Continuous { grid, lam, dim } = &z else {
        unreachable!()
    };
    let text: String = grid
        .chunks(*dim)
        .map(|r| {
            let v: Vec<String> = r.iter().map(|&k| format!("{}", k as f64 * lam)).collect();
            v.join(",") + "\n"
        })
        .collect();
    let zp = dir.path().join("z.csv");
    std::fs::write(&zp, text).unwrap();
    let run = |extra: &[&str], out: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kcomp"))
            .args(["represent", "--learner", "autoencoder", "--z"])
            .arg(&zp)
            .args(["--precision", "0.01", "--quiet", "--length", "2"])
            .args(["--vocab", "3", "--epochs", "3", "--json", "--out"])
            .arg(dir.path().join(out))
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&[], "ok");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["learner"], "autoencoder");
    let w: ndarray::Array2<i64> = ndarray_npy::read_npy(dir.path().join("ok/W.npy")).unwrap();
    assert_eq!(w.dim(), (40, 2));
    for lr in ["0", "nan", "-1"] {
        let out = run(&["--lr", lr], "bad");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{lr}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{lr}: {err}");
        assert!(err.contains("lr"), "{lr}: {err}");
    }
}
