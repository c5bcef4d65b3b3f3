//! Every `kcomp ...` (and `cargo run --release -- ...`) command in the code blocks of the
//! README and of the pages under docs/ is listed below, page by page in page order, as run or
//! skipped (with the reason). The first test fails when a page and its list disagree; the
//! second runs the listed fast commands exactly as written against the built binary, in
//! order, in a scratch directory that sees the repository's `configs/` and `tests/` like a
//! fresh clone and holds the two files of the README's own-data tour.

use std::path::Path;
use std::process::Command;

enum Run {
    /// Run it; the exit status must be 0 and stdout must contain every string.
    Fast(&'static [&'static str]),
    /// Not run here, for this reason.
    Skip(&'static str),
}
use Run::{Fast, Skip};

const TRAINS: &str = "trains neural networks (10-20 s on 2 cores)";
const ASKS: &str = "needs a model endpoint and an API key; tests/grid_ask.rs runs ask -> report against a local server";

/// The README's own-data tour reads these files; the test writes them first (a perfectly
/// compositional language: 3 attributes x 5 values, one token per attribute, 2 utterances).
fn write_tour_files(dir: &Path) {
    let (mut w, mut z) = (String::new(), String::new());
    for obj in 0..125usize {
        let values = [obj / 25, (obj / 5) % 5, obj % 5];
        for _ in 0..2 {
            let tokens: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(i, v)| (5 * i + v + 1).to_string())
                .collect();
            let attrs: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            w.push_str(&(tokens.join(",") + "\n"));
            z.push_str(&(attrs.join(",") + "\n"));
        }
    }
    std::fs::write(dir.join("messages.csv"), w).unwrap();
    std::fs::write(dir.join("meanings.csv"), z).unwrap();
}

/// Each page with examples, in the order they run (later pages use files earlier ones wrote).
const PAGES: &[(&str, &[(&str, Run)])] = &[
    (
        "README.md",
        &[
            (
                "cargo run --release -- reproduce",
                Skip(
                    "builds kcomp (minutes), then the 1,310 Figure 2 runs (about 10 s); tests/synth_terms.rs checks the published means",
                ),
            ),
            (
                "kcomp compare --w messages.csv --z meanings.csv",
                Fast(&["K(Z) = 1741.4 bits", "mapping_mdl", "posdis"]),
            ),
            (
                "kcomp compare --w messages.csv --z meanings.csv --estimators prequential,mapping_mdl,posdis --json",
                Fast(&["\"prequential\"", "\"posdis\""]),
            ),
            (
                "kcomp prequential --w messages.csv --z meanings.csv --out results/my-language",
                Fast(&["rows encoded        250", "C^L(Z)"]),
            ),
            (
                "kcomp slurm submit --tasks 10 --parallel 2 --time 0:10:00 --dry-run -- sweep configs/paper/lookup-length.toml --out results/len",
                Fast(&[
                    "#SBATCH --array=0-9%2",
                    "--shard \"${SLURM_ARRAY_TASK_ID}/10\"",
                    "not submitted",
                ]),
            ),
        ],
    ),
    (
        "docs/commands.md",
        &[
            (
                "kcomp synth lookup --samples 1000 --length 16 --vocab 10 --dim 64 --ngram 1 --json",
                Fast(&["\"c_per_sample\"", "\"topsim\""]),
            ),
            (
                "kcomp synth lookup --vocab 10 --ngram 16 --table-cost full",
                Fast(&[]),
            ),
            (
                "kcomp synth grammar --width 3 --depth 2 --composition tensor --out data/g1",
                Fast(&[]),
            ),
            (
                "kcomp synth grammar --reference-compat --rng numpy --seed 0",
                Fast(&[]),
            ),
            (
                "kcomp sweep configs/paper/lookup-length.toml --out results/length --threads 2",
                Fast(&["summary.csv"]),
            ),
        ],
    ),
    (
        "docs/compare.md",
        &[
            (
                "kcomp compare configs/compare/default.toml --out results/compare",
                Skip("66 datasets x 7 estimators: about two minutes"),
            ),
            (
                "kcomp compare configs/compare/default.toml --out results/compare --resume",
                Skip("resumes the skipped panel above"),
            ),
            (
                "kcomp synth grammar --samples 300 --out data/g300",
                Fast(&[]),
            ),
            (
                "kcomp compare --w data/g300/W.npy --z data/g300/Z.npy --precision 0.01 --estimators prequential,compression,topsim",
                Skip(TRAINS),
            ),
            (
                "kcomp compare --grid tests/data/rgp/k=4_u=2_d=16_type=r.jsonl --record 3 --json",
                Fast(&["mapping_mdl"]),
            ),
            (
                "kcomp compare configs/compare/protocols.toml --out results/protocols",
                Fast(&["korbak-protocols_estimators.svg", "agreement.csv"]),
            ),
            (
                "kcomp compare configs/compare/full.toml --out results/compare-full --resume",
                Skip("the reference-size panel: 22 minutes"),
            ),
            (
                "kcomp compare configs/compare/zoo.toml --out results/metric-zoo",
                Skip("17 estimators on 36 datasets: about 20 s idle, longer under load"),
            ),
            (
                "kcomp compare configs/compare/estimators.toml --out results/estimators",
                Skip("the cross-check panel: 48 datasets x 6 estimators, a minute or two"),
            ),
            (
                "kcomp compare --w data/g300/W.npy --z data/g300/Z.npy --precision 0.01 --estimators topsim --set topsim.correlation=spearman --set topsim.z_distance=cosine",
                Fast(&["topsim", "ok"]),
            ),
            (
                "kcomp compare --w captions.txt --z embeddings.npy --precision 0.01 --estimators prequential,topsim_normalised_edit",
                Skip("a researcher's own files (tests/text_input.rs runs these forms)"),
            ),
            (
                "kcomp compare --w messages.jsonl --z meanings.csv",
                Skip("a researcher's own files (tests/text_input.rs runs these forms)"),
            ),
            (
                "kcomp compare --w messages.csv --z meanings.csv --pad 0",
                Skip("a researcher's own files (tests/text_input.rs runs these forms)"),
            ),
            (
                "kcomp compare --w data/g300/W.npy --z data/g300/Z.npy --precision 0.01 --estimators compression,topsim --out results/g300",
                Fast(&["W.npy + Z.npy", "wrote results/g300/summary.md"]),
            ),
        ],
    ),
    (
        "docs/prequential.md",
        &[
            (
                "kcomp prequential --config configs/prequential/emergent.toml",
                Skip("about 100 s of training"),
            ),
            (
                "kcomp prequential --config configs/prequential/emergent-holistic.toml",
                Skip("30-45 s of training"),
            ),
            (
                "kcomp prequential --config configs/prequential/emergent.toml --holistic-fraction 0.5 --out results/prequential/h0.5",
                Skip("about 100 s of training"),
            ),
            (
                "kcomp synth protocol --kind holistic --colours 20 --shapes 20 --seed 0 --out data/p1",
                Fast(&[]),
            ),
            (
                "kcomp prequential --w data/p1/W.npy --z data/p1/Z.npy",
                Fast(&["online scheme", "rows encoded        400"]),
            ),
            (
                "kcomp prequential --w data/g300/W.npy --z data/g300/Z.npy --precision 0.01",
                Fast(&["online scheme", "rows encoded        300"]),
            ),
            (
                "kcomp prequential --w data/p1/W.npy --z data/p1/Z.npy --protocol reference --val-size 100",
                Skip(TRAINS),
            ),
        ],
    ),
    (
        "docs/slurm.md",
        &[
            (
                "kcomp sweep configs/paper/lookup-length.toml --out results/len --plan",
                Fast(&["70"]),
            ),
            (
                "kcomp sweep configs/paper/lookup-length.toml --out results/len --merge",
                Skip(
                    "merges the shards of the loop above it, which is shell syntax; tests/sharding.rs merges shards",
                ),
            ),
            (
                "kcomp slurm submit [OPTIONS] -- <the sweep's kcomp arguments>",
                Skip("the command's synopsis"),
            ),
            ("kcomp slurm status DIR", Skip("the command's synopsis")),
            (
                "kcomp slurm resubmit DIR [--dry-run]",
                Skip("the command's synopsis"),
            ),
        ],
    ),
    (
        "docs/interpreting.md",
        &[
            (
                "kcomp compare --grid tests/data/rgp/k=4_u=2_d=16_type=h.jsonl --record 0",
                Fast(&["bits saved/row", "prequential", "posdis gives them 0"]),
            ),
            (
                "kcomp compare --grid tests/data/rgp/k=4_u=2_d=16_type=$t.jsonl --record $i \\",
                Skip("a shell loop over the 60 records (a few seconds)"),
            ),
        ],
    ),
    (
        "docs/mapping-table.md",
        &[
            (
                "kcomp grid generate --compat rgp --setting h -o data/k=4_u=2_d=16_type=h.jsonl",
                Fast(&[]),
            ),
            (
                "kcomp grid prompt --dataset data/k=4_u=2_d=16_type=h.jsonl --record 0",
                Fast(&[]),
            ),
            (
                "kcomp grid ask --dataset data/k=4_u=2_d=16_type=h.jsonl --base-url https://api.openai.com/v1 --model gpt-4o --temperature 0 --out answers",
                Skip(ASKS),
            ),
            (
                "kcomp grid score --dataset data/k=4_u=2_d=16_type=h.jsonl --record 0 --answer answers/gpt-4o/h/0.txt --json",
                Skip(ASKS),
            ),
            ("kcomp grid report answers --data data", Skip(ASKS)),
            (
                "kcomp grid generate --setting r --positions 3 --letters 3 --side 3 --non-complementary",
                Fast(&[]),
            ),
            (
                "kcomp grid prompt --dataset tests/data/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --style stdin",
                Fast(&[]),
            ),
            (
                "kcomp grid score --dataset tests/data/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer tests/data/answers/compositional/h/0.txt --parser robust --json",
                Fast(&["\"profile\"", "\"c_length\""]),
            ),
            (
                "kcomp grid report tests/data/answers --parser robust --out results/grid-report",
                Fast(&[]),
            ),
        ],
    ),
    (
        "docs/pcfgset.md",
        &[
            (
                "kcomp pcfgset run append swap_first_last F G H , repeat I J",
                Fast(&["H G F I J I J"]),
            ),
            (
                "kcomp pcfgset check --data tests/data/pcfgset",
                Fast(&["0 not reproduced"]),
            ),
            (
                "kcomp pcfgset evaluate --predictions tests/data/pcfgset --out results/pcfgset",
                Fast(&["task_accuracy", "scores.csv"]),
            ),
            (
                "kcomp pcfgset generate --samples 2000 --seed 1 --out data/pcfgset-gen",
                Fast(&["productivity/test"]),
            ),
            (
                "kcomp pcfgset generate --samples 2000 --seed 1 --naturalise --out data/pcfgset-nat",
                Fast(&["productivity/test", "localism/unrolled_test"]),
            ),
            (
                "kcomp pcfgset check --data data/pcfgset-nat",
                Fast(&["0 not reproduced", "localism/unrolled_test.tsv"]),
            ),
            (
                "kcomp pcfgset prompt --n 50 --seed 1 --dataset data/pcfgset-prompt.jsonl",
                Fast(&["Write a Python program that conforms to the following samples."]),
            ),
            (
                "kcomp pcfgset score --answer tests/data/pcfgset/answers/interpreter.txt --n 50 --seed 1",
                Fast(&["held-out errors   0 of 100", "l_bits            2620.54"]),
            ),
            (
                "kcomp pcfgset check --data am-i-compositional",
                Skip("needs a checkout of the public repository"),
            ),
            (
                "kcomp pcfgset evaluate --predictions am-i-compositional --out results/pcfgset",
                Skip("needs a checkout of the public repository"),
            ),
            (
                "kcomp pcfgset prompt --n 50 --seed 1 --dataset data/pcfgset.jsonl",
                Fast(&["Input:"]),
            ),
            (
                "kcomp grid ask --dataset data/pcfgset.jsonl --style published --base-url https://api.openai.com/v1 --model gpt-4o --out answers",
                Skip(ASKS),
            ),
            (
                "kcomp pcfgset score --answer answers/gpt-4o/pcfgset/0.txt --n 50 --seed 1",
                Skip(ASKS),
            ),
        ],
    ),
    (
        "docs/ordered-commongen.md",
        &[
            (
                "kcomp commongen prompts --out data/commongen-prompts.jsonl",
                Fast(&[]),
            ),
            (
                "kcomp commongen prompts --sets 0 --templates 0",
                Fast(&["\"id\":\"s000-o23-t0\"", "in the specified order"]),
            ),
            (
                "kcomp commongen ask --base-url https://api.openai.com/v1 --model gpt-4o --temperature 0 --out answers",
                Skip(
                    "needs a model endpoint and an API key; tests/ordered_commongen.rs runs ask -> score against a local server",
                ),
            ),
            (
                "kcomp commongen score answers --out results/commongen",
                Skip("needs the answers of the ask above"),
            ),
            (
                "kcomp commongen score tests/data/ordered_commongen/outputs.jsonl --out results/commongen-fixture",
                Fast(&["model-b", "report.md"]),
            ),
        ],
    ),
    (
        "docs/learned-w.md",
        &[
            (
                "kcomp synth lookup --samples 2000 --out data/lookup",
                Fast(&["K(Z|W,f)", "Z.npy"]),
            ),
            (
                "kcomp represent --z data/lookup/Z.npy --precision 0.01 --out results/represent",
                Skip(
                    "about 60 sentence spaces at N = 2,000 (minutes); tests/representation.rs runs represent on small data",
                ),
            ),
            (
                "cargo run --release --features burn --example autoencoder_recovery -- --disc vq \\",
                Skip("trains the auto-encoder (feature burn; minutes)"),
            ),
        ],
    ),
];

/// The commands of the README's fenced code blocks, trailing `# comments` removed.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut in_block = false;
    let mut out = Vec::new();
    for line in readme.lines() {
        // A fence is backticks and an optional info string; a prose line that starts with
        // inline code spans of backticks (```` ```py ````) is not one.
        let t = line.trim_start();
        if t.starts_with("```") && !t.trim_start_matches('`').contains('`') {
            in_block = !in_block;
            continue;
        }
        let line = line.trim();
        if in_block && (line.starts_with("kcomp ") || line.starts_with("cargo run ")) {
            let command = match line.find(" #") {
                Some(i) => &line[..i],
                None => line,
            };
            out.push(command.trim_end().to_string());
        }
    }
    out
}

#[test]
fn the_checked_lists_are_the_pages() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (page, examples) in PAGES {
        let text = std::fs::read_to_string(repo.join(page)).unwrap();
        let listed: Vec<&str> = examples.iter().map(|e| e.0).collect();
        assert_eq!(
            readme_commands(&text),
            listed,
            "{page}: examples changed: update PAGES in tests/readme_examples.rs"
        );
    }
    // Every page under docs/ with a command example is listed.
    for entry in std::fs::read_dir(repo.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("docs/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(&path).unwrap();
        if !readme_commands(&text).is_empty() {
            assert!(
                PAGES.iter().any(|p| p.0 == name),
                "{name} has examples but is not in PAGES"
            );
        }
    }
}

#[test]
fn fast_examples_run_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    for shared in ["configs", "tests"] {
        std::os::unix::fs::symlink(repo.join(shared), dir.path().join(shared)).unwrap();
    }
    write_tour_files(dir.path());
    let mut skipped = Vec::new();
    for (page, examples) in PAGES {
        for (command, run) in *examples {
            let expect = match run {
                Fast(expect) => expect,
                Skip(reason) => {
                    skipped.push(format!("{page}: {command}  ({reason})"));
                    continue;
                }
            };
            // Shell syntax would mean the line is not runnable as written.
            assert!(
                !command.contains(['|', '[', ']', '<', '>', '&', ';', '$', '\'', '"']),
                "not a plain command: {command}"
            );
            let args: Vec<&str> = command
                .strip_prefix("cargo run --release -- ")
                .or_else(|| command.strip_prefix("kcomp "))
                .expect("kcomp or cargo run")
                .split_whitespace()
                .collect();
            let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
                .args(&args)
                .current_dir(dir.path())
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{page}: `{command}` failed: {}\n{stdout}",
                String::from_utf8_lossy(&out.stderr)
            );
            for e in *expect {
                assert!(
                    stdout.contains(e),
                    "{page}: `{command}`: no {e} in\n{stdout}"
                );
            }
        }
    }
    eprintln!("skipped examples:\n  {}", skipped.join("\n  "));
    // The figures of the examples that draw come as PNG and SVG.
    for stem in [
        "results/length/c",
        "results/grid-report/plane",
        "results/my-language/curve",
    ] {
        for ext in ["png", "svg"] {
            let p = dir.path().join(stem).with_extension(ext);
            assert!(p.is_file(), "{} missing", p.display());
        }
    }
}
