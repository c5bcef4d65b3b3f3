//! Topological similarity under the field's conventions by name, against values computed with
//! EGG's own formulas (tests/data/topsim_egg/make_golden.py: scipy's pdist and spearmanr,
//! editdistance, one-hot meanings as EGG's games pass them), meanings given as a distance
//! matrix, and the convention named in every output.

use std::path::Path;

use kcomp::estimators::interface::{Estimator, Progress};
use kcomp::estimators::topsim::{TopsimConfig, TopsimEstimator};
use kcomp::estimators::topsim_convention::{DistanceMatrix, topological_similarity_matrix};
use kcomp::panel::single::user_dataset;

const LANGUAGES: [&str; 3] = ["compositional_noisy", "variable_length", "holistic"];

fn data(name: &str) -> kcomp::dataset::Dataset {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/topsim_egg")
        .join(name);
    let (w, z) =
        kcomp::io::user_data::load_user_data(&dir.join("W.csv"), &dir.join("Z.csv"), None).unwrap();
    user_dataset(w, z, vec![]).unwrap()
}

fn golden() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/topsim_egg/golden.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn topsim(settings: &str, name: &str) -> (f64, serde_json::Map<String, serde_json::Value>) {
    let config: TopsimConfig = toml::from_str(settings).unwrap();
    let est = TopsimEstimator {
        config,
        label: None,
    }
    .estimate(&data(name), &Progress::hidden())
    .unwrap();
    let score = match est.measure {
        kcomp::estimators::interface::Measure::Score { score } => score,
        other => panic!("{other:?}"),
    };
    let mut native = est.native;
    native.insert("notes".into(), serde_json::json!(est.notes));
    (score, native)
}

#[test]
fn the_egg_convention_gives_eggs_values() {
    let golden = golden();
    for name in LANGUAGES {
        let g = &golden[name];
        let cases = [
            ("convention = \"egg\"", "egg_hamming_edit"),
            // Under EGG's convention, cosine is of one-hot meanings.
            (
                "convention = \"egg\"\nz_distance = \"cosine\"",
                "egg_onehot_cosine_edit",
            ),
            (
                "convention = \"egg\"\nz_distance = \"cosine-one-hot\"",
                "egg_onehot_cosine_edit",
            ),
            (
                "convention = \"egg\"\nw_distance = \"hamming\"",
                "egg_hamming_hamming",
            ),
        ];
        for (settings, key) in cases {
            let (value, native) = topsim(settings, name);
            let want = g[key].as_f64().unwrap();
            assert!(
                (value - want).abs() < 1e-12,
                "{name}, {settings}: kcomp {value} EGG {want}"
            );
            let expected = if key == "egg_hamming_hamming" {
                "custom"
            } else {
                "egg"
            };
            assert_eq!(native["convention"], expected, "{settings}");
        }
        // kcomp's default differs (Pearson, Hamming on W) and says which convention it is.
        let (value, native) = topsim("", name);
        assert_eq!(native["convention"], "kcomp");
        let notes = native["notes"].to_string();
        assert!(notes.contains("convention kcomp: pearson"), "{notes}");
        assert!(notes.contains("topsim.convention = \\\"egg\\\""), "{notes}");
        let _ = value;
    }
}

/// `z_distance = "cosine"` outside EGG's convention takes the attribute indices as numbers,
/// and a note says how that differs from EGG's one-hot cosine.
#[test]
fn cosine_on_attribute_indices_is_flagged() {
    let (_, native) = topsim("z_distance = \"cosine\"", "compositional_noisy");
    let notes = native["notes"].to_string();
    assert!(
        notes.contains("cosine of the attribute indices") && notes.contains("cosine-one-hot"),
        "{notes}"
    );
    assert_eq!(native["convention"], "custom");
}

/// Meanings as a distance matrix: the Hamming distances of Z written as a matrix give the same
/// topsim as Z itself; a matrix of the wrong size or asymmetric is refused.
#[test]
fn meanings_as_a_distance_matrix() {
    let d = data("variable_length");
    let z = d.z_rows_f64();
    let n = z.len();
    let mut values = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            values[i * n + j] = z[i].iter().zip(&z[j]).filter(|(a, b)| a != b).count() as f64;
        }
    }
    let config: TopsimConfig = toml::from_str("convention = \"egg\"").unwrap();
    let matrix = DistanceMatrix::new(n, values.clone(), "ratings").unwrap();
    let from_matrix = topological_similarity_matrix(&d.w_rows(), &matrix, &config).unwrap();
    let want = golden()["variable_length"]["egg_hamming_edit"]
        .as_f64()
        .unwrap();
    assert!((from_matrix - want).abs() < 1e-12, "{from_matrix} {want}");

    // Through a file and the estimator (`[topsim] z_distances = "..."`).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ratings.csv");
    let text: String = values
        .chunks(n)
        .map(|r| {
            r.iter()
                .map(|v| format!("{v}"))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    let settings = format!(
        "convention = \"egg\"\nz_distances = {:?}",
        path.display().to_string()
    );
    let (value, native) = topsim(&settings, "variable_length");
    assert!((value - want).abs() < 1e-12);
    assert!(
        native["z_distances"]
            .as_str()
            .unwrap()
            .ends_with("ratings.csv")
    );

    let small = DistanceMatrix::new(2, vec![0.0, 1.0, 1.0, 0.0], "small").unwrap();
    let err = topological_similarity_matrix(&d.w_rows(), &small, &config).unwrap_err();
    assert!(err.to_string().contains("2 x 2"), "{err}");
}
