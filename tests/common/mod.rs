//! Helpers shared by integration tests.

use std::path::PathBuf;

/// The test fixtures committed in `tests/data` (copies of the shared RGP datasets, golden
/// snippets and Skellam oracles), so a plain clone passes its tests.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}
