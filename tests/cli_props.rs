//! Property tests over the command line's parameter space: random huge, tiny, NaN, infinite,
//! zero and negative values of every numeric parameter of `synth lookup`, `synth grammar`,
//! `prequential` (configuration and validation only, no training), `grid generate` and sweep
//! configs. Each must give Ok or a clean error (never a panic, never an allocation abort: the
//! memory limit is lowered to 64 MiB so that anything accepted is also cheap to run).

use clap::Parser;
use proptest::prelude::*;

use kcomp::cli::{Cli, Command};
use kcomp::datasets::grammar::{self, Composition, GrammarParams};
use kcomp::datasets::lookup_table::{self, LookupParams};
use kcomp::datasets::string_grid::{GridSpec, Setting};
use kcomp::rng::stream::RngKind;
use kcomp::sweeps::config::SweepConfig;

fn limit() {
    kcomp::io::limits::set_max_memory(64 << 20);
}

fn real() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(1e308),
        Just(-1e308),
        Just(1e-308),
        Just(5e-324),
        Just(-1.0),
        any::<f64>(),
        1e-3..10.0f64,
    ]
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(u32::MAX as usize),
        Just(1 << 32),
        Just(usize::MAX),
        0..64usize,
        any::<usize>(),
    ]
}

/// A text for a flag value: numbers of every kind, and garbage.
fn flag_text() -> impl Strategy<Value = String> {
    prop_oneof![
        real().prop_map(|x| x.to_string()),
        size().prop_map(|x| x.to_string()),
        Just("-1".to_string()),
        Just("nan".to_string()),
        Just("-inf".to_string()),
        Just("1e400".to_string()),
        Just("".to_string()),
        Just("x".to_string()),
        Just("3,0".to_string()),
        Just("10,1000000000".to_string()),
        Just("0,0".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn lookup_params_never_panic(
        samples in size(), length in size(), vocab in size(), dim in size(), ngram in size(),
        precision in real(), noise in real(), table_std in real(), numpy in any::<bool>(),
    ) {
        limit();
        let p = LookupParams {
            samples, length, vocab, dim, ngram, precision, noise, table_std,
            rng: if numpy { RngKind::Numpy } else { RngKind::Kcomp },
            ..Default::default()
        };
        if p.validate().is_ok() && samples.saturating_mul(dim) <= 20_000 && samples <= 200 {
            let d = lookup_table::generate(&p);
            if let Ok(d) = d {
                let t = d.terms;
                for v in [t.k_pw, t.k_w_given_pw, t.k_f, t.k_z_given_wf] {
                    prop_assert!(v.is_finite() && v >= 0.0, "{p:?}: {v}");
                }
            }
        }
    }

    #[test]
    fn grammar_params_never_panic(
        samples in size(), length in size(), vocab in size(), dim in size(), pos in size(),
        width in size(), depth in size(), precision in real(), noise in real(),
        param_std in real(), tensor in any::<bool>(),
    ) {
        limit();
        let p = GrammarParams {
            samples, length, vocab, dim, pos, width, depth, precision, noise, param_std,
            composition: if tensor { Composition::Tensor } else { Composition::Linear },
            ..Default::default()
        };
        if p.validate().is_ok()
            && samples <= 50
            && length <= 32
            && dim <= 16
            && vocab <= 1000
            && let Ok(d) = grammar::generate(&p)
        {
            prop_assert!(d.terms.k_z_given_wf.is_finite() && d.terms.k_f.is_finite());
        }
    }

    #[test]
    fn prequential_flags_never_panic(
        values in proptest::collection::vec(flag_text(), 17),
    ) {
        limit();
        let flags = [
            "--holistic-fraction", "--synonyms", "--val-size", "--increment",
            "--log-schedule", "--fractions", "--hidden", "--emb-dim", "--dropout", "--lr",
            "--batch-size", "--max-epochs", "--patience", "--tolerance", "--lr-decay",
            "--threads", "--language-seed",
        ];
        // One flag at a time, then all of them together (the reference protocol reads them).
        let mut all = ["kcomp", "prequential", "--protocol", "reference"].map(String::from).to_vec();
        for (flag, value) in flags.iter().zip(&values) {
            check_prequential(&["kcomp", "prequential", "--protocol", "reference", flag, value]);
            all.push(flag.to_string());
            all.push(value.clone());
        }
        let _ = Cli::try_parse_from(&all);
    }

    #[test]
    fn grid_specs_never_panic(
        positions in size(), letters in size(), side in size(), samples in size(),
        records in size(), complementary in any::<bool>(), setting in 0..6usize,
    ) {
        limit();
        let spec = GridSpec { positions, letters, side, samples, complementary };
        let setting = Setting::parse(["h", "v", "b", "r", "hr", "h-index-shuffle"][setting]).unwrap();
        if spec.validate(setting).is_ok() && records <= 20 {
            let _ = spec.generate(setting, records, 0);
        } else {
            let _ = spec.generate(setting, records.min(1 << 40), 0).err();
        }
    }

    #[test]
    fn sweep_configs_never_panic(
        value in flag_text(), fixed in flag_text(), seeds in flag_text(),
        parameter in prop_oneof![Just("length"), Just("noise"), Just("vocab"), Just("dim"), Just("precision")],
        grammar in any::<bool>(),
    ) {
        limit();
        let toml_value = |s: &str| match s.parse::<f64>() {
            Ok(x) if x.is_nan() => "nan".to_string(),
            Ok(x) if x.is_infinite() => if x > 0.0 { "inf".into() } else { "-inf".into() },
            Ok(_) if s.parse::<i64>().is_ok() => format!("{}", s.parse::<i64>().unwrap()),
            Ok(x) => format!("{x:e}"),
            Err(_) => format!("\"{s}\""),
        };
        let text = format!(
            "name = \"p\"\ngenerator = \"{}\"\nparameter = \"{parameter}\"\nvalues = [{}]\nseeds = {}\n[params]\nsamples = 5\nnoise = {}\n",
            if grammar { "grammar" } else { "lookup" },
            toml_value(&value),
            toml_value(&seeds),
            toml_value(&fixed),
        );
        let _ = SweepConfig::from_toml("p.toml", &text);
    }
}

/// Parses a prequential command line and runs everything up to training.
fn check_prequential(args: &[&str]) {
    let Ok(cli) = Cli::try_parse_from(args) else {
        return;
    };
    let Command::Prequential(a) = cli.command else {
        panic!("not prequential");
    };
    if let Ok(mut resolved) = kcomp::cli::prequential::resolve_args(&a)
        && let Ok((w, z)) = resolved.config.load_data()
    {
        resolved.settle_val_size(w.n);
        let _ =
            kcomp::estimators::prequential::code::validate(&w, &z, &resolved.config.prequential);
    }
}

#[test]
fn the_listed_cases_are_clean_errors() {
    limit();
    let bad = LookupParams {
        precision: 1e-308,
        ..Default::default()
    };
    assert!(
        bad.validate()
            .unwrap_err()
            .to_string()
            .contains("precision")
    );
    let huge = GrammarParams {
        vocab: 4_294_967_295,
        ..Default::default()
    };
    assert!(huge.validate().unwrap_err().to_string().contains("vocab"));
}
