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
