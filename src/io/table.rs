//! Writing tables: serde rows through `csv::Writer`, and number formats for the columns.

use std::path::Path;

use serde::{Serialize, Serializer};

use crate::error::{KcompError, Result};

/// Writes `rows` (one `Serialize` struct each; field names are the header) as CSV, atomically
/// (see [`crate::io::files::atomic_write`]), every text cell through
/// [`crate::io::names::csv_cell`] (no spreadsheet formulas from names read from disk).
pub fn write_csv<T: Serialize>(path: &Path, rows: impl IntoIterator<Item = T>) -> Result<()> {
    let bytes = csv_bytes(rows).map_err(|e| KcompError::file(path, format!("writing CSV: {e}")))?;
    crate::io::files::atomic_write(path, &bytes)
}

/// The CSV text of `rows` (header from the field names), formula-safe cells.
pub fn csv_bytes<T: Serialize>(rows: impl IntoIterator<Item = T>) -> csv::Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row)?;
    }
    let raw = writer.into_inner().map_err(|e| e.into_error())?;
    // Serde gives no hook per cell: read the records back and neutralise each text cell.
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(&raw[..]);
    let mut out = csv::Writer::from_writer(Vec::new());
    for rec in reader.records() {
        out.write_record(
            rec?.iter()
                .map(crate::io::names::csv_cell)
                .map(|c| c.into_owned()),
        )?;
    }
    Ok(out.into_inner().map_err(|e| e.into_error())?)
}

/// Writes records given as text cells (the first is the header) like [`write_csv`].
pub fn write_records<I, R, S>(path: &Path, records: I) -> Result<()>
where
    I: IntoIterator<Item = R>,
    R: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let err = |e: csv::Error| KcompError::file(path, format!("writing CSV: {e}"));
    let mut out = csv::Writer::from_writer(Vec::new());
    for rec in records {
        let cells: Vec<String> = rec
            .into_iter()
            .map(|c| crate::io::names::csv_cell(c.as_ref()).into_owned())
            .collect();
        out.write_record(&cells).map_err(err)?;
    }
    let bytes = out.into_inner().map_err(|e| err(e.into_error().into()))?;
    crate::io::files::atomic_write(path, &bytes)
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

    #[test]
    fn text_cells_cannot_be_formulas() {
        #[derive(Serialize)]
        struct Named<'a> {
            model: &'a str,
            #[serde(serialize_with = "decimal")]
            x: f64,
        }
        let rows = [
            Named {
                model: "=HYPERLINK(\"x\")",
                x: -1.5,
            },
            Named {
                model: "@cmd",
                x: 2.0,
            },
            Named {
                model: "a,b\nc",
                x: 0.0,
            },
        ];
        let text = String::from_utf8(csv_bytes(&rows).unwrap()).unwrap();
        // A newline in a cell is escaped like every control character (no raw bytes from
        // a name or a program in a CSV file); quoting of `,` is the CSV writer's.
        assert_eq!(
            text,
            "model,x\n\"'=HYPERLINK(\"\"x\"\")\",-1.5\n'@cmd,2\n\"a,b\\nc\",0\n"
        );
    }
}
