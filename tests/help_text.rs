//! What a new user reads first: every `--help` (no internal paper numbers, no rustdoc link
//! syntax, the papers cited at the top), the defaults of `kcomp prequential`'s flags, the
//! estimator list printed before any error, and the shell completion scripts.

use std::process::Command;

fn kcomp(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), text)
}

/// Every command and subcommand, from the top-level help down.
fn commands() -> Vec<Vec<String>> {
    let subcommands = |path: &[String]| -> Vec<String> {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (_, text) = kcomp(&args);
        text.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .filter(|c| *c != "help")
            .map(str::to_string)
            .collect()
    };
    let mut all = vec![vec![]];
    let mut i = 0;
    while i < all.len() {
        let path = all[i].clone();
        for c in subcommands(&path) {
            let mut p = path.clone();
            p.push(c);
            all.push(p);
        }
        i += 1;
    }
    all
}

#[test]
fn every_help_is_free_of_jargon_and_the_top_one_cites_the_papers() {
    let all = commands();
    assert!(all.len() > 25, "{all:?}");
    for path in &all {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, text) = kcomp(&args);
        assert_eq!(code, 0, "{args:?}");
        let lower = text.to_lowercase();
        for bad in ["seed 00", "seed-00", "seed_00", "[`"] {
            assert!(!lower.contains(bad), "{args:?} shows `{bad}`:\n{text}");
        }
    }
    let (_, top) = kcomp(&["--help"]);
    for id in [
        "2410.14817",
        "2604.27340",
        "1908.08351",
        "2506.15629",
        "2010.15058",
    ] {
        assert!(top.contains(id), "no arXiv {id} in kcomp --help");
    }
    // Long help with its examples (a variant's doc comment used to hide them).
    for cmd in ["prequential", "compare", "sweep"] {
        let (_, text) = kcomp(&[cmd, "--help"]);
        assert!(text.contains("Example"), "{cmd} --help has no example");
    }
}

#[test]
fn prequential_flags_show_their_defaults() {
    let (_, text) = kcomp(&["prequential", "--help"]);
    // A flag's entry: its line and the lines of its help up to the next flag.
    let line = |flag: &str| -> String {
        let mut lines = text
            .lines()
            .skip_while(|l| !l.trim_start().starts_with(&format!("--{flag} ")));
        let first = lines
            .next()
            .unwrap_or_else(|| panic!("no --{flag} in\n{text}"));
        let rest: Vec<&str> = lines
            .take_while(|l| !l.trim_start().starts_with('-'))
            .collect();
        format!("{first} {}", rest.join(" "))
    };
    for (flag, default) in [
        ("lr", "default 0.001"),
        ("hidden", "default 256,256"),
        ("batch-size", "default 50"),
        ("increment", "default 50,50"),
        ("log-schedule", "default --increment 50,50"),
        ("emb-dim", "default 64"),
        ("max-epochs", "default 10000"),
        ("patience", "default 50"),
        ("lr-decay", "default 1"),
        ("lr-patience", "default 0"),
        ("backend", "default fast"),
    ] {
        let l = line(flag);
        assert!(
            l.contains(default) && l.contains("reference protocol only"),
            "--{flag}: {l}"
        );
    }
    for (flag, default) in [
        ("seed", "default 0"),
        ("k-z", "default analytic"),
        ("holistic-fraction", "default 0.0"),
        ("learners", "default: marginal, ngram2, rules"),
        ("protocol", "Default online"),
    ] {
        let l = line(flag);
        assert!(l.contains(default), "--{flag}: {l}");
        assert!(!l.contains("reference protocol only"), "--{flag}: {l}");
    }
}

#[test]
fn estimator_list_and_completions() {
    let (code, text) = kcomp(&["compare", "--estimators", "list"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("conflict_count") && l.contains("lower"))
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("prequential") && l.contains("K(Z|W) in bits"))
    );
    // An unknown name points to the list.
    let (code, text) = kcomp(&[
        "compare",
        "--grid",
        "tests/data/rgp/k=4_u=2_d=16_type=r.jsonl",
        "--estimators",
        "nope",
    ]);
    assert_eq!(code, 2);
    assert!(text.contains("--estimators list"), "{text}");
    for (shell, marker) in [
        ("bash", "_kcomp()"),
        ("zsh", "#compdef kcomp"),
        ("fish", "complete -c kcomp"),
    ] {
        let (code, text) = kcomp(&["completions", shell]);
        assert_eq!(code, 0, "{shell}");
        assert!(
            text.contains(marker),
            "{shell}: {}",
            &text[..text.len().min(300)]
        );
        assert!(
            text.contains("prequential") && text.contains("--estimators"),
            "{shell}"
        );
    }
}

/// Bare `kcomp` is where a new user starts: an overview of the main tasks with the command for
/// one's own data first, exit status 0; `--help` names the same path.
#[test]
fn bare_kcomp_prints_the_main_tasks() {
    let o = Command::new(env!("CARGO_BIN_EXE_kcomp")).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    for needle in [
        "kcomp compare --w W.npy --z Z.npy",
        "kcomp prequential --w",
        "--precision",
        "kcomp synth",
        "kcomp compare configs/compare/default.toml",
        "kcomp --help",
    ] {
        assert!(out.contains(needle), "bare kcomp lacks `{needle}`:\n{out}");
    }
    let (_, help) = kcomp(&["--help"]);
    assert!(help.contains("kcomp compare --w W.npy --z Z.npy"), "{help}");
}

/// A reader has no access to the project's tracker: sources, tests, docs, CI scripts, configs
/// and experiment READMEs say what a thing is, never "issue 19" or "(issue 26)".
#[test]
fn no_internal_tracker_references() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name != ".ci" || name == "target" || name == "__pycache__" {
                continue;
            }
            if p.is_dir() {
                walk(&p, out);
            } else if ["rs", "py", "pyi", "md", "toml", "sh"]
                .iter()
                .any(|x| name.ends_with(&format!(".{x}")))
                || name == "run"
            {
                out.push(p);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in [
        "src",
        "tests",
        "python",
        "docs",
        ".ci",
        "configs",
        "experiments",
        "examples",
        "benches",
    ] {
        walk(&root.join(d), &mut files);
    }
    files.extend(["README.md", "ARCHITECTURE.md", "CHANGELOG.md"].map(|f| root.join(f)));
    let mut found = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            // "issue N" with N a number, except other projects' trackers named as such.
            let mut rest = lower.as_str();
            while let Some(at) = rest.find("issue ") {
                let after = &rest[at + 6..];
                let before = &rest[..at];
                if after.starts_with(|c: char| c.is_ascii_digit())
                    && !before.ends_with("github ")
                    && !f.ends_with("help_text.rs")
                {
                    found.push(format!("{}:{}: {line}", f.display(), i + 1));
                }
                rest = after;
            }
        }
    }
    assert!(
        found.is_empty(),
        "tracker references:\n{}",
        found.join("\n")
    );
}
