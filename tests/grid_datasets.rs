//! `--compat rgp` generation must equal the six published files byte for byte.

use kcomp::datasets::string_grid::{GridSpec, Setting};
use std::path::PathBuf;

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp")
}

#[test]
fn published_files_are_reproduced_byte_for_byte() {
    let spec = GridSpec::default();
    for setting in Setting::ALL {
        let path = shared().join(spec.file_name(setting));
        let published = std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let records = spec.generate(setting, 30, 0).unwrap();
        let ours = GridSpec::to_jsonl(&records);
        assert_eq!(
            ours.as_bytes(),
            &published[..],
            "setting {}",
            setting.name()
        );
    }
}

#[test]
fn general_shapes_validate_and_generate() {
    let spec = GridSpec {
        positions: 3,
        letters: 3,
        side: 3,
        samples: 27,
        complementary: false,
    };
    let recs = spec.generate(Setting::Horizontal, 2, 7).unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].input.len(), 27);
    assert!(recs[0].input.contains(&"C F I".to_string()));
    assert!(spec.generate(Setting::Block, 1, 0).is_err());
}
