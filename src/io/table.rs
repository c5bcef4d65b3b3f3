//! Writing tables: serde rows through `csv::Writer`, and number formats for the columns.

use std::path::Path;

use serde::{Serialize, Serializer};

use crate::error::{KcompError, Result};

/// Writes `rows` (one `Serialize` struct each; field names are the header) as CSV.
pub fn write_csv<T: Serialize>(path: &Path, rows: impl IntoIterator<Item = T>) -> Result<()> {
    let err = |e: csv::Error| KcompError::file(path, format!("writing CSV: {e}"));
    let mut writer = csv::Writer::from_path(path).map_err(err)?;
    for row in rows {
        writer.serialize(row).map_err(err)?;
    }
    writer.flush().map_err(|e| KcompError::io(path, e))
}

/// A float in Rust's shortest round-trip decimal notation without exponent (`0.000006`, not
/// serde's `6e-6`): the format kcomp's tables have always used.
pub fn decimal<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// [`decimal`] for an optional value; `None` is an empty cell.
pub fn decimal_opt<S: Serializer>(v: &Option<f64>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match v {
        Some(x) => s.collect_str(x),
        None => s.serialize_str(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        name: &'static str,
        #[serde(serialize_with = "decimal")]
        small: f64,
        #[serde(serialize_with = "decimal")]
        whole: f64,
        #[serde(serialize_with = "decimal_opt")]
        missing: Option<f64>,
    }

    #[test]
    fn rows_become_a_header_and_decimal_cells() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let rows = [Row {
            name: "a",
            small: 6.428798735619862e-6,
            whole: 4.0,
            missing: None,
        }];
        write_csv(&path, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "name,small,whole,missing\na,0.000006428798735619862,4,\n"
        );
    }
}
