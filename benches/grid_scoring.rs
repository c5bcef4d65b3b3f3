//! Parse + score of the 60 golden snippets (reference and robust parsers) and generation of
//! the six published datasets.

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::datasets::string_grid::{GridSpec, Setting};
use kcomp::programs::mapping_table::score::{TaskSize, score};
use kcomp::programs::mapping_table::{ParserMode, measure};
use std::hint::black_box;

fn snippets() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rgp/golden/snippets.jsonl"
    );
    std::fs::read_to_string(path)
        .expect("golden snippets")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["code"]
                .as_str()
                .expect("code")
                .to_string()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let codes = snippets();
    let task = TaskSize::default();
    for (name, mode) in [
        ("reference", ParserMode::Reference),
        ("robust", ParserMode::Robust),
    ] {
        c.bench_function(&format!("grid/parse_score_60_golden_{name}"), |b| {
            b.iter(|| {
                for code in &codes {
                    black_box(score(&measure(black_box(code), mode), 0, mode, &task));
                }
            })
        });
    }
    c.bench_function("grid/generate_six_datasets_30_records", |b| {
        let spec = GridSpec::default();
        b.iter(|| {
            for s in Setting::ALL {
                black_box(GridSpec::to_jsonl(&spec.generate(s, 30, 0).expect("valid")));
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
