//! Every command that writes a folder refuses one that holds another run's files (another
//! command, other settings, or files kcomp did not write) unless --force; the same command
//! again rewrites its own folder.

use std::path::Path;
use std::process::Command;

fn kcomp(args: &[&str], cwd: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn refused(args: &[&str], cwd: &Path, needle: &str) {
    let (code, err) = kcomp(args, cwd);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("--force") && err.contains(needle),
        "{args:?}: {err}"
    );
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn ok(args: &[&str], cwd: &Path) {
    let (code, err) = kcomp(args, cwd);
    assert_eq!(code, 0, "{args:?}: {err}");
}

#[test]
fn folders_of_other_runs_need_force() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let synth = |samples: &str, extra: &[&str]| {
        let mut a = vec![
            "synth",
            "lookup",
            "--samples",
            samples,
            "--no-topsim",
            "--out",
            "g1",
        ];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    ok(&refs(&synth("40", &[])), d);
    // The same command again: its own folder is rewritten.
    ok(&refs(&synth("40", &[])), d);
    // Other settings: refused, the folder untouched; --force writes.
    let before = std::fs::read(d.join("g1/W.npy")).unwrap();
    refused(&refs(&synth("50", &[])), d, "other settings");
    assert_eq!(std::fs::read(d.join("g1/W.npy")).unwrap(), before);
    ok(&refs(&synth("50", &["--force"])), d);
    assert_ne!(std::fs::read(d.join("g1/W.npy")).unwrap(), before);
    // Another command into the same folder.
    refused(
        &["synth", "protocol", "--kind", "holistic", "--out", "g1"],
        d,
        "another command (synth)",
    );
    ok(
        &["synth", "protocol", "--kind", "holistic", "--out", "p1"],
        d,
    );
    // A folder kcomp did not fill.
    std::fs::create_dir(d.join("mine")).unwrap();
    std::fs::write(d.join("mine/notes.txt"), "mine").unwrap();
    let sweep = "name = \"t\"\ngenerator = \"lookup\"\nparameter = \"length\"\nvalues = [2, 4]\n\
                 seeds = 1\ntopsim = false\n[params]\nvocab = 4\nsamples = 10\n";
    std::fs::write(d.join("s.toml"), sweep).unwrap();
    refused(
        &["sweep", "s.toml", "--out", "mine", "--quiet"],
        d,
        "did not write",
    );
    assert_eq!(
        std::fs::read_to_string(d.join("mine/notes.txt")).unwrap(),
        "mine"
    );
    ok(&["sweep", "s.toml", "--out", "sw", "--quiet"], d);
    ok(&["sweep", "s.toml", "--out", "sw", "--quiet"], d);
    // A panel into a sweep's folder: refused; --resume reuses a panel's own folder.
    let panel = "name = \"p\"\nseeds = 1\nestimators = [\"exact\"]\n[[family]]\nkind = \"lookup\"\n\
                 parameter = \"length\"\nvalues = [2]\n[family.params]\nsamples = 20\n";
    std::fs::write(d.join("p.toml"), panel).unwrap();
    refused(
        &["compare", "p.toml", "--out", "sw", "--quiet"],
        d,
        "another command (sweep)",
    );
    ok(&["compare", "p.toml", "--out", "cmp", "--quiet"], d);
    ok(
        &["compare", "p.toml", "--out", "cmp", "--resume", "--quiet"],
        d,
    );
    refused(
        &[
            "compare", "p.toml", "--out", "cmp", "--set", "seeds=2", "--quiet",
        ],
        d,
        "other settings",
    );
    ok(
        &[
            "compare", "p.toml", "--out", "cmp", "--set", "seeds=2", "--force", "--quiet",
        ],
        d,
    );
}

/// The commands whose refusal came later: PCFG SET's generator and evaluator, a prequential
/// run into a folder of foreign files, an h-sweep into another sweep's folder, and the
/// commands that write one file (replaced only when its bytes are the same, else --force).
#[test]
fn generators_prequential_and_single_files_need_force() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let generate = |samples: &str, force: bool| {
        let mut a = vec!["pcfgset", "generate", "--samples", samples, "--out", "gen"];
        if force {
            a.push("--force");
        }
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    ok(&refs(&generate("200", false)), d);
    ok(&refs(&generate("200", false)), d);
    refused(&refs(&generate("300", false)), d, "other settings");
    ok(&refs(&generate("300", true)), d);
    let predictions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pcfgset");
    let predictions = predictions.to_str().unwrap();
    refused(
        &[
            "pcfgset",
            "evaluate",
            "--predictions",
            predictions,
            "--out",
            "gen",
        ],
        d,
        "another command (pcfgset generate)",
    );
    ok(
        &[
            "pcfgset",
            "evaluate",
            "--predictions",
            predictions,
            "--out",
            "eval",
        ],
        d,
    );
    // prequential: a folder of someone else's files, then another sweep of fractions.
    std::fs::create_dir(d.join("mine")).unwrap();
    std::fs::write(d.join("mine/notes.txt"), "mine").unwrap();
    std::fs::write(d.join("w.csv"), "0,1\n1,0\n".repeat(20)).unwrap();
    std::fs::write(d.join("z.csv"), "0,1\n1,0\n".repeat(20)).unwrap();
    let preq = [
        "prequential",
        "--w",
        "w.csv",
        "--z",
        "z.csv",
        "--quiet",
        "--out",
    ];
    refused(&[&preq[..], &["mine"]].concat(), d, "did not write");
    ok(&[&preq[..], &["run"]].concat(), d);
    let sweep = |hs: &str| {
        [
            "prequential",
            "--sweep-h",
            hs,
            "--seeds",
            "1",
            "--set",
            "language.repeats=2",
            "--quiet",
            "--out",
            "hs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
    };
    ok(&refs(&sweep("0,1")), d);
    ok(&refs(&sweep("0,1")), d);
    refused(&refs(&sweep("0,0.5")), d, "other settings");
    // One output file: the same bytes again pass, other bytes need --force.
    for (args, file) in [
        (
            vec!["grid", "generate", "--records", "1", "-o", "g.jsonl"],
            "g.jsonl",
        ),
        (
            vec![
                "commongen",
                "prompts",
                "--sets",
                "0",
                "--templates",
                "0",
                "--out",
                "p.jsonl",
            ],
            "p.jsonl",
        ),
        (
            vec!["pcfgset", "prompt", "--n", "5", "--dataset", "q.jsonl"],
            "q.jsonl",
        ),
    ] {
        ok(&args, d);
        ok(&args, d);
        std::fs::write(d.join(file), "mine\n").unwrap();
        refused(&args, d, "other contents");
        assert_eq!(std::fs::read_to_string(d.join(file)).unwrap(), "mine\n");
        ok(&[&args[..], &["--force"]].concat(), d);
        assert_ne!(std::fs::read_to_string(d.join(file)).unwrap(), "mine\n");
    }
}
