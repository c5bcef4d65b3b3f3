//! Where the rule learner's bits go on a language system (2 attributes x 8 values, 2-token
//! messages over 8 symbols, 64 objects, N / 64 repeats), in the random row order the online
//! scheme codes: first occurrences of a message (lexicon and holistic objects apart) against
//! its repeats ("C strictly decreasing in h"; experiments/prequential-accuracy).
//!
//! Also prints, over the holistic first occurrences, sum log2 (unnamed objects / unnamed
//! holistic objects): what an exception drawn uniformly among every object no message names
//! yet pays over one drawn among the holistic objects only (the rule learner's orphan pool is
//! meant to recover it).
//!
//! Usage: cargo run --release --example rules_repeat_split -- H N SEED [--rows]
use std::collections::HashMap;

use kcomp::dataset::Targets;
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::estimators::prequential::Ordering;
use kcomp::estimators::prequential::learners::rules::{RuleLearner, RuleSettings};
use kcomp::estimators::prequential::online::OnlineLearner;
use kcomp::estimators::prequential::schedule::order_rows;

fn usage() -> ! {
    eprintln!("usage: rules_repeat_split H N SEED [--rows]");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 || args.len() > 4 {
        usage();
    }
    let h: f64 = args[0].parse().unwrap_or_else(|_| usage());
    let n: usize = args[1].parse().unwrap_or_else(|_| usage());
    let seed: u64 = args[2].parse().unwrap_or_else(|_| usage());
    let rows = args.get(3).is_some_and(|a| a == "--rows");
    let c = LanguageSystemConfig {
        repeats: n / 64,
        holistic_fraction: h,
        seed,
        ..Default::default()
    };
    let (ls, d) = match c.generate().and_then(|ls| {
        let d = ls.to_dataset(&c)?;
        Ok((ls, d))
    }) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("language system: {e}");
            std::process::exit(2);
        }
    };
    let Targets::Discrete {
        values,
        n_attr,
        n_vals,
        ..
    } = &d.z
    else {
        unreachable!("language systems have discrete Z")
    };
    let (na, nv) = (*n_attr, *n_vals);
    let n_obj = nv.pow(na as u32);
    let n_hol = ls.holistic_objects.len();
    // The online scheme's order (`Ordering::for_code_length`).
    let order = order_rows(&d.z, Ordering::Random.for_code_length(), seed);
    let mut lr = RuleLearner::new(&d.w, &d.z, &RuleSettings::default(), None)
        .expect("the rule learner fits a 64-object language");
    // Bits and rows: first occurrences of lexicon / holistic objects, repeats.
    let (mut lex, mut hol, mut rep) = ((0.0, 0), (0.0, 0), (0.0, 0));
    // Repeats by their index: the 2nd occurrence, 3rd-10th, 11th-40th, 41st on.
    let mut rep_by = [0.0f64; 4];
    let (mut named, mut named_hol, mut pool_gap) = (0usize, 0usize, 0.0f64);
    let mut count: HashMap<Vec<u32>, usize> = HashMap::new();
    for (i, &r) in order.iter().enumerate() {
        let bits = lr.code(&d.w, &d.z, &[r])[0];
        let k = count.entry(d.w.row(r).to_vec()).or_insert(0);
        *k += 1;
        if *k == 1 {
            // Language systems are bijective: a new message is a new object.
            let o = values[r * na..(r + 1) * na]
                .iter()
                .fold(0, |o, &v| o * nv + v as usize);
            let is_hol = ls.holistic_objects.binary_search(&o).is_ok();
            let t = if is_hol { &mut hol } else { &mut lex };
            t.0 += bits;
            t.1 += 1;
            if is_hol {
                pool_gap += ((n_obj - named) as f64).log2() - ((n_hol - named_hol) as f64).log2();
                named_hol += 1;
            }
            named += 1;
            if rows {
                let kind = if is_hol { "holistic" } else { "lexicon" };
                println!("row {i} object {o} {kind} {bits:.2} bits");
            }
        } else {
            rep.0 += bits;
            rep.1 += 1;
            rep_by[match *k {
                2 => 0,
                3..=10 => 1,
                11..=40 => 2,
                _ => 3,
            }] += bits;
        }
        lr.learn(&d.w, &d.z, &order[..=i], 1);
    }
    println!(
        "h={h} N={} seed={seed}: total {:.2} bits; first occurrences: lexicon {:.2} ({} rows), \
         holistic {:.2} ({} rows; uniform-pool overhead {pool_gap:.2}); repeats {:.2} ({} rows; \
         2nd {:.2}, 3rd-10th {:.2}, 11th-40th {:.2}, 41st on {:.2})",
        d.w.n,
        lex.0 + hol.0 + rep.0,
        lex.0,
        lex.1,
        hol.0,
        hol.1,
        rep.0,
        rep.1,
        rep_by[0],
        rep_by[1],
        rep_by[2],
        rep_by[3],
    );
}
