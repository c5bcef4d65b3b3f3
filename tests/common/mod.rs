//! Helpers shared by integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared` beside the repository (CI and developers have it there).
pub fn shared_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared")
}
