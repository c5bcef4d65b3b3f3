//! The comparison panel's estimators on real datasets: exact, compression, posdis/bosdis,
//! topsim, and rank agreement between them.

use kcomp::dataset::{Dataset, KzMethod, KzReference, Provenance, Targets, TokenData};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::datasets::lookup_table::{self, LookupParams};
use kcomp::estimators::agreement::{RankStatistic, agreement};
use kcomp::estimators::compression::{CompressionEstimator, Compressor, serialise};
use kcomp::estimators::disentanglement::{BosdisEstimator, PosdisEstimator, posdis};
use kcomp::estimators::ground_truth::ExactEstimator;
use kcomp::estimators::interface::{EstimateStatus, Estimator, Progress, run_estimator};
use kcomp::estimators::topsim::TopsimEstimator;

/// The attributes of EGG's posdis doctest: `torch.manual_seed(0)`, then
/// `torch.randint(0, 10, (1000, 1))` twice (torch 2.15.0, CPU generator), written by torch.
fn torch_attributes() -> Vec<Vec<u64>> {
    let text = include_str!("data/posdis_torch_seed0.csv");
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect()
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

#[test]
fn posdis_matches_egg_doctest_on_torch_data() {
    let attrs = torch_attributes();
    assert_eq!(attrs.len(), 1000);
    assert_eq!(attrs[0], vec![4, 5]);
    // messages = attributes.
    assert_eq!(round6(posdis(&attrs, &attrs).unwrap()), 0.978656);
    // Appending constant positions changes nothing (they have zero entropy).
    let padded: Vec<Vec<u64>> = attrs.iter().map(|r| vec![r[0], r[1], 0, 0]).collect();
    assert_eq!(round6(posdis(&attrs, &padded).unwrap()), 0.978656);
    // Through the Estimator seam.
    let flat: Vec<u32> = attrs.iter().flatten().map(|&v| v as u32).collect();
    let d = Dataset::new(
        TokenData::new(1000, 2, 10, flat.clone()).unwrap(),
        Targets::discrete(2, 10, flat).unwrap(),
        Provenance::default(),
        KzReference {
            bits: 1000.0 * 100f64.log2(),
            method: KzMethod::Uniform,
        },
        None,
    )
    .unwrap();
    let row = run_estimator(&PosdisEstimator, &d, &Progress::hidden());
    assert_eq!(row.status, EstimateStatus::Ok);
    assert_eq!(round6(row.score.unwrap()), 0.978656);
    assert_eq!(row.c, None);
}

#[test]
fn compressed_streams_decode_to_the_serialisation() {
    let d = LanguageSystemConfig {
        repeats: 10,
        ..Default::default()
    }
    .dataset()
    .unwrap();
    let s = serialise(&d, Some(0));
    // 640 rows x (2 one-byte tokens + 2 one-byte values).
    assert_eq!((s.w.len(), s.z.len(), s.wz.len()), (1280, 1280, 2560));
    for c in Compressor::ALL {
        for stream in [&s.w, &s.z, &s.wz] {
            let packed = c.compress(stream).unwrap();
            assert_eq!(&c.decompress(&packed).unwrap(), stream, "{}", c.name());
        }
    }
    let row = run_estimator(&CompressionEstimator::default(), &d, &Progress::hidden());
    assert_eq!(row.status, EstimateStatus::Ok);
    let k = row.k_z_given_w_bits.unwrap();
    assert!(k >= 0.0);
    // The estimate is the best of the three and each is 8 x a byte difference (or 0).
    let per: Vec<f64> = ["zstd", "xz", "bzip2"]
        .iter()
        .map(|c| row.native[*c]["k_z_given_w_bits"].as_f64().unwrap())
        .collect();
    assert_eq!(k, per.iter().copied().fold(f64::INFINITY, f64::min));
    for (name, bits) in ["zstd", "xz", "bzip2"].iter().zip(&per) {
        let n = &row.native[*name];
        let diff = n["c_wz_bytes"].as_f64().unwrap() - n["c_w_bytes"].as_f64().unwrap();
        assert_eq!(*bits, 8.0 * diff.max(0.0));
        let ncd = n["ncd"].as_f64().unwrap();
        assert!((0.0..=1.2).contains(&ncd), "{name} ncd {ncd}");
    }
    assert!(
        row.notes
            .iter()
            .any(|n| n.contains("needs thousands of rows"))
    );
}

/// h = 0 and h = 1 languages, 4 seeds each: every estimator sees the same datasets.
#[test]
fn panel_on_language_systems_ranks_compositional_above_holistic() {
    let p = Progress::hidden();
    let mut c_exact = vec![Vec::new(), Vec::new()];
    let mut c_comp = vec![Vec::new(), Vec::new()];
    let mut pos = vec![Vec::new(), Vec::new()];
    let mut top = vec![Vec::new(), Vec::new()];
    for (k, h) in [0.0, 1.0].into_iter().enumerate() {
        for seed in 0..4 {
            let d = LanguageSystemConfig {
                holistic_fraction: h,
                seed,
                ..Default::default()
            }
            .dataset()
            .unwrap();
            let e = run_estimator(&ExactEstimator, &d, &p);
            let c = run_estimator(&CompressionEstimator::default(), &d, &p);
            let ps = run_estimator(&PosdisEstimator, &d, &p);
            let bs = run_estimator(&BosdisEstimator::default(), &d, &p);
            let ts = run_estimator(&TopsimEstimator::default(), &d, &p);
            for r in [&e, &c, &ps, &bs, &ts] {
                assert_eq!(r.status, EstimateStatus::Ok, "{}", r.estimator);
            }
            c_exact[k].push(e.c.unwrap());
            c_comp[k].push(c.c.unwrap());
            pos[k].push(ps.score.unwrap());
            top[k].push(ts.score.unwrap());
            if h == 0.0 {
                // Fixed order, one word per attribute: each position carries its attribute.
                assert!((ps.score.unwrap() - 1.0).abs() < 1e-12);
                assert!((e.c.unwrap() - 19200.0 / 30.598_410).abs() < 1e-2);
                // Topsim on discrete Z defaults to Hamming on Z (one-hot cityblock on W,
                // 2 x Hamming): the W distance is exactly twice the Z distance, so 1.
                assert!((ts.score.unwrap() - 1.0).abs() < 1e-12, "{:?}", ts.score);
            }
        }
    }
    for s in 0..4 {
        assert!(c_exact[0][s] > c_exact[1][s]);
        // On shuffled rows the compressors learn little of w -> z: C ~ 2.3-3.5 for both
        // languages (exact: 627 and 59), and the per-seed ranking is not reliable.
        for k in 0..2 {
            assert!((2.0..4.0).contains(&c_comp[k][s]), "{c_comp:?}");
        }
        assert!(pos[0][s] > pos[1][s]);
        // The holistic language's topsim is far below 1 (repeats of one object tie at distance
        // 0 on both sides, so even h = 1 is positive).
        assert!(top[0][s] > top[1][s] + 0.5, "{top:?}");
        assert!(top[1][s] > 0.0, "{top:?}");
    }
    let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    assert!(mean(&c_comp[0]) > mean(&c_comp[1]), "{c_comp:?}");
    // Agreement over the family (2 parameter values x 4 seeds): exact C ties within each h
    // (12 of the 28 pairs), posdis ties within h = 0 (6 pairs); the 16 cross pairs are all
    // concordant: tau-b = 16 / sqrt((28 - 12)(28 - 6)) = 0.852803.
    let a = agreement(&c_exact, &pos, RankStatistic::KendallTauB, 200, 5).unwrap();
    assert!((a.value.unwrap() - 16.0 / 352f64.sqrt()).abs() < 1e-12);
    let ci = a.ci95.unwrap();
    assert!(ci.lo <= a.value.unwrap() && ci.hi <= 1.0, "{a:?}");
    let b = agreement(&c_exact, &c_comp, RankStatistic::KendallTauB, 200, 5).unwrap();
    let v = b.value.unwrap();
    let ci = b.ci95.unwrap();
    assert!(ci.lo <= v && v <= ci.hi, "{b:?}");
    println!(
        "exact C {c_exact:?}\ncompression C {c_comp:?}\nposdis {pos:?}\ntopsim {top:?}\n{a:?}\n{b:?}"
    );
}

#[test]
fn continuous_data_goes_through_exact_and_compression_only() {
    let g = lookup_table::generate(&LookupParams {
        samples: 100,
        ..Default::default()
    })
    .unwrap();
    let d = g.to_dataset().unwrap();
    let p = Progress::hidden();
    let exact = run_estimator(&ExactEstimator, &d, &p);
    assert_eq!(exact.c, Some(g.terms.c()));
    let comp = run_estimator(&CompressionEstimator::default(), &d, &p);
    assert_eq!(comp.status, EstimateStatus::Ok);
    // The noise alone costs ~2.02 bits per value; a compressor cannot beat the noise code.
    assert!(comp.k_z_given_w_bits.unwrap() > g.terms.k_z_given_wf);
    for est in [
        &PosdisEstimator as &dyn Estimator,
        &BosdisEstimator::default(),
    ] {
        let row = run_estimator(est, &d, &p);
        assert!(matches!(row.status, EstimateStatus::NotApplicable(_)));
    }
}

/// Scores whose maximum on the data is below 1, or that cannot separate attributes there, say
/// so beside the value: context independence of a perfect two-symbol code (0.25, its ceiling
/// on two attributes), posdis on string-to-grid layouts (a letter fills several cells: tied
/// positions), bosdis on a language whose positions share one vocabulary.
#[test]
fn scores_say_when_their_maximum_or_meaning_differs_here() {
    use kcomp::estimators::context_independence::ContextIndependenceEstimator;
    let hidden = Progress::hidden();
    // A perfect code on 5 x 5 objects, one symbol per attribute from its own range.
    let objs: Vec<u32> = (0..5)
        .flat_map(|a| (0..5).flat_map(move |b| [a, b]))
        .collect();
    let msgs: Vec<u32> = objs.chunks(2).flat_map(|o| [o[0], 5 + o[1]]).collect();
    let perfect = Dataset::new(
        TokenData::new(25, 2, 10, msgs).unwrap(),
        Targets::discrete(2, 5, objs.clone()).unwrap(),
        Provenance::default(),
        KzReference {
            bits: 25.0 * 25f64.log2(),
            method: KzMethod::Uniform,
        },
        None,
    )
    .unwrap();
    let ci = run_estimator(&ContextIndependenceEstimator, &perfect, &hidden);
    assert!((ci.score.unwrap() - 0.25).abs() < 1e-6);
    assert!((ci.native["perfect_code"].as_f64().unwrap() - 0.25).abs() < 1e-6);
    assert!(
        ci.notes.iter().any(|n| n.contains("scores 0.2500")),
        "{:?}",
        ci.notes
    );
    // The same code with both attributes in one vocabulary 0..4: posdis 1, bosdis cannot
    // tell the positions apart, and says so.
    let shared: Vec<u32> = objs.clone();
    let shared = Dataset::new(
        TokenData::new(25, 2, 5, shared).unwrap(),
        Targets::discrete(2, 5, objs).unwrap(),
        Provenance::default(),
        perfect.k_z,
        None,
    )
    .unwrap();
    let pos = run_estimator(&PosdisEstimator, &shared, &hidden);
    assert!((pos.score.unwrap() - 1.0).abs() < 1e-9);
    assert!(pos.notes.is_empty(), "{:?}", pos.notes);
    let bos = run_estimator(&BosdisEstimator { eos: None }, &shared, &hidden);
    assert!(bos.score.unwrap() < 0.5, "{:?}", bos.score);
    assert!(
        bos.notes
            .iter()
            .any(|n| n.contains("5 of 5 symbols occur at several")),
        "{:?}",
        bos.notes
    );
    // The published horizontal grid layout: each letter fills a row of cells.
    let grid = kcomp::panel::single::grid_record_dataset(
        std::path::Path::new("tests/data/rgp/k=4_u=2_d=16_type=h.jsonl"),
        0,
        None,
    )
    .unwrap();
    let pos = run_estimator(&PosdisEstimator, &grid, &hidden);
    assert_eq!(
        pos.native["tied_positions"],
        pos.native["informative_positions"]
    );
    assert!(
        pos.notes.iter().any(|n| n.contains("posdis gives them 0")),
        "{:?} {:?}",
        pos.score,
        pos.notes
    );
}
