//! The rule-generation perspective on PCFG SET: `kcomp pcfgset prompt` and `score` end to end
//! with fixture "LLM answers" (tests/data/pcfgset/answers): a hand-written interpreter (kcomp's
//! reference program in an answer's prose) and a memoriser of the shown pairs.

use std::path::{Path, PathBuf};
mod cli_common;
use cli_common::kcomp;

use kcomp::generalisation::pcfgset::rules::{
    REFERENCE_PROGRAM, REFERENCE_PROGRAM_BITS, RuleStyle, RuleTaskArgs, score,
};
use kcomp::programs::mapping_table::lbits::l_bits;
use kcomp::programs::sandbox::{SandboxConfig, check_program};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pcfgset")
        .join(rel)
}

fn task() -> RuleTaskArgs {
    RuleTaskArgs {
        n: 20,
        held_out: 30,
        seed: 1,
    }
}

#[test]
fn the_reference_program_reproduces_published_targets_and_has_its_stated_length() {
    assert!((l_bits(REFERENCE_PROGRAM) - REFERENCE_PROGRAM_BITS).abs() < 1e-9);
    let src = std::fs::read_to_string(fixture("data/pcfgset/pcfgset/test.src")).unwrap();
    let tgt = std::fs::read_to_string(fixture("data/pcfgset/pcfgset/test.tgt")).unwrap();
    let inputs: Vec<String> = src.lines().map(|l| format!("{l}\n")).collect();
    let golds: Vec<String> = tgt.lines().map(str::to_owned).collect();
    assert_eq!(inputs.len(), 60);
    let runs = check_program(
        REFERENCE_PROGRAM,
        &inputs,
        &golds,
        &SandboxConfig::default(),
    )
    .expect("sandbox starts");
    assert!(runs.iter().all(|r| r.correct), "{runs:?}");
}

#[test]
fn prompts_are_seeded_and_in_the_grid_ask_format() {
    let t = task().task().unwrap();
    assert_eq!((t.shown.len(), t.held_out.len()), (20, 30));
    assert_eq!(task().task().unwrap(), t, "same seed, same pairs");
    // No held-out source was shown.
    assert!(
        t.held_out
            .iter()
            .all(|h| t.shown.iter().all(|s| s.source != h.source))
    );
    let p = t.prompt(RuleStyle::Published);
    assert!(p.starts_with(
        "Write a Python program that conforms to the following samples. You should try to find \
         patterns in the samples, but it is permissible to use the samples directly in your \
         program.\nInput:\n"
    ));
    assert_eq!(p.matches("\nInput:\n").count(), 20);
    let first = format!(
        "Input:\n{}\nOutput:\n{}\n",
        t.shown[0].source.join(" "),
        t.shown[0].target.join(" ")
    );
    assert!(p.contains(&first), "{p}");
    let s = t.prompt(RuleStyle::Stdin);
    assert!(
        s.contains("from standard input") && s.contains("Sample 20\n"),
        "{s}"
    );
    // The JSONL record is what `grid ask` reads; its published prompt is this one.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pcfgset.jsonl");
    std::fs::write(&path, t.dataset_jsonl()).unwrap();
    let records = kcomp::datasets::string_grid::read_dataset(&path).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(
        kcomp::datasets::string_grid::prompt::rule_prompt(
            &records[0],
            kcomp::datasets::string_grid::prompt::PromptStyle::Published
        ),
        p
    );
    // Bad sizes are errors naming the option.
    let err = RuleTaskArgs { n: 0, ..task() }
        .task()
        .unwrap_err()
        .to_string();
    assert!(err.contains("n"), "{err}");
}

#[test]
fn an_interpreter_generalises_and_a_memoriser_does_not() {
    let t = task().task().unwrap();
    let cfg = SandboxConfig::default();
    let read = |f: &str| std::fs::read_to_string(fixture(f)).unwrap();
    let good = score(&read("answers/interpreter.txt"), &t, &cfg).unwrap();
    assert_eq!(good.status, "ok");
    assert_eq!((good.shown_errors, good.held_out_errors), (0, 0));
    assert_eq!(good.held_out_accuracy, 1.0);
    // The answer's program is the reference program without its two comment lines, which
    // l_bits does not count.
    assert!(
        (good.l_bits - REFERENCE_PROGRAM_BITS).abs() < 1e-9,
        "{}",
        good.l_bits
    );
    let memo = score(&read("answers/memoriser.txt"), &t, &cfg).unwrap();
    assert_eq!(memo.status, "ok");
    assert_eq!(memo.shown_errors, 0, "it stores the shown pairs");
    assert_eq!(memo.held_out_errors, 30, "and knows nothing else");
    // It pays for its table: over four times the interpreter's length on 20 pairs.
    assert!(
        memo.l_bits > 4.0 * good.l_bits,
        "{} vs {}",
        memo.l_bits,
        good.l_bits
    );
    // No program: every pair counts as an error (fail closed).
    let empty = score("I cannot do this.", &t, &cfg).unwrap();
    assert_eq!(empty.status, "empty_answer");
    assert_eq!((empty.shown_errors, empty.held_out_errors), (20, 30));
}

#[test]
fn cli_prompt_and_score() {
    let (code, out, err) = kcomp(&["pcfgset", "prompt", "--n", "20", "--seed", "1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, task().task().unwrap().prompt(RuleStyle::Published));
    let (code, out, err) = kcomp(&[
        "pcfgset",
        "score",
        "--answer",
        "tests/data/pcfgset/answers/memoriser.txt",
        "--n",
        "20",
        "--held-out",
        "30",
        "--seed",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["held_out_errors"], 30);
    assert_eq!(v["shown_errors"], 0);
    let (code, _, err) = kcomp(&["pcfgset", "prompt", "--n", "0"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = kcomp(&["pcfgset", "score", "--answer", "absent.txt"]);
    assert_eq!(code, 2);
    assert!(err.contains("absent.txt"), "{err}");
}
