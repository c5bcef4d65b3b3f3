//! bosdis and kcomp's own protocol files agree: `synth protocol` uses token 0 as an ordinary
//! letter, and bosdis counts every symbol unless `bosdis.eos` names an end-of-sequence symbol
//! (EGG's convention is `eos = 0`).

use std::path::Path;
use std::process::Command;

fn kcomp(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kcomp {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// bosdis of W and Z (CSV) with extra `--set` assignments: (score, notes).
fn bosdis(w: &Path, z: &Path, sets: &[&str]) -> (f64, String) {
    let mut args = vec![
        "compare",
        "--w",
        w.to_str().unwrap(),
        "--z",
        z.to_str().unwrap(),
        "--estimators",
        "bosdis",
        "--json",
    ];
    for s in sets {
        args.extend(["--set", s]);
    }
    let v: serde_json::Value = serde_json::from_str(&kcomp(&args)).unwrap();
    let est = &v["estimates"][0];
    (
        est["score"]
            .as_f64()
            .unwrap_or_else(|| panic!("no score: {v}")),
        est["notes"].to_string(),
    )
}

#[test]
fn bosdis_counts_token_zero_of_kcomp_protocols_unless_eos_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    kcomp(&[
        "synth",
        "protocol",
        "--kind",
        "random",
        "--colours",
        "5",
        "--shapes",
        "5",
        "--repeats",
        "4",
        "--seed",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (w, z) = (out.join("W.csv"), out.join("Z.csv"));
    let text = std::fs::read_to_string(&w).unwrap();
    assert!(
        text.lines().any(|l| l.split(',').any(|t| t.trim() == "0")),
        "the protocol uses token 0"
    );
    // The same language with every token shifted by one: token 0 becomes 1.
    let shifted_text: String = text
        .lines()
        .map(|l| {
            l.split(',')
                .map(|t| (t.trim().parse::<u64>().unwrap() + 1).to_string())
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    let shifted = dir.path().join("W1.csv");
    std::fs::write(&shifted, shifted_text).unwrap();

    let (all, notes) = bosdis(&w, &z, &[]);
    // Every symbol counts by default: relabelling the tokens changes nothing.
    let (all_shifted, _) = bosdis(&shifted, &z, &[]);
    assert!((all - all_shifted).abs() < 1e-12, "{all} vs {all_shifted}");
    assert!(!notes.contains("end-of-sequence"), "{notes}");
    // With eos = 0 (EGG's convention) token 0's counts are dropped, as eos = 1 drops the same
    // letter of the shifted language; and the score differs from counting every symbol.
    let (egg, notes) = bosdis(&w, &z, &["bosdis.eos=0"]);
    let (egg_shifted, _) = bosdis(&shifted, &z, &["bosdis.eos=1"]);
    assert!((egg - egg_shifted).abs() < 1e-12, "{egg} vs {egg_shifted}");
    assert!(
        notes.contains("symbol 0 is treated as end-of-sequence"),
        "{notes}"
    );
    assert!(
        (egg - all).abs() > 1e-6,
        "dropping token 0 changed nothing: {egg}"
    );
    for s in [all, egg] {
        assert!((0.0..=1.0).contains(&s), "{s}");
    }
}
