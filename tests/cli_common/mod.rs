//! Running the `kcomp` binary from integration tests.

use std::process::Command;

/// Runs `kcomp` with `args` from the repository root; returns (exit status, stdout, stderr).
/// A run killed by a signal reports status -1.
pub fn kcomp(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the kcomp binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
