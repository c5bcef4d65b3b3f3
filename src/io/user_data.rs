//! Reading user data W (integer tokens) and Z (integer attributes or float vectors) from
//! `.npy`, CSV or JSONL files, with validation. Every error names the file.
//!
//! - `.npy`: 1-D (one column) or 2-D arrays; integer dtypes (any width, signed or not) or
//!   float32/float64 (Z only).
//! - `.csv`: one row per sample, comma-separated numbers; a first line none of whose fields
//!   is a number is taken as a header (a first line mixing numbers and text is an error).
//! - At most [`MAX_COLUMNS`] columns; `uint64` values above 2^63-1 are refused.
//! - `.jsonl` / `.ndjson`: one JSON array of numbers (or a single number) per line.
//!
//! Z is discrete when every value is an integer and no precision is given; otherwise it is
//! continuous and quantised to the grid of spacing `precision` (required for float Z).

use std::path::Path;

use ndarray::ArrayD;
use ndarray_npy::read_npy;

use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};

/// Numbers read from a file, row-major.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Int(Vec<i64>),
    Float(Vec<f64>),
}

/// A rectangular table of numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub rows: usize,
    pub cols: usize,
    pub values: Values,
}

fn from_array<T: Copy>(path: &Path, a: ArrayD<T>) -> Result<Table>
where
    Values: From<Vec<T>>,
{
    let shape = a.shape().to_vec();
    let (rows, cols) = match shape.len() {
        1 => (shape[0], 1),
        2 => (shape[0], shape[1]),
        d => {
            return Err(KcompError::file(
                path,
                format!("expected a 1-D or 2-D array, found {d} dimensions {shape:?}"),
            ));
        }
    };
    let v: Vec<T> = a.iter().copied().collect();
    Ok(Table {
        rows,
        cols,
        values: Values::from(v),
    })
}

macro_rules! impl_from_ints {
    ($($t:ty),*) => {$(
        impl From<Vec<$t>> for Values {
            fn from(v: Vec<$t>) -> Self {
                Values::Int(v.into_iter().map(|x| x as i64).collect())
            }
        }
    )*};
}
impl_from_ints!(i64, i32, i16, i8, u32, u16, u8);

impl From<Vec<u64>> for Values {
    /// Only called on values checked to be at most i64::MAX (see `read_npy_table`).
    fn from(v: Vec<u64>) -> Self {
        Values::Int(v.into_iter().map(|x| x as i64).collect())
    }
}
impl From<Vec<f64>> for Values {
    fn from(v: Vec<f64>) -> Self {
        Values::Float(v)
    }
}
impl From<Vec<f32>> for Values {
    fn from(v: Vec<f32>) -> Self {
        Values::Float(v.into_iter().map(|x| x as f64).collect())
    }
}

/// Most columns a W or Z table may have (a sequence length or a representation dimension):
/// the estimators' work grows with it, and wider tables are refused at once.
pub const MAX_COLUMNS: usize = 65_536;

/// Bytes of memory per byte of a text table while it is parsed (rows of `f64`, then the
/// flat copy and the typed copy): every value takes at least 2 bytes of text.
const TEXT_EXPANSION: f64 = 16.0;

/// Shape and item size declared by a `.npy` header, read without reading the data.
fn npy_header(path: &Path, file_size: u64) -> Result<(Vec<u64>, u64, u64)> {
    use std::io::Read;
    let bad = |why: &str| KcompError::file(path, format!("not a valid .npy file: {why}"));
    let mut f = std::fs::File::open(path).map_err(|e| KcompError::io(path, e))?;
    let mut pre = [0u8; 12];
    f.read_exact(&mut pre[..10]).map_err(|_| bad("too short"))?;
    if &pre[..6] != b"\x93NUMPY" {
        return Err(bad("no NUMPY magic"));
    }
    let (len, start) = match pre[6] {
        1 => (u16::from_le_bytes([pre[8], pre[9]]) as u64, 10),
        2 | 3 => {
            f.read_exact(&mut pre[10..12])
                .map_err(|_| bad("too short"))?;
            (
                u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]) as u64,
                12,
            )
        }
        v => return Err(bad(&format!("unknown version {v}"))),
    };
    if start + len > file_size || len > 1 << 20 {
        return Err(bad("header longer than the file"));
    }
    let mut header = vec![0u8; len as usize];
    f.read_exact(&mut header)
        .map_err(|_| bad("truncated header"))?;
    let header = String::from_utf8_lossy(&header);
    let descr = header
        .split("'descr'")
        .nth(1)
        .and_then(|t| t.split('\'').nth(1))
        .ok_or_else(|| bad("no descr"))?;
    let item: u64 = descr
        .trim_start_matches(['<', '>', '|', '='])
        .get(1..)
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| bad(&format!("unsupported dtype {descr}")))?;
    let shape_text = header
        .split("'shape'")
        .nth(1)
        .and_then(|t| t.split('(').nth(1))
        .and_then(|t| t.split(')').next())
        .ok_or_else(|| bad("no shape"))?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.trim_end_matches('L').parse::<u64>())
        .collect::<std::result::Result<Vec<u64>, _>>()
        .map_err(|_| bad(&format!("shape ({shape_text}) is not a tuple of sizes")))?;
    Ok((shape, item, start + len))
}

/// Checks a table file before reading it: a regular file, a `.npy` header whose shape
/// matches the file size, and the memory its values take.
fn check_table_file(path: &Path, ext: &str) -> Result<()> {
    let size = crate::io::limits::regular_file_size(path)?;
    let values_bytes = if ext == "npy" {
        let (shape, item, data_start) = npy_header(path, size)?;
        // ndarray needs the product of the non-zero axes (in bytes) to fit an isize: a shape
        // like (2^64-1, 0) holds no values yet cannot be built.
        let fits = shape
            .iter()
            .filter(|&&d| d > 0)
            .try_fold(item.max(1), |acc, &d| acc.checked_mul(d))
            .is_some_and(|b| b <= isize::MAX as u64);
        if !fits {
            return Err(KcompError::file(
                path,
                format!("the header declares shape {shape:?}, too large for an array"),
            ));
        }
        let count = shape.iter().map(|&d| d as f64).product::<f64>();
        let needed = count * item as f64;
        if needed > (size - data_start) as f64 {
            return Err(KcompError::file(
                path,
                format!(
                    "the header declares shape {shape:?} ({count:e} values of {item} bytes) but \
                     the file holds only {} data bytes",
                    size - data_start
                ),
            ));
        }
        // The typed array, its i64/f64 copy and the model's copy.
        count * (item as f64 + 16.0)
    } else {
        size as f64 * TEXT_EXPANSION
    };
    match crate::io::limits::over_limit("its values", values_bytes) {
        Some(reason) => Err(KcompError::file(path, reason)),
        None => Ok(()),
    }
}

fn read_npy_table(path: &Path) -> Result<Table> {
    macro_rules! attempt {
        ($t:ty) => {
            if let Ok(a) = read_npy::<_, ArrayD<$t>>(path) {
                return from_array(path, a);
            }
        };
    }
    attempt!(i64);
    attempt!(i32);
    attempt!(u8);
    attempt!(i16);
    attempt!(i8);
    attempt!(u16);
    attempt!(u32);
    // uint64 above i64::MAX has no exact i64: refused, never clamped.
    if let Ok(a) = read_npy::<_, ArrayD<u64>>(path) {
        if let Some((i, v)) = a.iter().enumerate().find(|(_, v)| **v > i64::MAX as u64) {
            return Err(KcompError::file(
                path,
                format!(
                    "value {i} (flat index) is {v}, above the largest integer kcomp reads (2^63-1)"
                ),
            ));
        }
        return from_array(path, a);
    }
    attempt!(f64);
    attempt!(f32);
    // Report the real reason with the most common type.
    match read_npy::<_, ArrayD<i64>>(path) {
        Err(e) => Err(KcompError::file(
            path,
            format!("not a readable .npy array of integers or floats ({e})"),
        )),
        Ok(_) => unreachable!(),
    }
}

fn parse_row(path: &Path, line_no: usize, fields: &[&str]) -> Result<Vec<f64>> {
    fields
        .iter()
        .enumerate()
        .map(|(c, f)| {
            f.trim().parse::<f64>().map_err(|_| {
                KcompError::file(
                    path,
                    format!(
                        "line {line_no}, column {}: `{}` is not a number",
                        c + 1,
                        f.trim()
                    ),
                )
            })
        })
        .collect()
}

fn finish_rows(path: &Path, rows: Vec<Vec<f64>>) -> Result<Table> {
    if rows.is_empty() {
        return Err(KcompError::file(path, "empty file: no data rows"));
    }
    let cols = rows[0].len();
    if cols == 0 {
        return Err(KcompError::file(path, "rows have no values"));
    }
    for (i, r) in rows.iter().enumerate() {
        if r.len() != cols {
            return Err(KcompError::file(
                path,
                format!("row {} has {} values, row 1 has {cols}", i + 1, r.len()),
            ));
        }
    }
    let flat: Vec<f64> = rows.into_iter().flatten().collect();
    let n = flat.len() / cols;
    let all_int = flat
        .iter()
        .all(|v| v.is_finite() && v.fract() == 0.0 && v.abs() < 9e15);
    let values = if all_int {
        Values::Int(flat.iter().map(|&v| v as i64).collect())
    } else {
        Values::Float(flat)
    };
    Ok(Table {
        rows: n,
        cols,
        values,
    })
}

fn read_csv_table(path: &Path) -> Result<Table> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .map_err(|e| KcompError::file(path, e.to_string()))?;
    let mut rows = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| KcompError::file(path, e.to_string()))?;
        let fields: Vec<&str> = rec.iter().collect();
        if fields.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        // A first line is a header only when none of its fields is a number: a typo in the
        // first data row (`1,x`) is an error, not a header that silently drops the row.
        let is_header = i == 0 && fields.iter().all(|f| f.trim().parse::<f64>().is_err());
        if !is_header {
            rows.push(parse_row(path, i + 1, &fields)?);
        }
    }
    finish_rows(path, rows)
}

fn read_jsonl_table(path: &Path) -> Result<Table> {
    let text = crate::io::limits::read_capped(path, u64::MAX).map(String::from_utf8)?;
    let text = text.map_err(|_| KcompError::file(path, "is not UTF-8 text"))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| KcompError::file(path, format!("line {}: invalid JSON ({e})", i + 1)))?;
        let items = match v {
            serde_json::Value::Array(a) => a,
            n @ serde_json::Value::Number(_) => vec![n],
            _ => {
                return Err(KcompError::file(
                    path,
                    format!("line {}: expected an array of numbers", i + 1),
                ));
            }
        };
        let row: Result<Vec<f64>> = items
            .iter()
            .enumerate()
            .map(|(c, x)| {
                x.as_f64().ok_or_else(|| {
                    KcompError::file(
                        path,
                        format!("line {}, item {}: `{x}` is not a number", i + 1, c + 1),
                    )
                })
            })
            .collect();
        rows.push(row?);
    }
    finish_rows(path, rows)
}

/// Reads a table from `.npy`, `.csv` or `.jsonl`/`.ndjson` (by extension).
pub fn read_table(path: &Path) -> Result<Table> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    check_table_file(path, &ext)?;
    let t = match ext.as_str() {
        "npy" => read_npy_table(path)?,
        "csv" => read_csv_table(path)?,
        "jsonl" | "ndjson" => read_jsonl_table(path)?,
        _ => {
            return Err(KcompError::file(
                path,
                "unknown format: use .npy, .csv or .jsonl",
            ));
        }
    };
    check_table(&t, path)?;
    Ok(t)
}

/// Checks a table read from a file or handed over in memory (the Python bindings): at least
/// one row and column, every float finite.
pub fn check_table(t: &Table, path: &Path) -> Result<()> {
    if t.rows == 0 || t.cols == 0 {
        return Err(KcompError::file(path, "empty array: no data rows"));
    }
    if t.cols > MAX_COLUMNS {
        return Err(KcompError::file(
            path,
            format!(
                "{} columns, more than the {MAX_COLUMNS} kcomp reads",
                t.cols
            ),
        ));
    }
    if let Values::Float(v) = &t.values
        && let Some(i) = v.iter().position(|x| !x.is_finite())
    {
        return Err(KcompError::file(
            path,
            format!(
                "row {}, column {} is not finite (missing or infinite values cannot be coded)",
                i / t.cols + 1,
                i % t.cols + 1
            ),
        ));
    }
    Ok(())
}

/// Interprets a table as tokens W (non-negative integers; vocabulary = max + 1).
pub fn tokens_from_table(t: &Table, path: &Path) -> Result<TokenData> {
    let v = match &t.values {
        Values::Int(v) => v,
        Values::Float(_) => {
            return Err(KcompError::file(
                path,
                "W must hold integer tokens, found floating-point values",
            ));
        }
    };
    if let Some(i) = v.iter().position(|&x| x < 0 || x > u32::MAX as i64 / 2) {
        return Err(KcompError::file(
            path,
            format!(
                "row {}, column {}: token {} is not a non-negative integer below 2^31",
                i / t.cols + 1,
                i % t.cols + 1,
                v[i]
            ),
        ));
    }
    let vocab = *v.iter().max().unwrap_or(&0) as usize + 1;
    if vocab > 10_000_000 {
        return Err(KcompError::file(path, "vocabulary larger than 1e7 tokens"));
    }
    TokenData::new(t.rows, t.cols, vocab, v.iter().map(|&x| x as u32).collect())
        .map_err(|e| KcompError::file(path, e.to_string()))
}

/// Interprets a table as targets Z: discrete (integers, no precision) or continuous (floats
/// quantised at `precision`).
pub fn targets_from_table(t: &Table, path: &Path, precision: Option<f64>) -> Result<Targets> {
    match (&t.values, precision) {
        (Values::Int(v), None) => {
            if let Some(i) = v.iter().position(|&x| !(0..=1_000_000).contains(&x)) {
                return Err(KcompError::file(
                    path,
                    format!(
                        "row {}, column {}: attribute value {} is not in 0..=1000000 \
                         (give --precision to treat Z as continuous)",
                        i / t.cols + 1,
                        i % t.cols + 1,
                        v[i]
                    ),
                ));
            }
            let n_vals = (*v.iter().max().unwrap_or(&0) as usize + 1).max(2);
            Targets::discrete(t.cols, n_vals, v.iter().map(|&x| x as u32).collect())
                .map_err(|e| KcompError::file(path, e.to_string()))
        }
        (Values::Float(_), None) => Err(KcompError::file(
            path,
            "Z holds floating-point values: give --precision (grid spacing) to code it",
        )),
        (vals, Some(lam)) => {
            let f: Vec<f64> = match vals {
                Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
                Values::Float(v) => v.clone(),
            };
            Targets::from_floats(t.cols, lam, &f).map_err(|e| KcompError::file(path, e.to_string()))
        }
    }
}

/// Loads W and Z and checks they have the same number of rows.
pub fn load_user_data(
    w_path: &Path,
    z_path: &Path,
    precision: Option<f64>,
) -> Result<(TokenData, Targets)> {
    let wt = read_table(w_path)?;
    let zt = read_table(z_path)?;
    if wt.rows != zt.rows {
        return Err(KcompError::file(
            z_path,
            format!(
                "{} rows, but {} has {} rows",
                zt.rows,
                w_path.display(),
                wt.rows
            ),
        ));
    }
    Ok((
        tokens_from_table(&wt, w_path)?,
        targets_from_table(&zt, z_path, precision)?,
    ))
}
