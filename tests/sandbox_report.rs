//! The sandbox through the CLI: failed and empty answers count in the report's means, the
//! published datasets are rebuilt when `--data` is omitted, a missing sandbox is refused
//! (exit 2) unless `--allow-unsandboxed`, a crash gets its own status, and Ctrl-C during
//! `grid report` leaves no process and no temporary directory behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn kcomp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kcomp"))
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp")
}

/// A memorising answer for record 0 of Horizontal: right on all 16 samples.
fn lookup_answer() -> String {
    let line = std::fs::read_to_string(data().join("k=4_u=2_d=16_type=h.jsonl")).unwrap();
    let rec: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    let pairs: Vec<String> = rec["input"]
        .as_array()
        .unwrap()
        .iter()
        .zip(rec["output"].as_array().unwrap())
        .map(|(i, o)| format!("{i}: {o}"))
        .collect();
    format!(
        "```python\nT = {{{}}}\nprint(T[input()])\n```",
        pairs.join(", ")
    )
}

fn summary_row(out: &Path, model: &str) -> Vec<String> {
    let s = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let header: Vec<&str> = s.lines().next().unwrap().split(',').collect();
    assert_eq!(
        &header[2..7],
        ["answers", "scored", "failed", "empty", "unscorable"]
    );
    s.lines()
        .find(|l| l.starts_with(&format!("{model},h,")))
        .unwrap_or_else(|| panic!("{model} missing:\n{s}"))
        .split(',')
        .map(String::from)
        .collect()
}

#[test]
fn failed_and_empty_answers_count_in_the_means() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for m in ["good", "mixed"] {
        std::fs::create_dir_all(root.join(m).join("h")).unwrap();
    }
    std::fs::write(root.join("good/h/0.txt"), lookup_answer()).unwrap();
    std::fs::write(root.join("mixed/h/0.txt"), lookup_answer()).unwrap();
    std::fs::write(root.join("mixed/h/1.txt"), "").unwrap();
    std::fs::write(
        root.join("mixed/h/2.txt"),
        "```python\nimport ctypes\nctypes.string_at(0)\n```",
    )
    .unwrap();
    std::fs::write(root.join("mixed/h/99.txt"), lookup_answer()).unwrap();
    // --data omitted: the published datasets are rebuilt in memory.
    let out = kcomp()
        .args([
            "grid",
            "report",
            root.to_str().unwrap(),
            "--no-plots",
            "--parser",
            "reference",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep = root.join("report");
    let good = summary_row(&rep, "good");
    let mixed = summary_row(&rep, "mixed");
    assert_eq!(&good[2..7], ["1", "1", "0", "0", "0"]);
    assert_eq!(&mixed[2..7], ["4", "1", "1", "1", "1"]);
    // E(P): 0 for the lookup, 16 for each of the other three -> mean 12; C(P) is 0 for the
    // three, so the mean is a quarter of the lookup's.
    assert_eq!(good[9], "0.00");
    assert_eq!(mixed[9], "12.00");
    let c_good: f64 = good[11].parse().unwrap();
    let c_mixed: f64 = mixed[11].parse().unwrap();
    assert!((c_mixed - c_good / 4.0).abs() < 0.01, "{c_good} {c_mixed}");
    let per = std::fs::read_to_string(rep.join("per_answer.csv")).unwrap();
    assert!(per.contains("mixed,h,2,crashed,"), "{per}");
    let md = std::fs::read_to_string(rep.join("report.md")).unwrap();
    assert!(md.contains("| mixed | h | 4 | 1 | 1 | 1 | 1 |"), "{md}");

    // The same tree against the fixture files gives the same summary.
    let with_data = root.join("with-data");
    let out = kcomp()
        .args([
            "grid",
            "report",
            root.to_str().unwrap(),
            "--no-plots",
            "--parser",
            "reference",
        ])
        .arg("--data")
        .arg(data())
        .arg("--out")
        .arg(&with_data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(rep.join("summary.csv")).unwrap(),
        std::fs::read_to_string(with_data.join("summary.csv")).unwrap()
    );
}

#[test]
fn a_missing_data_folder_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("m/h")).unwrap();
    std::fs::write(dir.path().join("m/h/0.txt"), "print(1)").unwrap();
    let out = kcomp()
        .args([
            "grid",
            "report",
            dir.path().to_str().unwrap(),
            "--data",
            "/nonexistent/rgp",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("data") && err.contains("/nonexistent/rgp"),
        "{err}"
    );
}

#[test]
fn without_the_sandbox_kcomp_refuses_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let answer = dir.path().join("a.txt");
    std::fs::write(&answer, lookup_answer()).unwrap();
    let dataset = data().join("k=4_u=2_d=16_type=h.jsonl");
    let score = |extra: &[&str]| {
        kcomp()
            .args(["grid", "score", "--record", "0", "--json"])
            .arg("--dataset")
            .arg(&dataset)
            .arg("--answer")
            .arg(&answer)
            .args(extra)
            .env("KCOMP_SANDBOX_UNAVAILABLE", "1")
            .output()
            .unwrap()
    };
    let out = score(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("sandbox is unavailable") && err.contains("--allow-unsandboxed"),
        "{err}"
    );
    let out = score(&["--allow-unsandboxed"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["c_error"], 0);
    // The report refuses before running anything.
    std::fs::create_dir_all(dir.path().join("m/h")).unwrap();
    std::fs::copy(&answer, dir.path().join("m/h/0.txt")).unwrap();
    let out = kcomp()
        .args(["grid", "report", dir.path().to_str().unwrap(), "--no-plots"])
        .env("KCOMP_SANDBOX_UNAVAILABLE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("m/report").exists());
}

#[test]
fn a_crashing_answer_gets_a_status_not_a_spawn_error() {
    let dir = tempfile::tempdir().unwrap();
    let answer = dir.path().join("a.txt");
    std::fs::write(&answer, "```python\nimport os\nos.abort()\n```").unwrap();
    let out = kcomp()
        .args(["grid", "score", "--record", "0"])
        .arg("--dataset")
        .arg(data().join("k=4_u=2_d=16_type=h.jsonl"))
        .arg("--answer")
        .arg(&answer)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("C(P) = 0.00") && text.contains("[crashed]"),
        "{text}"
    );
}

/// Direct children of `pid`.
fn children(pid: u32) -> Vec<u32> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat"))
            && let Some((_, rest)) = stat.rsplit_once(") ")
            && rest.split(' ').nth(1) == Some(&pid.to_string())
        {
            v.push(p);
        }
    }
    v
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, r)| !r.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Interrupts a report whose four answers sleep and checks that their processes die with kcomp.
fn interrupt_report(signal: libc::c_int) {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let tree = dir.path().join("answers");
    std::fs::create_dir_all(tree.join("m/h")).unwrap();
    for r in 0..4 {
        std::fs::write(
            tree.join(format!("m/h/{r}.txt")),
            "```python\nimport time\ntime.sleep(60)\n```",
        )
        .unwrap();
    }
    let mut cmd = kcomp();
    cmd.args([
        "grid",
        "report",
        tree.to_str().unwrap(),
        "--no-plots",
        "--timeout",
        "30",
    ])
    .env("TMPDIR", &tmp)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    // Tests started in the background by a non-interactive shell (`cargo test &`) inherit
    // SIGINT ignored, and so would kcomp: the Ctrl-C simulated here would then be lost and the
    // test would wait for the whole report. The child gets the default action back.
    // SAFETY: signal() is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut k = cmd.spawn().unwrap();
    let start = Instant::now();
    let mut seen = Vec::new();
    while start.elapsed() < Duration::from_secs(20) {
        seen = children(k.id());
        if seen.len() >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(seen.len() >= 2, "no sandboxed children seen");
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(k.id() as libc::pid_t, signal);
    }
    let status = k.wait().unwrap();
    assert!(!status.success());
    let start = Instant::now();
    while seen.iter().any(|p| alive(*p)) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(seen.iter().all(|p| !alive(*p)), "survivors: {seen:?}");
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    assert!(!tree.join("report").exists());
}

#[test]
fn ctrl_c_during_a_report_leaves_nothing_behind() {
    interrupt_report(libc::SIGINT);
}

#[test]
fn killing_kcomp_kills_its_sandboxed_children() {
    interrupt_report(libc::SIGKILL);
}
