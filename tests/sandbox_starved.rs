//! kcomp never dies of a closed pipe: programs that exit before reading their
//! input give kcomp EPIPE on their stdin, which is a status, not SIGPIPE; a closed stdout
//! ends kcomp quietly with the shell's 141. Both are deterministic: the programs exit at
//! once and the stdout pipe is closed before kcomp starts, whatever the load.

use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_ends_kcomp_quietly() {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 into a local array; both ends are owned right after.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: fresh descriptors from pipe2, owned once each.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args([
            "codelength",
            "skellam",
            "--mu1",
            "5",
            "--mu2",
            "5",
            "--k",
            "1",
        ])
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(141));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn grid_report_survives_programs_that_exit_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let h = root.join("m1/h");
    std::fs::create_dir_all(&h).unwrap();
    for i in 0..30 {
        std::fs::write(
            h.join(format!("{i}.txt")),
            "```python\nimport os\nos._exit(0)\n```",
        )
        .unwrap();
    }
    let data = format!("{}/tests/data/rgp", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args([
            "grid",
            "report",
            root.to_str().unwrap(),
            "--data",
            &data,
            "--timeout",
            "5",
            "--no-plots",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let per = std::fs::read_to_string(root.join("report/per_answer.csv")).unwrap();
    let rows: Vec<&str> = per.lines().filter(|l| l.starts_with("m1,h,")).collect();
    assert_eq!(rows.len(), 30, "{per}");
    for r in rows {
        // Ran, printed nothing: an ordinary (wrong) answer, not a failure of kcomp.
        assert_eq!(r.split(',').nth(3), Some("ok"), "{r}");
    }
}
