//! The "forge every score" attack: a sample used to lower kcomp's own address-space limit
//! (prlimit64 on its parent) so that kcomp's 512 MiB measuring thread could not start, and
//! the empty table that followed scored every later answer L(P+) = 0, C = 100. Samples can no
//! longer name kcomp (tests/sandbox_reach.rs); this test lowers the limit from outside, as
//! any other cause of the same failure would, and checks the answer fails closed: status
//! `internal_error`, E(P) = all samples wrong, C = 0, never a table of zero entries.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

#[test]
fn a_measuring_thread_that_cannot_start_fails_closed() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let answer = data.join("answers/memoriser/h/0.txt");
    let dataset = data.join("rgp/k=4_u=2_d=16_type=h.jsonl");
    let score = |soft_as: Option<u64>| -> serde_json::Value {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kcomp"));
        cmd.args([
            "grid", "score", "--parser", "robust", "--json", "--record", "0",
        ])
        .arg("--dataset")
        .arg(&dataset)
        .arg("--answer")
        .arg(&answer);
        if let Some(bytes) = soft_as {
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let mut lim: libc::rlimit = std::mem::zeroed();
                    if libc::getrlimit(libc::RLIMIT_AS, &mut lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // Only the soft limit: the sandbox may still raise its samples' limit up
                    // to the hard one, so the samples run and only the thread fails.
                    lim.rlim_cur = bytes;
                    if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Unconstrained: the memorising answer is scored (16 entries, all samples right).
    let normal = score(None);
    assert_eq!(normal["status"], "ok", "{normal}");
    assert_eq!(normal["errors"], 0);
    assert_eq!(normal["l_p_plus"], 320);
    // 400 MB: a 512 MiB thread stack cannot be mapped.
    let starved = score(Some(400 << 20));
    let status = starved["status"].as_str().unwrap();
    assert!(status.starts_with("internal_error"), "{starved}");
    assert_eq!(starved["norm_c"], 0.0, "{starved}");
    assert_eq!(starved["in_acc"], 0.0, "{starved}");
    assert_eq!(starved["errors"], 16, "{starved}");
    assert_eq!(starved["l_p_plus"], 0, "{starved}");
}

/// A program that prints its (memorised) output, then writes the old bootstrap
/// marker with escape sequences on stderr and exits with the bootstrap's status, is an
/// ordinary program: the robust parser still finds its hidden table (`hidden_data`, C = 0),
/// the reference parser scores its output, and none of its bytes reach the terminal, the
/// CSV or the Markdown.
#[test]
fn a_forged_bootstrap_failure_is_only_program_stderr() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let answer = data.join("hostile/forge_bootstrap.txt");
    let dataset = data.join("rgp/k=4_u=2_d=16_type=h.jsonl");
    let score = |parser: &str, json: bool| -> (String, String) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kcomp"));
        cmd.args(["grid", "score", "--parser", parser, "--record", "0"])
            .arg("--dataset")
            .arg(&dataset)
            .arg("--answer")
            .arg(&answer);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (robust, _) = score("robust", true);
    let robust: serde_json::Value = serde_json::from_str(&robust).unwrap();
    assert!(
        robust["status"]
            .as_str()
            .unwrap()
            .starts_with("hidden_data"),
        "{robust}"
    );
    assert_eq!(robust["norm_c"], 0.0, "{robust}");
    let (reference, _) = score("reference", true);
    let reference: serde_json::Value = serde_json::from_str(&reference).unwrap();
    assert_eq!(reference["status"], "ok", "{reference}");
    assert_eq!(reference["errors"], 0, "{reference}");
    for parser in ["robust", "reference"] {
        let (out, err) = score(parser, false);
        for text in [&out, &err] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}'),
                "{text:?}"
            );
            assert!(
                !text.contains("sandbox_error") && !text.contains("pwned"),
                "{text}"
            );
        }
    }
    // The same answer in a report: the program's bytes reach no table.
    let tree = tempfile::tempdir().unwrap();
    let h = tree.path().join("m1/h");
    std::fs::create_dir_all(&h).unwrap();
    std::fs::copy(&answer, h.join("0.txt")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(["grid", "report", "--parser", "robust", "--no-plots"])
        .arg(tree.path())
        .arg("--data")
        .arg(data.join("rgp"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = tree.path().join("report");
    let per = std::fs::read_to_string(report.join("per_answer.csv")).unwrap();
    let rows: Vec<&str> = per.lines().filter(|l| l.starts_with("m1,h,")).collect();
    assert_eq!(rows.len(), 1, "{per}");
    assert!(rows[0].contains(",\"hidden_data: "), "{per}");
    for name in ["per_answer.csv", "summary.csv", "report.md"] {
        let text = std::fs::read_to_string(report.join(name)).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains("pwned") && !text.contains("sandbox_error"),
            "{name}: {text}"
        );
    }
}
