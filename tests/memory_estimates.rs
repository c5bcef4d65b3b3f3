//! Memory estimates bound the real use: for the largest inputs of each command
//! that estimates its memory that still run in a few seconds, kcomp must refuse the run when
//! the limit (`--max-memory`, or `KCOMP_MAX_MEMORY` for commands without the option) is set
//! just below the peak resident memory the same run was measured to use, and its estimate
//! must not be absurdly above that peak. The peak is wait4's `ru_maxrss` of that one child
//! (other tests' children do not count), less the peak of the same command on a tiny input
//! (the binary, the allocator and thread stacks are not what the estimates count).

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// One finished kcomp run: peak resident bytes, exit code, stdout, stderr.
struct Run {
    peak: f64,
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[String], env: Option<(&str, String)>) -> Run {
    let err_file = tempfile::NamedTempFile::new().unwrap();
    let out_file = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kcomp"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out_file.reopen().unwrap()))
        .stderr(Stdio::from(err_file.reopen().unwrap()))
        .env_remove("KCOMP_MAX_MEMORY");
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run kcomp");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter; the pid is our own child, waited once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    // Already reaped by wait4 (std's wait then reports ECHILD).
    assert!(child.wait().is_err());
    assert!(libc::WIFEXITED(status), "{args:?}: killed by a signal");
    Run {
        peak: usage.ru_maxrss as f64 * 1024.0,
        code: libc::WEXITSTATUS(status),
        stdout: std::fs::read_to_string(out_file.path()).unwrap(),
        stderr: std::fs::read_to_string(err_file.path()).unwrap(),
    }
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// Bytes of a size printed by kcomp (`20.5 MiB`, `1.234e15 B`).
fn parse_human(text: &str) -> f64 {
    let (num, unit) = text.trim().split_once(' ').unwrap();
    let mult = match unit {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024f64.powi(4),
        u => panic!("unit {u}"),
    };
    num.parse::<f64>().unwrap() * mult
}

/// How a command takes the limit.
#[derive(Clone, Copy)]
enum Limit {
    Flag,
    Env,
}

/// How far above the measured peak an estimate may be.
const SLACK: f64 = 8.0;

/// Runs `big` (expecting exit `code`), measures its peak less the peak of `tiny`, then
/// checks that the same run is refused under a limit one byte below that and that the
/// refusal's estimate is within [`SLACK`] times the measured peak.
fn check(what: &str, tiny: &str, big: &str, code: i32, limit: Limit) {
    let base = run(&words(tiny), None);
    assert_eq!(base.code, code, "{what} (tiny): {}", base.stderr);
    let measured = run(&words(big), None);
    assert_eq!(measured.code, code, "{what}: {}", measured.stderr);
    let net = measured.peak - base.peak;
    // The input must be large enough for the estimate to matter.
    assert!(net > 20e6, "{what}: only {net:.3e} B above the base");
    let below = format!("{}", (net as u64).saturating_sub(1));
    let refused = match limit {
        Limit::Flag => {
            let mut a = words(big);
            a.extend(["--max-memory".into(), below]);
            run(&a, None)
        }
        Limit::Env => run(&words(big), Some(("KCOMP_MAX_MEMORY", below))),
    };
    // Refused: exit 2 with one line, or (compare) the estimator's row failed for memory.
    let line = match refused.code {
        2 => {
            let line = refused.stderr.trim().to_string();
            assert_eq!(line.lines().count(), 1, "{line}");
            line
        }
        _ => refused
            .stdout
            .lines()
            .find(|l| l.contains("needs about"))
            .unwrap_or_else(|| {
                panic!(
                    "{what}: not refused under a limit below its measured peak ({net:.3e} B): \
                     exit {}, {}",
                    refused.code, refused.stderr
                )
            })
            .to_string(),
    };
    let estimate = parse_human(
        line.split("needs about ")
            .nth(1)
            .and_then(|t| t.split(" of memory").next())
            .unwrap_or_else(|| panic!("{what}: no estimate in `{line}`")),
    );
    assert!(
        estimate >= net,
        "{what}: estimate {estimate:.3e} < measured {net:.3e}"
    );
    assert!(
        estimate < SLACK * net,
        "{what}: estimate {estimate:.3e} far above the measured {net:.3e}"
    );
    eprintln!("{what}: measured {net:.3e} B, estimate {estimate:.3e} B");
}

/// [`check`] on inputs of `tiny` and `big` rows that `write(dir, name, rows)` writes into a
/// temporary folder, with the command `cmd(dir, name, rows)` (name: "tiny" or "big").
fn check_inputs(
    what: &str,
    (tiny, big): (usize, usize),
    write: impl Fn(&Path, &str, usize),
    cmd: impl Fn(&Path, &str, usize) -> String,
    code: i32,
    limit: Limit,
) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, n) in [("tiny", tiny), ("big", big)] {
        write(d, name, n);
    }
    check(
        what,
        &cmd(d, "tiny", tiny),
        &cmd(d, "big", big),
        code,
        limit,
    );
}

/// `prequential` on `w_NAME.EXT` and `z_NAME.EXT` with the reference protocol and every row
/// held out: it stops right after loading, with the data in memory.
fn prequential_cmd(ext: &'static str, precision: f64) -> impl Fn(&Path, &str, usize) -> String {
    move |d, name, n| {
        format!(
            "prequential --w {0}/w_{name}.{ext} --z {0}/z_{name}.{ext} --precision {precision} \
             --protocol reference --set prequential.val_size={n} --quiet",
            d.display()
        )
    }
}

fn write_lines(path: &Path, n: usize, line: impl Fn(usize) -> String) {
    let mut f = std::io::BufWriter::new(File::create(path).unwrap());
    for i in 0..n {
        writeln!(f, "{}", line(i)).unwrap();
    }
}

/// A little-endian C-order `.npy` file.
fn write_npy(path: &Path, descr: &str, shape: (usize, usize), data: &[u8]) {
    let mut header = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': ({}, {}), }}",
        shape.0, shape.1
    );
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    std::fs::write(path, bytes).unwrap();
}

/// A cheap deterministic sequence (no RNG crate needed in the test).
fn mix(i: usize, m: usize) -> usize {
    (i.wrapping_mul(2_654_435_761) >> 7) % m
}

/// `prequential` on CSV files: one narrow column per file is the worst case (a value every
/// two bytes of text). The loading is what is measured.
#[test]
fn prequential_csv_loading_stays_under_its_estimate() {
    check_inputs(
        "prequential CSV",
        (20, 1_500_000),
        |d, name, n| {
            write_lines(&d.join(format!("w_{name}.csv")), n, |i| {
                mix(i, 10).to_string()
            });
            write_lines(&d.join(format!("z_{name}.csv")), n, |i| {
                format!("{}.25,{}", mix(i + 1, 7), mix(i + 2, 3))
            });
        },
        prequential_cmd("csv", 0.5),
        2,
        Limit::Flag,
    );
}

/// `prequential` on `.npy` files: int32 W and float32 Z (the array as read, then its wider
/// copies).
#[test]
fn prequential_npy_loading_stays_under_its_estimate() {
    check_inputs(
        "prequential npy",
        (20, 1_000_000),
        |d, name, n| {
            let w: Vec<u8> = (0..n * 2)
                .flat_map(|i| (mix(i, 50) as i32).to_le_bytes())
                .collect();
            write_npy(&d.join(format!("w_{name}.npy")), "<i4", (n, 2), &w);
            let z: Vec<u8> = (0..n * 2)
                .flat_map(|i| (mix(i + 3, 100) as f32 * 0.1).to_le_bytes())
                .collect();
            write_npy(&d.join(format!("z_{name}.npy")), "<f4", (n, 2), &z);
        },
        prequential_cmd("npy", 0.1),
        2,
        Limit::Flag,
    );
}

/// `compare --w/--z` with bosdis on token ids near the 10^7 vocabulary cap: memory follows
/// the rows, not the largest id. `compare` has no `--max-memory`; the environment variable
/// sets its limit.
#[test]
fn compare_bosdis_on_large_token_ids_stays_under_its_estimate() {
    check_inputs(
        "compare bosdis",
        (20, 600_000),
        |d, name, n| {
            write_lines(&d.join(format!("w_{name}.csv")), n, |i| {
                format!("{},{}", 9_999_999 - mix(i, 1000), mix(i + 5, 9_999_999))
            });
            write_lines(&d.join(format!("z_{name}.csv")), n, |i| {
                format!("{},{}", mix(i, 4), mix(i + 1, 3))
            });
        },
        |d, name, _| {
            format!(
                "compare --w {0}/w_{name}.csv --z {0}/z_{name}.csv --estimators bosdis --json",
                d.display()
            )
        },
        0,
        Limit::Env,
    );
}

/// `synth lookup` and `synth grammar` (their Z, topsim pairs and exact terms).
#[test]
fn synth_lookup_and_grammar_stay_under_their_estimates() {
    check(
        "synth lookup",
        "synth lookup --samples 100 --length 4 --vocab 10 --dim 4 --json",
        "synth lookup --samples 100000 --length 8 --vocab 100 --dim 64 --ngram 2 --json",
        0,
        Limit::Flag,
    );
    check(
        "synth grammar",
        "synth grammar --samples 100 --length 4 --dim 4 --json",
        "synth grammar --samples 30000 --length 8 --dim 64 --json",
        0,
        Limit::Flag,
    );
}
