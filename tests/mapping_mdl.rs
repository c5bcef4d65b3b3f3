//! The shortest mapping table (`mapping_mdl`) on string-to-grid data: the published records,
//! random maps, planted exceptions, code validity and the grid family's exact K(Z|W).

mod common;

use kcomp::dataset::{Dataset, Targets, TokenData};
use kcomp::datasets::string_grid::dataset::{GridSource, record_to_dataset};
use kcomp::datasets::string_grid::{GridSpec, Holistic, Setting, read_dataset};
use kcomp::estimators::interface::{EstimateStatus, Progress, run_estimator};
use kcomp::estimators::mapping_mdl::code::decode;
use kcomp::estimators::mapping_mdl::{
    MappingMdl, MappingMdlEstimator, encode_program, evaluate, fit,
};

fn source(setting: Setting, record: usize, holistic: Holistic) -> GridSource {
    GridSource {
        setting,
        seed: 0,
        record,
        holistic,
    }
}

/// The code of `r` decodes to Z and the decoder counts the same number of bits.
fn assert_code_valid(d: &Dataset, r: &MappingMdl) {
    let code = encode_program(&d.w, &d.z, r).unwrap();
    let Targets::Discrete {
        n_attr,
        n_vals,
        values,
    } = &d.z
    else {
        panic!("discrete")
    };
    let (z, bits) = decode(&d.w, *n_attr, *n_vals, &code).unwrap();
    assert_eq!(&z, values);
    assert!((bits - r.bits).abs() < 1e-9, "{bits} vs {}", r.bits);
    let parts: f64 = r.bits_parts.values().sum();
    assert!((parts - r.bits).abs() < 1e-9);
}

#[test]
fn published_records_all_have_the_ideal_table() {
    let spec = GridSpec::default();
    let mut count = 0;
    for setting in Setting::ALL {
        let path = common::data_dir().join("rgp").join(spec.file_name(setting));
        let records = read_dataset(&path).unwrap();
        assert_eq!(records.len(), 30);
        for (i, rec) in records.iter().enumerate() {
            let d =
                record_to_dataset(rec, &spec, &source(setting, i, Holistic::NONE), None).unwrap();
            let r = fit(&d.w, &d.z).unwrap();
            assert_eq!(
                (r.l_p_plus, r.errors, r.l_p),
                (40, 0, 40),
                "{} record {i}: {:?}",
                setting.name(),
                r.tables
            );
            assert!(r.exhaustive);
            assert_eq!(r.tables.len(), 4);
            if i < 3 {
                assert_code_valid(&d, &r);
            }
            count += 1;
        }
    }
    assert_eq!(count, 180);
}

/// On a random map of 16 inputs to 16 cells a table keyed on k of the 4 positions holds 2^k
/// entries of (k + 16) values, each right for one of the 2^(4-k) inputs sharing its key; the
/// others are exceptions of 20. L(P) = 2^k (k + 16) + (16 - 2^k) 20 = 320 - 2^k (4 - k):
/// 316, 314, 312, 312, 320 for k = 0..4. Full enumeration (k = 4) is 320, but partial tables
/// plus exceptions are 8 shorter, and chance regularities of a particular random map (a cell
/// that happens to follow one position on the inputs a table gets right) shorten it a little
/// more (292 to 312 on these 20 maps). The search must find at most 312, and the map stays
/// near zero compositionality: L(P) >= 280, C(P) <= 14 (the layouts score 40, C(P) = 100).
#[test]
fn random_map_costs_full_enumeration_less_the_exception_discount() {
    let spec = GridSpec::default();
    let gens = spec
        .generate_programs(Setting::Holistic, 20, 3, Holistic::NONE)
        .unwrap();
    let mut found = Vec::new();
    for (i, g) in gens.iter().enumerate() {
        let d = g
            .to_dataset(&spec, &source(Setting::Holistic, i, Holistic::NONE))
            .unwrap();
        let full = evaluate(&d.w, &d.z, &vec![(vec![0, 1, 2, 3], (0..16).collect())]).unwrap();
        assert_eq!((full.l_p_plus, full.errors, full.l_p), (320, 0, 320));
        let r = fit(&d.w, &d.z).unwrap();
        assert!(r.l_p <= 312 && r.l_p >= 280, "record {i}: {}", r.l_p);
        found.push(r.l_p);
        assert_code_valid(&d, &r);
        assert_code_valid(&d, &full);
        // the exact program of a holistic record is its grids: K(Z|W) = K(Z)
        let exact = d.exact.as_ref().unwrap();
        assert_eq!(exact.k_z_given_w_bits, 256.0);
        assert_eq!(d.k_z.bits, 256.0);
    }
    eprintln!("random-map L(P): {found:?}");
}

#[test]
fn one_flipped_cell_is_one_exception() {
    let spec = GridSpec::default();
    let path = common::data_dir()
        .join("rgp")
        .join(spec.file_name(Setting::Random));
    let mut rec = read_dataset(&path).unwrap().swap_remove(4);
    let mut cells: Vec<u8> = rec.output[7].bytes().collect();
    cells[5] = if cells[5] == b'*' { b'.' } else { b'*' };
    rec.output[7] = String::from_utf8(cells).unwrap();
    let d = record_to_dataset(
        &rec,
        &spec,
        &source(Setting::Random, 4, Holistic::NONE),
        None,
    )
    .unwrap();
    let r = fit(&d.w, &d.z).unwrap();
    assert_eq!((r.l_p_plus, r.errors, r.l_p), (40, 1, 60));
    assert_eq!(r.exceptions[0].input, d.w.row(7).to_vec());
    assert_code_valid(&d, &r);
}

#[test]
fn repeated_inputs_with_noise_pay_residuals() {
    // Two positions (3 x 2 values), each of the 6 inputs twice; Z = position 0, except the
    // second copy of input (2, 1), which says 0.
    let mut tokens = Vec::new();
    let mut z = Vec::new();
    for i in 0..12u32 {
        let (p0, p1) = ((i % 6) / 2, (i % 6) % 2);
        tokens.extend([p0, p1]);
        z.push(if i == 11 { 0 } else { p0 });
    }
    let w = TokenData::new(12, 2, 3, tokens).unwrap();
    let z = Targets::discrete(1, 3, z).unwrap();
    let r = fit(&w, &z).unwrap();
    assert_eq!((r.l_p_plus, r.errors, r.residual_rows), (6, 0, 1));
    assert_eq!(r.tables[0].keys, vec![0]);
    let kz = kcomp::dataset::KzReference {
        bits: 12.0 * 3f64.log2(),
        method: kcomp::dataset::KzMethod::Uniform,
    };
    let d = Dataset::new(w, z, Default::default(), kz, None).unwrap();
    assert_code_valid(&d, &r);
    // alphabet mode 1 + |S| log2 3 + S log2 C(2, 1) + 3 entries log2 3 + E log2 7
    // + R log2(12 - 6 + 1) + which row log2 12 + its value log2 3
    let l3 = 3f64.log2();
    let want = 1.0 + l3 + 1.0 + 3.0 * l3 + 7f64.log2() + 7f64.log2() + 12f64.log2() + l3;
    assert!((r.bits - want).abs() < 1e-9, "{} vs {want}", r.bits);
}

#[test]
fn holistic_fraction_runs_from_compositional_to_holistic() {
    let spec = GridSpec::default();
    let plain = spec.generate(Setting::Horizontal, 4, 0).unwrap();
    let h0 = spec
        .generate_programs(
            Setting::Horizontal,
            4,
            0,
            Holistic {
                fraction: 0.0,
                seed: 9,
            },
        )
        .unwrap();
    let h25 = spec
        .generate_programs(
            Setting::Horizontal,
            4,
            0,
            Holistic {
                fraction: 0.25,
                seed: 9,
            },
        )
        .unwrap();
    let h1 = spec
        .generate_programs(
            Setting::Horizontal,
            4,
            0,
            Holistic {
                fraction: 1.0,
                seed: 9,
            },
        )
        .unwrap();
    for i in 0..4 {
        assert_eq!(h0[i].record, plain[i]);
        // same inputs in the same order whatever h
        assert_eq!(h1[i].record.input, plain[i].input);
        let hol = Holistic {
            fraction: 0.0,
            seed: 9,
        };
        let d0 = h0[i]
            .to_dataset(&spec, &source(Setting::Horizontal, i, hol))
            .unwrap();
        let r0 = fit(&d0.w, &d0.z).unwrap();
        assert_eq!((r0.l_p, r0.errors), (40, 0));
        assert_eq!(d0.exact.as_ref().unwrap().k_z_given_w_bits, 16.0);

        let hol = Holistic {
            fraction: 0.25,
            seed: 9,
        };
        assert_eq!(h25[i].program.holistic.len(), 4);
        let d = h25[i]
            .to_dataset(&spec, &source(Setting::Horizontal, i, hol))
            .unwrap();
        let exact = d.exact.as_ref().unwrap();
        let want = 16.0 + 1820f64.log2() + 4.0 * 16.0;
        assert!((exact.k_z_given_w_bits - want).abs() < 1e-9);
        let r = fit(&d.w, &d.z).unwrap();
        // the layout's tables with the 4 holistic inputs as exceptions cost 40 + 4 x 20
        assert!(r.l_p <= 120 && r.l_p > 40, "{}", r.l_p);

        let hol = Holistic {
            fraction: 1.0,
            seed: 9,
        };
        let d = h1[i]
            .to_dataset(&spec, &source(Setting::Horizontal, i, hol))
            .unwrap();
        assert_eq!(d.exact.as_ref().unwrap().k_z_given_w_bits, 256.0);
        let r = fit(&d.w, &d.z).unwrap();
        assert!(r.l_p <= 312 && r.l_p >= 280, "{}", r.l_p);
    }
    let bad = spec.generate_programs(
        Setting::Horizontal,
        1,
        0,
        Holistic {
            fraction: 1.5,
            seed: 0,
        },
    );
    assert!(bad.unwrap_err().to_string().contains("holistic fraction"));
}

/// Every cell of a 6 x 6 grid driven by one of 6 positions with 4 letters: each position's
/// non-constant cells share a table of 4 entries x (1 + cells), constant cells one entry.
#[test]
fn six_positions_four_letters_on_a_six_by_six_grid() {
    let spec = GridSpec {
        positions: 6,
        letters: 4,
        side: 6,
        samples: 4096,
        complementary: false,
    };
    for setting in [Setting::Horizontal, Setting::Random] {
        let g = spec
            .generate_programs(setting, 1, 5, Holistic::NONE)
            .unwrap()
            .swap_remove(0);
        let d = g
            .to_dataset(&spec, &source(setting, 0, Holistic::NONE))
            .unwrap();
        assert_eq!((d.n(), d.w.n_words, d.z.width()), (4096, 6, 36));
        let mut want = 0;
        let mut constant = 0;
        for pats in &g.program.patterns {
            let varying = (0..6)
                .filter(|&j| pats.iter().any(|p| p[j] != pats[0][j]))
                .count();
            constant += 6 - varying;
            if varying > 0 {
                want += 4 * (1 + varying);
            }
        }
        want += constant;
        let r = fit(&d.w, &d.z).unwrap();
        assert_eq!((r.l_p_plus, r.errors), (want, 0), "{}", setting.name());
        assert!(r.exhaustive);
        assert_code_valid(&d, &r);
        let exact = d.exact.as_ref().unwrap();
        let layout = if setting == Setting::Random {
            // 36! / (6!)^6
            (2..=36).map(|i| (i as f64).log2()).sum::<f64>() - 6.0 * 720f64.log2()
        } else {
            0.0
        };
        assert!((exact.k_z_given_w_bits - (layout + 6.0 * 4.0 * 6.0)).abs() < 1e-9);
    }
}

/// The generator's layouts of a setting number exactly the closed form's L.
#[test]
fn layout_counts_match_the_closed_form() {
    use kcomp::datasets::string_grid::dataset::layout_bits;
    use std::collections::BTreeSet;
    let cases = [
        (
            GridSpec::default(),
            Setting::HorizontalRandom,
            415usize,
            20_000usize,
        ),
        (
            GridSpec::default(),
            Setting::HorizontalIndexShuffle,
            23,
            2_000,
        ),
        (
            GridSpec {
                positions: 3,
                letters: 2,
                side: 3,
                samples: 8,
                complementary: true,
            },
            Setting::Random,
            1680,
            40_000,
        ),
    ];
    for (spec, setting, want, draws) in cases {
        assert!((layout_bits(&spec, setting) - (want as f64).log2()).abs() < 1e-9);
        let gens = spec
            .generate_programs(setting, draws, 1, Holistic::NONE)
            .unwrap();
        let seen: BTreeSet<Vec<BTreeSet<usize>>> = gens
            .iter()
            .map(|g| {
                g.program
                    .layout
                    .iter()
                    .map(|cells| cells.iter().copied().collect())
                    .collect()
            })
            .collect();
        assert_eq!(seen.len(), want, "{}", setting.name());
    }
}

#[test]
fn estimator_reports_bits_and_native_fields() {
    let spec = GridSpec::default();
    let path = common::data_dir()
        .join("rgp")
        .join(spec.file_name(Setting::Block));
    let rec = read_dataset(&path).unwrap().swap_remove(0);
    let d = record_to_dataset(
        &rec,
        &spec,
        &source(Setting::Block, 0, Holistic::NONE),
        None,
    )
    .unwrap();
    let row = run_estimator(&MappingMdlEstimator, &d, &Progress::hidden());
    assert_eq!(row.status, EstimateStatus::Ok);
    assert_eq!(row.native["l_p_plus"], 40);
    assert_eq!(row.native["errors"], 0);
    assert_eq!(row.native["l_p"], 40);
    assert_eq!(row.native["exhaustive"], true);
    let bits = row.k_z_given_w_bits.unwrap();
    assert_eq!(row.c, Some(256.0 / bits));
    assert_eq!(d.provenance.family, "grid");
    assert_eq!(d.provenance.params["setting"], "b");
    assert_eq!(d.exact.as_ref().unwrap().k_z_given_w_bits, 16.0);
}
