//! The fourth round's bad input on the commands added since the previous round. Each test
//! is one class: stdout write errors, sizes checked before allocating, marker and lock files
//! read with the regular-file checks, saved results verified on merge (and `slurm status`'s
//! submission.json), no link followed inside --out, a lock in every command that writes, no
//! option silently ignored, and clear errors. Every case runs the built binary with a time
//! bound and an address-space limit (an allocation abort is a failure, not a slow pass);
//! `-- --nocapture` prints each class's tally.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(60);
/// Address space of every kcomp run here: an attempt at a huge allocation aborts instead of
/// swapping the machine (and is reported as a failure).
const ADDRESS_SPACE: u64 = 8 << 30;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Run {
    code: Option<i32>,
    out: String,
    err: String,
    elapsed: Duration,
}

/// Runs kcomp in `cwd` with `stdout` as its standard output.
fn run_with(args: &[&str], cwd: &Path, stdout: Stdio) -> Run {
    let start = Instant::now();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kcomp"));
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped());
    // SAFETY: setrlimit between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("kcomp runs");
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = std::io::Read::read_to_string(p, &mut s);
        }
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err_pipe, &mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.and_then(|s| s.code()),
        out: t_out.join().unwrap(),
        err: t_err.join().unwrap(),
        elapsed: start.elapsed(),
    }
}

fn run(args: &[&str], cwd: &Path) -> Run {
    run_with(args, cwd, Stdio::piped())
}

/// Checks one case: exit 2 and exactly one stderr line holding every needle (a clean error).
fn clean(r: &Run, needles: &[&str]) -> Result<(), String> {
    if r.elapsed > LIMIT || r.code.is_none() {
        return Err(format!(
            "no exit status (a hang or a signal) after {:?}: {}",
            r.elapsed, r.err
        ));
    }
    if r.err.contains("panicked") || r.err.contains("memory allocation") {
        return Err(format!("panic or abort: {}", r.err));
    }
    let lines: Vec<&str> = r.err.lines().collect();
    if r.code != Some(2) || lines.len() != 1 {
        return Err(format!(
            "exit {:?}, {} stderr lines: {}",
            r.code,
            lines.len(),
            r.err
        ));
    }
    for n in needles {
        if !lines[0].to_lowercase().contains(&n.to_lowercase()) {
            return Err(format!("stderr lacks `{n}`: {}", lines[0]));
        }
    }
    Ok(())
}

/// `Ok` when `holds`, else the error `why` describes (built only on failure).
fn verdict(holds: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if holds { Ok(()) } else { Err(why()) }
}

/// Runs the cases, prints the tally, fails on any case that is not right.
fn tally(class: &str, results: Vec<(String, Result<(), String>)>) {
    let bad: Vec<String> = results
        .iter()
        .filter_map(|(c, r)| r.as_ref().err().map(|e| format!("{c}: {e}")))
        .collect();
    println!(
        "{class}: tried {} / right {} / wrong {}",
        results.len(),
        results.len() - bad.len(),
        bad.len()
    );
    for (case, r) in &results {
        println!("  {} {case}", if r.is_ok() { "right" } else { "WRONG" });
    }
    assert!(bad.is_empty(), "{class}:\n{}", bad.join("\n"));
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(s(p)).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Small inputs shared by the cases.
fn fixtures(t: &Path) {
    std::fs::write(
        t.join("w.csv"),
        (0..40)
            .map(|i| format!("{},{}\n", i % 4, i % 3))
            .collect::<String>(),
    )
    .unwrap();
    std::fs::write(
        t.join("z.csv"),
        (0..40)
            .map(|i| format!("{:.2},{:.2}\n", (i % 4) as f64 * 0.5, (i % 3) as f64 - 1.0))
            .collect::<String>(),
    )
    .unwrap();
    std::fs::write(
        t.join("pcfg_answer.txt"),
        "```python\nimport sys\nfor line in sys.stdin:\n    print(line.strip())\n```\n",
    )
    .unwrap();
}

fn rgp(name: &str) -> String {
    repo()
        .join("tests/data/rgp")
        .join(name)
        .display()
        .to_string()
}

fn data(rel: &str) -> String {
    repo().join("tests/data").join(rel).display().to_string()
}

#[test]
fn stdout_write_errors_end_every_command_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let h = rgp("k=4_u=2_d=16_type=h.jsonl");
    let answer = data("answers/compositional/h/0.txt");
    let sweep = data("slurm/sweep-length.toml");
    let h_sweep = data("slurm/h-sweep.toml");
    let pcfg = data("pcfgset");
    let cg = data("ordered_commongen/outputs.jsonl");
    let commands: Vec<Vec<String>> = [
        "codelength skellam --mu1 5 --mu2 5 --k 1",
        "synth lookup --samples 50 --no-topsim --json",
        "synth protocol --kind holistic --colours 3 --shapes 3",
        "compare --w {T}/w.csv --z {T}/z.csv --precision 0.01 --estimators exact,topsim --json",
        "compare --estimators list",
        "prequential --config {HS} --json --quiet",
        "prequential --config {HS} --sweep-h 0,1 --seeds 1 --out {T}/hs --quiet",
        "represent --z {T}/z.csv --precision 0.1 --vocab 2 --length 1 --out {T}/rep --json --quiet",
        "pcfgset run append A B , C",
        "pcfgset prompt --n 5",
        "pcfgset score --answer {T}/pcfg_answer.txt --n 5 --held-out 5 --json",
        "pcfgset check --data {PCFG}",
        "pcfgset generate --samples 20 --out {T}/gen",
        "pcfgset evaluate --predictions {PCFG}",
        "commongen prompts --sets 0 --templates 0",
        "commongen score {CG} --out {T}/cg",
        "grid generate --compat rgp --setting h",
        "grid prompt --dataset {H} --record 0",
        "grid score --dataset {H} --record 0 --answer {A} --json",
        "sweep {SW} --out {T}/sw --plan",
        "slurm submit --dry-run -- sweep {SW} --out {T}/sl",
        "completions bash",
        "--help",
        "--version",
    ]
    .iter()
    .map(|c| {
        c.split_whitespace()
            .map(|w| {
                w.replace("{T}", s(t))
                    .replace("{H}", &h)
                    .replace("{A}", &answer)
                    .replace("{SW}", &sweep)
                    .replace("{HS}", &h_sweep)
                    .replace("{PCFG}", &pcfg)
                    .replace("{CG}", &cg)
            })
            .collect()
    })
    .collect();
    let mut results = Vec::new();
    for c in &commands {
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        // A full disk: one line naming standard output, exit 2.
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let r = run_with(&args, t, Stdio::from(full));
        results.push((
            format!("{} > /dev/full", c.join(" ")),
            clean(&r, &["standard output", "no space left"]),
        ));
    }
    // A closed pipe (the reader gone before kcomp writes): quiet, the shell's 141.
    for c in [
        &commands[0],
        &commands[3],
        &commands[9],
        &commands[16],
        &commands[18],
    ] {
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 into a local array; both ends owned right after.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        use std::os::fd::FromRawFd;
        // SAFETY: fresh descriptors, owned once each.
        let (r, w) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        drop(r);
        let out = run_with(&args, t, Stdio::from(w));
        let ok = verdict(out.code == Some(141) && out.err.is_empty(), || {
            format!("exit {:?}: {}", out.code, out.err)
        });
        results.push((format!("{} | (closed)", c.join(" ")), ok));
    }
    tally("stdout write errors", results);
}

#[test]
fn sizes_are_checked_before_anything_is_allocated() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let sweep = data("slurm/sweep-length.toml");
    let cases: Vec<(Vec<String>, &[&str])> = vec![
        (
            "represent --z z.csv --precision 0.01 --out r1 --vocab 1000000000",
            &["vocab", "1000000000"][..],
        ),
        (
            "represent --z z.csv --precision 0.01 --out r2 --vocab 2,2000000000",
            &["vocab"],
        ),
        (
            "represent --z z.csv --precision 0.01 --out r3 --epochs 1000000000000",
            &["epochs"],
        ),
        (
            "pcfgset generate --primitive-examples 1000000000000 --samples 10 --out g1",
            &["primitive-examples"],
        ),
        (
            "pcfgset generate --max-depth 1000000000 --samples 10 --out g2",
            &["max-depth"],
        ),
        (
            "pcfgset generate --max-chars 1000000000000 --samples 10 --out g3",
            &["max-chars"],
        ),
        (
            "pcfgset generate --samples 100000000000 --out g4",
            &["samples"],
        ),
        ("pcfgset prompt --n 1000000000000", &["n"]),
        (
            "slurm submit --dry-run --parallel 1000000000000 -- sweep {SW} --out s1",
            &["parallel"],
        ),
        (
            "slurm submit --dry-run --cpus-per-task 1000000000000 -- sweep {SW} --out s2",
            &["cpus-per-task"],
        ),
        (
            "slurm submit --dry-run --tasks 1000000000000 -- sweep {SW} --out s3",
            &["tasks"],
        ),
        (
            "grid ask --dataset {H} --base-url http://127.0.0.1:9 --model m --no-auth --retries 1000000 --out a1",
            &["--retries"],
        ),
    ]
    .into_iter()
    .map(|(c, n)| {
        (
            c.split_whitespace()
                .map(|w| {
                    w.replace("{SW}", &sweep)
                        .replace("{H}", &rgp("k=4_u=2_d=16_type=h.jsonl"))
                })
                .collect(),
            n,
        )
    })
    .collect();
    let mut results = Vec::new();
    for (c, needles) in &cases {
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        let r = run(&args, t);
        let mut verdict = clean(&r, needles);
        if verdict.is_ok() && r.elapsed > Duration::from_secs(20) {
            verdict = Err(format!("refused only after {:?}", r.elapsed));
        }
        results.push((c.join(" "), verdict));
    }
    // Nothing was created for a refused run.
    for d in ["r1", "r2", "r3", "g1", "g2", "g3", "g4", "s1", "s2", "s3"] {
        results.push((
            format!("no folder {d}"),
            verdict(!t.join(d).exists(), || "created".into()),
        ));
    }
    tally("sizes before allocation", results);
}

#[test]
fn marker_and_lock_files_are_read_with_the_regular_file_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let sweep = data("slurm/sweep-length.toml");
    let panel = data("slurm/panel.toml");
    let cg = data("ordered_commongen/outputs.jsonl");
    let commands: Vec<(&str, Vec<String>)> = vec![
        ("sweep", vec!["sweep".into(), sweep.clone(), "--out".into()]),
        (
            "sweep --merge",
            vec![
                "sweep".into(),
                sweep.clone(),
                "--merge".into(),
                "--out".into(),
            ],
        ),
        ("panel", vec!["compare".into(), panel, "--out".into()]),
        (
            "represent",
            "represent --z z.csv --precision 0.1 --vocab 2 --length 1 --out"
                .split(' ')
                .map(String::from)
                .collect(),
        ),
        (
            "pcfgset generate",
            "pcfgset generate --samples 20 --out"
                .split(' ')
                .map(String::from)
                .collect(),
        ),
        (
            "commongen score",
            vec!["commongen".into(), "score".into(), cg, "--out".into()],
        ),
        (
            "h-sweep",
            vec![
                "prequential".into(),
                "--config".into(),
                data("slurm/h-sweep.toml"),
                "--sweep-h".into(),
                "0".into(),
                "--seeds".into(),
                "1".into(),
                "--quiet".into(),
                "--out".into(),
            ],
        ),
    ];
    let mut results = Vec::new();
    for (i, (name, args)) in commands.iter().enumerate() {
        // A FIFO at the stamp: refused at once, never a hang.
        let out = t.join(format!("fifo{i}"));
        std::fs::create_dir(&out).unwrap();
        mkfifo(&out.join(".kcomp-run.json"));
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.push(s(&out));
        let r = run(&a, t);
        results.push((
            format!("{name}: FIFO stamp"),
            clean(&r, &[".kcomp-run.json", "regular file"]),
        ));
        // A FIFO at the lock file older versions left: the lock is on the folder itself, so
        // the FIFO is never opened and the run ends as in an empty folder (a merge with
        // nothing to merge: its one-line error); a hang would fail here.
        let out = t.join(format!("lock{i}"));
        std::fs::create_dir(&out).unwrap();
        mkfifo(&out.join(".kcomp.lock"));
        a.pop();
        a.push(s(&out));
        let r = run(&a, t);
        results.push((
            format!("{name}: FIFO at the old lock file"),
            verdict(
                r.code == Some(0) || r.code == Some(2) && r.err.lines().count() == 1,
                || format!("exit {:?} after {:?}: {}", r.code, r.elapsed, r.err),
            ),
        ));
        // A link to /dev/zero at the stamp: refused.
        let out = t.join(format!("zero{i}"));
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink("/dev/zero", out.join(".kcomp-run.json")).unwrap();
        a.pop();
        a.push(s(&out));
        let r = run(&a, t);
        results.push((
            format!("{name}: /dev/zero stamp"),
            clean(&r, &[".kcomp-run.json", "link"]),
        ));
    }
    // pcfgset check: a FIFO or /dev/zero test file is an error naming it, not an absent file,
    // alone and beside a pair that is reproduced (where an absent file would let it pass).
    let published = repo().join("tests/data/pcfgset/data/pcfgset");
    for (what, make) in [
        ("FIFO", (|p: &Path| mkfifo(p)) as fn(&Path)),
        ("/dev/zero", |p: &Path| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
    ] {
        for beside_a_good_pair in [false, true] {
            let root = t.join(format!(
                "pcfg-{}-{beside_a_good_pair}",
                what.replace('/', "")
            ));
            let dir = root.join("pcfgset");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(published.join("pcfgset/test.src"), dir.join("test.src")).unwrap();
            make(&dir.join("test.tgt"));
            if beside_a_good_pair {
                let good = root.join("productivity");
                std::fs::create_dir_all(&good).unwrap();
                for f in ["test.src", "test.tgt"] {
                    std::fs::copy(published.join("productivity").join(f), good.join(f)).unwrap();
                }
            }
            let r = run(&["pcfgset", "check", "--data", s(&root)], t);
            let beside = if beside_a_good_pair {
                " beside a reproduced pair"
            } else {
                ""
            };
            results.push((
                format!("pcfgset check with a {what} test.tgt{beside}"),
                clean(&r, &["test.tgt"]),
            ));
        }
    }
    tally("marker and lock files", results);
}

/// Rewrites a saved sweep/panel result with `edit` applied to its rows, keeping (with
/// `redigest`) a digest that matches, so only the range checks can refuse it.
fn tamper(path: &Path, redigest: bool, edit: impl Fn(&mut serde_json::Value)) {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut v["rows"]);
    if redigest {
        let d = kcomp::sweeps::engine::digest("saved result", &[&v["settings"], &v["rows"]]);
        v["sha256"] = d.into();
    }
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// Edits a saved result, runs `check` on it, restores the original; the verdict of `clean`.
fn tampered(
    saved: &Path,
    original: &[u8],
    redigest: bool,
    edit: impl Fn(&mut serde_json::Value),
    check: impl FnOnce() -> Run,
    needles: &[&str],
) -> Result<(), String> {
    tamper(saved, redigest, edit);
    let verdict = clean(&check(), needles);
    std::fs::write(saved, original).unwrap();
    verdict
}

fn first_json(dir: &Path) -> PathBuf {
    let mut files: Vec<PathBuf> = walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files.into_iter().next().expect("a saved result")
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn saved_results_are_verified_before_a_merge_trusts_them() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let sweep = data("slurm/sweep-length.toml");
    let panel = data("slurm/panel.toml");
    let mut results = Vec::new();
    let ok = |r: &Run| -> Result<(), String> {
        verdict(r.code == Some(0), || {
            format!("exit {:?}: {}", r.code, r.err)
        })
    };
    // A sweep in shards, then hand edits of one saved run.
    let sw = t.join("sw");
    for shard in ["0/2", "1/2"] {
        let r = run(&["sweep", &sweep, "--out", s(&sw), "--shard", shard], t);
        assert_eq!(r.code, Some(0), "{}", r.err);
    }
    let merge = |out: &Path| run(&["sweep", &sweep, "--out", s(out), "--merge"], t);
    results.push(("sweep merge of untouched results".into(), ok(&merge(&sw))));
    let saved = first_json(&sw.join("runs"));
    let original = std::fs::read(&saved).unwrap();
    let saved_name = saved.file_name().unwrap().to_str().unwrap();
    for (what, redigest, field, value, needles) in [
        (
            "c = 123456 (digest kept)",
            false,
            "c",
            123456.0,
            vec!["digest", saved_name],
        ),
        (
            "c = 123456 (digest recomputed)",
            true,
            "c",
            123456.0,
            vec!["c = 123456", "K(Z) / K(Z|W)"],
        ),
        (
            "k_f = -1e308 (digest recomputed)",
            true,
            "k_f",
            -1e308,
            vec!["k_f"],
        ),
    ] {
        let edit = |rows: &mut serde_json::Value| rows[field] = value.into();
        results.push((
            format!("sweep: {what}"),
            tampered(&saved, &original, redigest, edit, || merge(&sw), &needles),
        ));
    }
    let mut v: serde_json::Value = serde_json::from_slice(&original).unwrap();
    v.as_object_mut().unwrap().remove("sha256");
    std::fs::write(&saved, v.to_string()).unwrap();
    results.push((
        "sweep: no digest".into(),
        clean(&merge(&sw), &["no digest"]),
    ));
    // --resume recomputes a refused result instead of trusting it.
    let r = run(&["sweep", &sweep, "--out", s(&sw), "--resume"], t);
    results.push(("sweep --resume over a refused result".into(), ok(&r)));
    results.push((
        "the result recomputed".into(),
        verdict(std::fs::read(&saved).unwrap() == original, || {
            "not the original result".into()
        }),
    ));
    // A panel: c and k_z_bits edited.
    let pn = t.join("panel");
    let r = run(
        &[
            "compare",
            &panel,
            "--out",
            s(&pn),
            "--shard",
            "0/1",
            "--quiet",
        ],
        t,
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    let pmerge = || {
        run(
            &["compare", &panel, "--out", s(&pn), "--merge", "--quiet"],
            t,
        )
    };
    results.push(("panel merge of untouched results".into(), ok(&pmerge())));
    let saved = first_json(&pn.join("runs"));
    let original = std::fs::read(&saved).unwrap();
    results.push((
        "panel: c = 777 (digest kept)".into(),
        tampered(
            &saved,
            &original,
            false,
            |rows| rows[0]["c"] = 777.0.into(),
            pmerge,
            &["digest"],
        ),
    ));
    results.push((
        "panel: c = 777 (digest recomputed)".into(),
        tampered(
            &saved,
            &original,
            true,
            |rows| {
                let row = rows
                    .as_array_mut()
                    .unwrap()
                    .iter_mut()
                    .find(|r| r["c"].is_number())
                    .unwrap();
                row["c"] = 777.0.into();
            },
            pmerge,
            &["c = 777"],
        ),
    ));
    results.push((
        "panel: k_z_bits = -1e308 (digest recomputed)".into(),
        tampered(
            &saved,
            &original,
            true,
            |rows| rows[0]["k_z_bits"] = (-1e308).into(),
            pmerge,
            &["k_z_bits"],
        ),
    ));
    // An h-sweep: c_l and k_z edited in a run folder's result.json.
    let hs = t.join("hs");
    let config = data("slurm/h-sweep.toml");
    let h = |extra: &[&str]| {
        let mut a = vec![
            "prequential",
            "--config",
            &config,
            "--sweep-h",
            "0,1",
            "--seeds",
            "1",
            "--quiet",
            "--out",
            s(&hs),
        ];
        a.extend_from_slice(extra);
        run(&a, t)
    };
    let r = h(&["--shard", "0/1"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
    results.push((
        "h-sweep merge of untouched results".into(),
        ok(&h(&["--merge"])),
    ));
    let run_dir = hs.join("h0_seed0");
    let result = run_dir.join("result.json");
    let original = std::fs::read_to_string(&result).unwrap();
    let redigest = |text: &str| {
        let config = std::fs::read_to_string(run_dir.join("config.toml")).unwrap();
        let d = kcomp::sweeps::engine::digest(
            "h-sweep run",
            &[&config.into(), &serde_json::Value::String(text.into())],
        );
        std::fs::write(run_dir.join("result.sha256"), format!("{d}\n")).unwrap();
        std::fs::write(&result, text).unwrap();
    };
    for (field, value, needle) in [("c_l", 777.0, "c_l = 777"), ("k_z", -1e308, "k_z")] {
        let mut v: serde_json::Value = serde_json::from_str(&original).unwrap();
        v[field] = value.into();
        let edited = serde_json::to_string_pretty(&v).unwrap();
        std::fs::write(&result, &edited).unwrap();
        results.push((
            format!("h-sweep: {field} = {value} (digest kept)"),
            clean(&h(&["--merge"]), &["digest"]),
        ));
        redigest(&edited);
        results.push((
            format!("h-sweep: {field} = {value} (digest recomputed)"),
            clean(&h(&["--merge"]), &[needle]),
        ));
        redigest(&original);
    }
    // slurm status/resubmit: submission.json checked before any value reaches a path.
    let sl = t.join("sl");
    let r = run(
        &[
            "slurm",
            "submit",
            "--dry-run",
            "--tasks",
            "4",
            "--",
            "sweep",
            &sweep,
            "--out",
            s(&sl),
        ],
        t,
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    let sub = sl.join("slurm/submission.json");
    let pristine: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sub).unwrap()).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit, &str)> = vec![
        ("tasks = 0", Box::new(|v| v["tasks"] = 0.into()), "tasks"),
        (
            "tasks = 2^64 - 1",
            Box::new(|v| v["tasks"] = u64::MAX.into()),
            "tasks",
        ),
        ("jobs = 0", Box::new(|v| v["jobs"] = 0.into()), "jobs"),
        (
            "an array job id with shell metacharacters",
            Box::new(|v| v["array_jobs"] = serde_json::json!(["1;rm -rf ~"])),
            "job id",
        ),
        (
            "a merge job id with a path",
            Box::new(|v| v["merge_job"] = "../../x".into()),
            "job id",
        ),
        (
            "cpus_per_task = 0",
            Box::new(|v| v["options"]["cpus_per_task"] = 0.into()),
            "cpus-per-task",
        ),
        (
            "an #SBATCH value with a newline",
            Box::new(|v| v["options"]["time"] = "1:00\n#SBATCH --x".into()),
            "time",
        ),
        (
            "another run folder",
            Box::new(|v| v["out"] = "/elsewhere".into()),
            "run folder",
        ),
    ];
    for (what, edit, needle) in &edits {
        let mut v = pristine.clone();
        edit(&mut v);
        std::fs::write(&sub, v.to_string()).unwrap();
        for cmd in ["status", "resubmit"] {
            let r = if cmd == "status" {
                run(&["slurm", "status", s(&sl)], t)
            } else {
                run(&["slurm", "resubmit", "--dry-run", s(&sl)], t)
            };
            results.push((
                format!("slurm {cmd}: {what}"),
                clean(&r, &["submission.json", needle]),
            ));
        }
    }
    std::fs::write(&sub, pristine.to_string()).unwrap();
    results.push((
        "slurm status of the untouched submission".into(),
        ok(&run(&["slurm", "status", s(&sl)], t)),
    ));
    tally("saved results verified", results);
}

#[test]
fn no_link_inside_out_is_followed_even_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let sweep = data("slurm/sweep-length.toml");
    let sweep2 = data("slurm/sweep-width.toml");
    let panel = data("slurm/panel.toml");
    let config = data("slurm/h-sweep.toml");
    // A victim folder per case: what one case writes through its link is not blamed on the next.
    let plant = |out: &Path, rel: &str, victim: &Path| {
        let link = out.join(rel);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(victim, &link).unwrap();
    };
    let mut results = Vec::new();
    let cases: Vec<(&str, &str, Vec<String>)> = vec![
        (
            "sweep: runs/",
            "runs",
            vec!["sweep".into(), sweep.clone(), "--force".into()],
        ),
        (
            "sweep of two configs: the sweep's folder",
            "lookup-length-small",
            vec![
                "sweep".into(),
                sweep.clone(),
                sweep2.clone(),
                "--force".into(),
            ],
        ),
        (
            "sweep of two configs: its runs/",
            "lookup-length-small/runs",
            vec!["sweep".into(), sweep.clone(), sweep2, "--force".into()],
        ),
        (
            "panel: runs/",
            "runs",
            vec![
                "compare".into(),
                panel.clone(),
                "--force".into(),
                "--quiet".into(),
            ],
        ),
        (
            "panel: runs/<family>",
            "runs/lookup-q",
            vec!["compare".into(), panel, "--force".into(), "--quiet".into()],
        ),
        (
            "h-sweep: a run folder",
            "h0_seed0",
            vec![
                "prequential".into(),
                "--config".into(),
                config,
                "--sweep-h".into(),
                "0".into(),
                "--seeds".into(),
                "1".into(),
                "--force".into(),
                "--quiet".into(),
            ],
        ),
        (
            "pcfgset generate: pcfgset/",
            "pcfgset",
            "pcfgset generate --samples 20 --force"
                .split(' ')
                .map(String::from)
                .collect(),
        ),
        (
            "slurm submit: slurm/",
            "slurm",
            vec![
                "slurm".into(),
                "submit".into(),
                "--dry-run".into(),
                "--force".into(),
                "--".into(),
                "sweep".into(),
                sweep,
                "--force".into(),
            ],
        ),
    ];
    for (i, (what, rel, args)) in cases.iter().enumerate() {
        let out = t.join(format!("o{i}"));
        std::fs::create_dir(&out).unwrap();
        let victim = t.join(format!("victim{i}"));
        std::fs::create_dir(&victim).unwrap();
        plant(&out, rel, &victim);
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.extend(["--out", s(&out)]);
        // The slurm form takes --out after the sweep's own arguments (already last).
        let r = run(&a, t);
        results.push((what.to_string(), clean(&r, &["symbolic link"])));
        let written: Vec<PathBuf> = walk(&victim);
        results.push((
            format!("{what}: nothing written through the link"),
            verdict(written.is_empty(), || format!("{written:?}")),
        ));
    }
    // represent may not overwrite its own input, --force or not, by any path to it.
    let o = t.join("rep");
    std::fs::create_dir(&o).unwrap();
    let z = std::fs::read_to_string(t.join("z.csv")).unwrap();
    std::fs::write(o.join("W.npy"), &z).unwrap();
    for input in [o.join("W.npy"), o.join(".").join("W.npy")] {
        let r = run(
            &[
                "represent",
                "--z",
                s(&input),
                "--precision",
                "0.1",
                "--vocab",
                "2",
                "--length",
                "1",
                "--out",
                s(&o),
                "--force",
            ],
            t,
        );
        results.push((
            format!("represent --z {} --out o --force", input.display()),
            clean(&r, &["overwrite"]),
        ));
    }
    results.push((
        "represent's input intact".into(),
        verdict(
            std::fs::read_to_string(o.join("W.npy")).unwrap() == z,
            || "overwritten".into(),
        ),
    ));
    tally("no link followed inside --out", results);
}

/// Holds the lock on `dir` (a flock on the folder itself) as another kcomp would.
fn hold_lock(dir: &Path) -> std::fs::File {
    std::fs::create_dir_all(dir).unwrap();
    let f = std::fs::File::open(dir).unwrap();
    f.try_lock().unwrap();
    f
}

#[test]
fn every_command_that_writes_takes_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let sweep = data("slurm/sweep-length.toml");
    let cases: Vec<(&str, String, Vec<String>)> = vec![
        (
            "represent",
            "rep".into(),
            "represent --z z.csv --precision 0.1 --vocab 2 --length 1 --out rep"
                .split(' ')
                .map(String::from)
                .collect(),
        ),
        (
            "pcfgset generate",
            "gen".into(),
            "pcfgset generate --samples 20 --out gen"
                .split(' ')
                .map(String::from)
                .collect(),
        ),
        (
            "pcfgset evaluate --out",
            "ev".into(),
            vec![
                "pcfgset".into(),
                "evaluate".into(),
                "--predictions".into(),
                data("pcfgset"),
                "--out".into(),
                "ev".into(),
            ],
        ),
        (
            "commongen score",
            "cg".into(),
            vec![
                "commongen".into(),
                "score".into(),
                data("ordered_commongen/outputs.jsonl"),
                "--out".into(),
                "cg".into(),
            ],
        ),
        (
            "slurm submit",
            "sl/slurm".into(),
            vec![
                "slurm".into(),
                "submit".into(),
                "--dry-run".into(),
                "--".into(),
                "sweep".into(),
                sweep.clone(),
                "--out".into(),
                "sl".into(),
            ],
        ),
        (
            "sweep",
            "sw".into(),
            vec!["sweep".into(), sweep.clone(), "--out".into(), "sw".into()],
        ),
    ];
    let mut results = Vec::new();
    for (what, locked, args) in &cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        if *what == "slurm submit" {
            // The run folder of a submission exists (the sweep's plan claims it first).
            let r = run(&a, t);
            assert_eq!(r.code, Some(0), "{}", r.err);
        }
        let held = hold_lock(&t.join(locked));
        let r = run(&a, t);
        results.push((what.to_string(), clean(&r, &["another kcomp run"])));
        drop(held);
        // Free again: the command runs.
        let r = run(&a, t);
        results.push((
            format!("{what} once the lock is free"),
            verdict(r.code == Some(0), || {
                format!("exit {:?}: {}", r.code, r.err)
            }),
        ));
    }
    // A second submit keeps the first array's job ids unless --force.
    let sub = t.join("sl/slurm/submission.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sub).unwrap()).unwrap();
    v["array_jobs"] = serde_json::json!(["4242"]);
    v["merge_job"] = "4243".into();
    std::fs::write(&sub, v.to_string()).unwrap();
    let again = [
        "slurm",
        "submit",
        "--dry-run",
        "--",
        "sweep",
        &sweep,
        "--out",
        "sl",
    ];
    results.push((
        "a second slurm submit".into(),
        clean(&run(&again, t), &["submission.json", "--force"]),
    ));
    results.push((
        "the first submission kept".into(),
        verdict(
            std::fs::read_to_string(&sub).unwrap().contains("4242"),
            || "replaced".into(),
        ),
    ));
    let mut forced = again.to_vec();
    forced.insert(3, "--force");
    let r = run(&forced, t);
    results.push((
        "a second slurm submit with --force".into(),
        verdict(
            r.code == Some(0) && !std::fs::read_to_string(&sub).unwrap().contains("4242"),
            || format!("exit {:?}: {}", r.code, r.err),
        ),
    ));
    tally("locks", results);
}

#[test]
fn options_that_would_be_ignored_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let h = rgp("k=4_u=2_d=16_type=h.jsonl");
    let cases: Vec<(String, &[&str])> = vec![
        (
            "compare --w w.csv --z z.csv --precision 0.01 --protocol reference --learners marginal".into(),
            &["learners", "reference"][..],
        ),
        (
            "compare --w w.csv --z z.csv --precision 0.01 --set prequential.config.scheme=reference --learners marginal".into(),
            &["learners"],
        ),
        (
            "compare --w w.csv --z z.csv --precision 0.01 --estimators topsim --learners marginal".into(),
            &["learners", "prequential"],
        ),
        (
            "compare --w w.csv --z z.csv --precision 0.01 --estimators exact,topsim --protocol online".into(),
            &["protocol", "prequential"],
        ),
        (
            "compare --grid {H} --estimators topsim --protocol reference".into(),
            &["protocol"],
        ),
        (
            "represent --z z.csv --precision 0.1 --lr 0.01 --out r".into(),
            &["lr", "k-means"],
        ),
        (
            "pcfgset generate --samples 20 --max-draws 10 --out g".into(),
            &["--naturalise"],
        ),
        (
            "grid ask --dataset {H} --base-url http://127.0.0.1:9 --model m --no-auth --max-tokens 0 --out a".into(),
            &["--max-tokens"],
        ),
        (
            "commongen ask --base-url http://127.0.0.1:9 --model m --no-auth --max-tokens 0 --out a".into(),
            &["--max-tokens"],
        ),
    ];
    let mut results = Vec::new();
    for (c, needles) in &cases {
        let c = c.replace("{H}", &h);
        let args: Vec<&str> = c.split_whitespace().collect();
        results.push((c.clone(), clean(&run(&args, t), needles)));
    }
    for d in ["r", "g", "a"] {
        results.push((
            format!("no folder {d}"),
            verdict(!t.join(d).exists(), || "created".into()),
        ));
    }
    tally("ignored options", results);
}

#[test]
fn checks_and_panels_name_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let mut results = Vec::new();
    // pcfgset check: a target not reproduced, and an empty file, named with their counts.
    let root = t.join("pcfg");
    let dir = root.join("pcfgset");
    std::fs::create_dir_all(&dir).unwrap();
    let src = repo().join("tests/data/pcfgset/data/pcfgset/pcfgset");
    std::fs::copy(src.join("test.src"), dir.join("test.src")).unwrap();
    let tgt = std::fs::read_to_string(src.join("test.tgt")).unwrap();
    let lines = tgt.lines().count();
    let mut broken: Vec<String> = tgt.lines().map(String::from).collect();
    broken[2] = "A B C".into();
    std::fs::write(dir.join("test.tgt"), broken.join("\n") + "\n").unwrap();
    let r = run(&["pcfgset", "check", "--data", s(&root)], t);
    results.push((
        "pcfgset check: a wrong target line".into(),
        clean(
            &r,
            &[
                "pcfgset/test.src",
                &format!("1 of {lines} lines not reproduced"),
                "first bad lines 3",
            ],
        ),
    ));
    results.push((
        "pcfgset check: its summary agrees".into(),
        verdict(r.out.contains("1 not reproduced"), || r.out.clone()),
    ));
    std::fs::write(dir.join("test.src"), "").unwrap();
    std::fs::write(dir.join("test.tgt"), "").unwrap();
    let r = run(&["pcfgset", "check", "--data", s(&root)], t);
    results.push((
        "pcfgset check: an empty file".into(),
        clean(&r, &["pcfgset/test.src", "no line"]),
    ));
    results.push((
        "pcfgset check: an empty file in the summary".into(),
        verdict(
            r.out.contains("0 not reproduced, 1 file without lines"),
            || r.out.clone(),
        ),
    ));
    // A files panel with two datasets of one name, or names equal once made file names:
    // refused at config time, naming both, before anything runs.
    std::fs::create_dir_all(t.join("d1")).unwrap();
    std::fs::create_dir_all(t.join("d2")).unwrap();
    for d in ["d1", "d2"] {
        std::fs::copy(t.join("w.csv"), t.join(d).join("w.csv")).unwrap();
        std::fs::copy(t.join("z.csv"), t.join(d).join("z.csv")).unwrap();
    }
    for (what, a, b) in [
        ("one name", "lang", "lang"),
        ("names equal after sanitising", "lang a", "lang/a"),
    ] {
        let config = format!(
            "name = \"p\"\nseeds = 1\nestimators = [\"exact\"]\n[[family]]\nname = \"mine\"\nkind = \"files\"\nparameter = \"dataset\"\nvalues = [{{ w = \"d1/w.csv\", z = \"d1/z.csv\", name = \"{a}\" }}, {{ w = \"d2/w.csv\", z = \"d2/z.csv\", name = \"{b}\" }}]\n[family.params]\nprecision = 0.01\n"
        );
        let path = t.join(format!("panel-{}.toml", what.replace(' ', "-")));
        std::fs::write(&path, config).unwrap();
        let out = t.join(format!("out-{}", what.replace(' ', "-")));
        let r = run(&["compare", s(&path), "--out", s(&out), "--quiet"], t);
        results.push((
            format!("files panel: two datasets with {what}"),
            clean(&r, &[&format!("`{a}`"), &format!("`{b}`"), "one name"]),
        ));
        results.push((
            format!("files panel ({what}): nothing written"),
            verdict(!out.exists(), || "created".into()),
        ));
    }
    tally("clear errors", results);
}
