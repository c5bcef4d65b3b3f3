//! Every `--json` output's fields are documented: each command is run on small inputs and
//! every field it prints (nested objects and arrays included; the free-form `native` and
//! `params` objects are not entered) must be listed in its section of docs/json.md.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The field names listed in the tables of the docs/json.md section whose heading contains
/// `heading` (first cell; `a`, `b` lists several).
fn documented(heading: &str) -> BTreeSet<String> {
    let doc = std::fs::read_to_string("docs/json.md").unwrap();
    let section = doc
        .split("\n## ")
        .find(|s| s.lines().next().unwrap_or("").contains(heading))
        .unwrap_or_else(|| panic!("no section `{heading}` in docs/json.md"));
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            l.split('|')
                .nth(1)
                .unwrap()
                .split(", ")
                .map(|f| f.trim().trim_matches('`').to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every field path of `v`: `a.b` inside objects, `a[].b` inside arrays of objects.
fn paths(v: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, child) in map {
                let p = format!("{prefix}{k}");
                out.insert(p.clone());
                if k != "native" && k != "params" {
                    paths(child, &format!("{p}."), out);
                }
            }
        }
        serde_json::Value::Array(items) => {
            let p = format!("{}[].", prefix.trim_end_matches('.'));
            for item in items {
                paths(item, &p, out);
            }
        }
        _ => {}
    }
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "kcomp {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("kcomp {args:?}: not JSON ({e})"))
}

fn assert_documented(heading: &str, outputs: &[serde_json::Value]) {
    let doc = documented(heading);
    let mut seen = BTreeSet::new();
    for v in outputs {
        paths(v, "", &mut seen);
    }
    let missing: Vec<&String> = seen.iter().filter(|p| !doc.contains(*p)).collect();
    assert!(
        missing.is_empty(),
        "`{heading}` prints fields docs/json.md does not list: {missing:?}"
    );
    // The documentation lists no field no run printed, except the optional ones of other
    // data kinds and statuses.
    let optional = [
        "dataset.z.dim",
        "dataset.z.precision",
        "dataset.z.attributes",
        "dataset.z.values",
        "estimates[].status.reason",
    ];
    let stale: Vec<&String> = doc
        .iter()
        .filter(|p| !seen.contains(*p) && !optional.contains(&p.as_str()))
        .collect();
    assert!(
        stale.is_empty(),
        "`{heading}`: documented but never printed: {stale:?}"
    );
}

fn write(path: &Path, rows: impl Iterator<Item = String>) {
    std::fs::write(path, rows.collect::<Vec<_>>().join("\n") + "\n").unwrap();
}

#[test]
fn every_json_output_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (w, z, zc) = (d.join("w.csv"), d.join("z.csv"), d.join("zc.csv"));
    write(
        &w,
        (0..60).map(|i| format!("{},{}", i % 4, 4 + (i / 4) % 3)),
    );
    write(&z, (0..60).map(|i| format!("{},{}", i % 4, (i / 4) % 3)));
    write(
        &zc,
        (0..60).map(|i| format!("{}.5,{}", i % 4, ((i / 4) % 3) as f64 * 0.7)),
    );
    let (w, z, zc) = (s(&w), s(&z), s(&zc));
    assert_documented(
        "compare --w",
        &[
            json_of(&["compare", "--w", &w, "--z", &z, "--json", "--quiet"]),
            json_of(&[
                "compare",
                "--w",
                &w,
                "--z",
                &zc,
                "--precision",
                "0.1",
                "--estimators",
                "prequential,posdis",
                "--json",
            ]),
            json_of(&[
                "compare",
                "--grid",
                "tests/data/rgp/k=4_u=2_d=16_type=r.jsonl",
                "--record",
                "3",
                "--estimators",
                "exact,topsim",
                "--json",
            ]),
        ],
    );
    let out = s(&d.join("sweep"));
    assert_documented(
        "prequential",
        &[
            json_of(&["prequential", "--w", &w, "--z", &z, "--json"]),
            json_of(&[
                "prequential",
                "--w",
                &w,
                "--z",
                &z,
                "--protocol",
                "reference",
                "--max-epochs",
                "3",
                "--json",
            ]),
            json_of(&[
                "prequential",
                "--sweep-h",
                "0,1",
                "--seeds",
                "1",
                "--set",
                "language.repeats=2",
                "--out",
                &out,
                "--quiet",
                "--json",
            ]),
        ],
    );
    assert_documented(
        "synth lookup",
        &[
            json_of(&["synth", "lookup", "--samples", "50", "--json"]),
            json_of(&["synth", "grammar", "--samples", "50", "--json"]),
        ],
    );
    assert_documented(
        "grid score",
        &[json_of(&[
            "grid",
            "score",
            "--dataset",
            "tests/data/rgp/k=4_u=2_d=16_type=h.jsonl",
            "--record",
            "0",
            "--answer",
            "tests/data/answers/compositional/h/0.txt",
            "--json",
        ])],
    );
    assert_documented(
        "pcfgset score",
        &[json_of(&[
            "pcfgset",
            "score",
            "--answer",
            "tests/data/pcfgset/answers/interpreter.txt",
            "--n",
            "5",
            "--held-out",
            "5",
            "--json",
        ])],
    );
    let rep = s(&d.join("rep"));
    assert_documented(
        "represent",
        &[json_of(&[
            "represent",
            "--z",
            &zc,
            "--precision",
            "0.1",
            "--out",
            &rep,
            "--quiet",
            "--json",
        ])],
    );
    assert_documented(
        "codelength skellam",
        &[json_of(&[
            "codelength",
            "skellam",
            "--mu1",
            "5",
            "--mu2",
            "5",
            "--k",
            "1",
        ])],
    );
}
