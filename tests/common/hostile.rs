//! Helpers of the hostile-program tests (sandbox_hostile.rs, sandbox_reach.rs): fixtures in
//! tests/data/hostile/ print `denied <what>` or `ESCAPED <what>` per attempt.

use kcomp::programs::sandbox::RunOutput;
use std::path::Path;

/// The text of a hostile fixture.
pub fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hostile")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every attempt line says `denied`, at least `n` of them, and none `ESCAPED`.
pub fn assert_all_denied(out: &RunOutput, n: usize) {
    assert!(
        !out.stdout.contains("ESCAPED"),
        "escaped:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    let denied = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("denied"))
        .count();
    assert!(
        denied >= n,
        "{denied} < {n} denials:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
}
