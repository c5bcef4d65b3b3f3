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

use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;

use ndarray::ArrayD;

use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
use crate::io::w_input::{RaggedIds, WFormat, WInfo, WOptions, ids_of};

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
    // A C-order array is already the row-major vector (no copy); a Fortran-order one is
    // copied in row-major order and then dropped.
    let v: Vec<T> = if a.is_standard_layout() {
        a.into_raw_vec_and_offset().0
    } else {
        a.iter().copied().collect()
    };
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
/// the estimators' work grows with it, and wider tables are refused at once (in a text file
/// at its first row, in a `.npy` file from its header), before the rest is read.
pub const MAX_COLUMNS: usize = 65_536;

/// Bytes of memory per value while a table is loaded and turned into W or Z: the table
/// (8 bytes a value), Z's conversion to floats when a precision is given (8) and the typed
/// copy (W: u32 tokens; Z: u32 values or i64 grid cells, 8). `.npy` files add their own
/// item size (the array as read, before it becomes the table). Checked against the
/// measured peak in `tests/memory_estimates.rs`.
const LOAD_BYTES_PER_VALUE: f64 = 24.0;

/// Shape and item size declared by a `.npy` header, read without reading the data.
fn npy_header(path: &Path, f: &mut File, file_size: u64) -> Result<(Vec<u64>, u64, u64)> {
    let bad = |why: &str| KcompError::file(path, format!("not a valid .npy file: {why}"));
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

/// A table file, opened once and checked before its values are read: a regular file, a
/// `.npy` header whose shape matches the file size and width, and the memory loading takes.
struct TableFile {
    file: File,
    ext: String,
    /// Bytes loading the table and turning it into W or Z takes at most.
    estimate: f64,
    /// Most values the file can hold (a text file's separators + 1; a `.npy` file's shape).
    max_values: u64,
}

fn wide(path: &Path, cols: u64) -> KcompError {
    KcompError::file(
        path,
        format!("{cols} columns, more than the {MAX_COLUMNS} kcomp reads"),
    )
}

impl TableFile {
    fn open(path: &Path) -> Result<TableFile> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        Self::open_as(path, ext)
    }

    /// Opens `path` as a table of format `ext` (npy, csv, jsonl or ndjson).
    fn open_as(path: &Path, ext: String) -> Result<TableFile> {
        if !matches!(ext.as_str(), "npy" | "csv" | "jsonl" | "ndjson") {
            return Err(KcompError::file(
                path,
                "unknown format: use .npy, .csv or .jsonl",
            ));
        }
        let (mut file, size) = crate::io::files::open_regular(path)?;
        let (estimate, max_values) = if ext == "npy" {
            let (shape, item, data_start) = npy_header(path, &mut file, size)?;
            // ndarray needs the product of the non-zero axes (in bytes) to fit an isize: a
            // shape like (2^64-1, 0) holds no values yet cannot be built.
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
            if shape.len() == 2 && shape[1] > MAX_COLUMNS as u64 {
                return Err(wide(path, shape[1]));
            }
            let count = shape.iter().map(|&d| d as f64).product::<f64>();
            let needed = count * item as f64;
            if needed > (size - data_start) as f64 {
                return Err(KcompError::file(
                    path,
                    format!(
                        "the header declares shape {shape:?} ({count:e} values of {item} \
                         bytes) but the file holds only {} data bytes",
                        size - data_start
                    ),
                ));
            }
            // The array as read, then the table and the typed copies.
            (count * (item as f64 + LOAD_BYTES_PER_VALUE), count as u64)
        } else {
            // Every value but the last ends at a separator: counting them is one fast pass
            // and bounds the table closely enough (a value takes at least 2 bytes of text).
            let count = count_separators(path, &mut file)? + 1;
            (count as f64 * LOAD_BYTES_PER_VALUE, count)
        };
        file.rewind().map_err(|e| KcompError::io(path, e))?;
        Ok(TableFile {
            file,
            ext,
            estimate,
            max_values,
        })
    }

    fn read(self, path: &Path) -> Result<Table> {
        let t = match self.ext.as_str() {
            "npy" => read_npy_table(path, self.file)?,
            "csv" => read_csv_table(path, self.file, self.max_values, false)?.rectangular()?,
            _ => read_jsonl_table(path, self.file, self.max_values, false)?.rectangular()?,
        };
        check_table(&t, path)?;
        Ok(t)
    }

    /// Reads W's integer ids: a text table's rows may differ in length.
    fn read_ids(self, path: &Path) -> Result<RaggedIds> {
        let rows = match self.ext.as_str() {
            "npy" => {
                let t = read_npy_table(path, self.file)?;
                check_table(&t, path)?;
                return Ok(RaggedIds::rectangular(
                    t.rows,
                    t.cols,
                    ids_of(t.values, path)?,
                ));
            }
            "csv" => read_csv_table(path, self.file, self.max_values, true)?,
            _ => read_jsonl_table(path, self.file, self.max_values, true)?,
        };
        let values = ids_of(rows.values, path)?;
        Ok(RaggedIds {
            offsets: rows.offsets,
            values,
        })
    }
}

/// Reads W's integer ids from a `.npy`, `.csv` or `.jsonl` file (`format`), after checking the
/// memory loading takes; rows of a text table may differ in length.
pub fn read_w_ids(path: &Path, format: WFormat) -> Result<RaggedIds> {
    let ext = match format {
        WFormat::Npy => "npy",
        WFormat::Csv => "csv",
        _ => "jsonl",
    };
    let f = TableFile::open_as(path, ext.to_string())?;
    check_load_memory(&[(path, f.estimate)])?;
    f.read_ids(path)
}

/// Commas and line ends (`\n` and `\r`, which the CSV reader also takes as one) in a text
/// file, read in blocks, nothing kept.
fn count_separators(path: &Path, file: &mut File) -> Result<u64> {
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(n),
            Ok(k) => {
                n += buf[..k]
                    .iter()
                    .filter(|&&b| matches!(b, b',' | b'\n' | b'\r'))
                    .count() as u64
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(KcompError::io(path, e)),
        }
    }
}

fn read_npy_table(path: &Path, mut file: File) -> Result<Table> {
    use ndarray_npy::ReadNpyExt;
    // One attempt per element type; a dtype mismatch is found in the header, before any
    // value is read, so a failed attempt allocates nothing.
    macro_rules! attempt {
        ($t:ty) => {{
            file.rewind().map_err(|e| KcompError::io(path, e))?;
            ArrayD::<$t>::read_npy(std::io::BufReader::new(&file))
        }};
    }
    macro_rules! try_type {
        ($t:ty) => {
            if let Ok(a) = attempt!($t) {
                return from_array(path, a);
            }
        };
    }
    try_type!(i64);
    try_type!(i32);
    try_type!(u8);
    try_type!(i16);
    try_type!(i8);
    try_type!(u16);
    try_type!(u32);
    // uint64 above i64::MAX has no exact i64: refused, never clamped.
    if let Ok(a) = attempt!(u64) {
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
    try_type!(f64);
    try_type!(f32);
    // Report the real reason with the most common type.
    match attempt!(i64) {
        Err(e) => Err(KcompError::file(
            path,
            format!("not a readable .npy array of integers or floats ({e})"),
        )),
        Ok(_) => unreachable!(),
    }
}

/// Parses one field of a text table.
fn number(path: &Path, line_no: u64, col: usize, field: &[u8]) -> Result<f64> {
    let text = String::from_utf8_lossy(field);
    text.trim().parse::<f64>().map_err(|_| {
        KcompError::file(
            path,
            format!(
                "line {line_no}, column {}: `{}` is not a number",
                col + 1,
                crate::io::names::terminal(text.trim())
            ),
        )
    })
}

/// Collects the values of a text table row by row into one flat vector (never a vector per
/// row: their headers and allocator slack took more memory than the values).
struct Rows<'a> {
    path: &'a Path,
    values: Vec<f64>,
    cols: usize,
    rows: usize,
    max_values: u64,
    /// Rows may differ in length (W's ids); `offsets` then bound each row.
    ragged: bool,
    offsets: Vec<usize>,
}

/// A text table's values row by row: row `r` is `values[offsets[r]..offsets[r + 1]]`.
struct TextRows<'a> {
    path: &'a Path,
    offsets: Vec<usize>,
    values: Values,
}

impl TextRows<'_> {
    /// The rows as a rectangular table (read with `ragged` false, so they are).
    fn rectangular(self) -> Result<Table> {
        let rows = self.offsets.len() - 1;
        let cols = self.offsets.get(1).copied().unwrap_or(0);
        if rows == 0 {
            return Err(KcompError::file(self.path, "empty file: no data rows"));
        }
        Ok(Table {
            rows,
            cols,
            values: self.values,
        })
    }
}

impl<'a> Rows<'a> {
    fn new(path: &'a Path, max_values: u64, ragged: bool) -> Self {
        Rows {
            ragged,
            offsets: vec![0],
            path,
            // The counted bound is exact enough to reserve: no reallocation copies, and pages
            // never written are never resident.
            values: Vec::with_capacity(max_values.min(isize::MAX as u64 / 8) as usize),
            cols: 0,
            rows: 0,
            max_values,
        }
    }

    /// Adds one row of `n` values from `values`.
    fn push(&mut self, n: usize, values: impl Iterator<Item = Result<f64>>) -> Result<()> {
        if n > MAX_COLUMNS {
            return Err(wide(self.path, n as u64));
        }
        if self.rows == 0 && !self.ragged {
            if n == 0 {
                return Err(KcompError::file(self.path, "rows have no values"));
            }
            self.cols = n;
        } else if n != self.cols && !self.ragged {
            return Err(KcompError::file(
                self.path,
                format!(
                    "row {} has {n} values, row 1 has {} (rows of different lengths are read                      for W only, where kcomp pads them)",
                    self.rows + 1,
                    self.cols
                ),
            ));
        }
        if (self.values.len() + n) as u64 > self.max_values {
            return Err(KcompError::file(self.path, "grew while it was read"));
        }
        for v in values {
            self.values.push(v?);
        }
        self.rows += 1;
        self.offsets.push(self.values.len());
        Ok(())
    }

    fn finish(self) -> Result<TextRows<'a>> {
        if self.rows == 0 {
            return Err(KcompError::file(self.path, "empty file: no data rows"));
        }
        let mut flat = self.values;
        flat.shrink_to_fit();
        let all_int = flat
            .iter()
            .all(|v| v.is_finite() && v.fract() == 0.0 && v.abs() < 9e15);
        let values = if all_int {
            // Same size and alignment: collected in place, no second vector.
            Values::Int(flat.into_iter().map(|v| v as i64).collect())
        } else {
            Values::Float(flat)
        };
        Ok(TextRows {
            path: self.path,
            offsets: self.offsets,
            values,
        })
    }
}

fn read_csv_table<'a>(
    path: &'a Path,
    file: File,
    max_values: u64,
    ragged: bool,
) -> Result<TextRows<'a>> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(file);
    let mut rows = Rows::new(path, max_values, ragged);
    let mut rec = csv::ByteRecord::new();
    let mut i = 0u64;
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(KcompError::file(path, e.to_string())),
        }
        i += 1;
        if rec.iter().all(|f| f.trim_ascii().is_empty()) {
            continue;
        }
        // A first line is a header only when none of its fields is a number: a typo in the
        // first data row (`1,x`) is an error, not a header that silently drops the row.
        let is_header = i == 1
            && rec
                .iter()
                .all(|f| String::from_utf8_lossy(f).trim().parse::<f64>().is_err());
        if !is_header {
            rows.push(
                rec.len(),
                rec.iter().enumerate().map(|(c, f)| number(path, i, c, f)),
            )?;
        }
    }
    rows.finish()
}

fn read_jsonl_table<'a>(
    path: &'a Path,
    file: File,
    max_values: u64,
    ragged: bool,
) -> Result<TextRows<'a>> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(file);
    let mut rows = Rows::new(path, max_values, ragged);
    let mut line = String::new();
    let mut i = 0u64;
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(KcompError::file(path, "is not UTF-8 text"));
            }
            Err(e) => return Err(KcompError::io(path, e)),
        }
        i += 1;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| KcompError::file(path, format!("line {i}: invalid JSON ({e})")))?;
        let items = match v {
            serde_json::Value::Array(a) => a,
            n @ serde_json::Value::Number(_) => vec![n],
            _ => {
                return Err(KcompError::file(
                    path,
                    format!("line {i}: expected an array of numbers"),
                ));
            }
        };
        rows.push(
            items.len(),
            items.iter().enumerate().map(|(c, x)| {
                x.as_f64().ok_or_else(|| {
                    KcompError::file(
                        path,
                        format!("line {i}, item {}: `{x}` is not a number", c + 1),
                    )
                })
            }),
        )?;
    }
    rows.finish()
}

/// Reads a table from `.npy`, `.csv` or `.jsonl`/`.ndjson` (by extension), after checking
/// the memory loading it takes.
pub fn read_table(path: &Path) -> Result<Table> {
    let f = TableFile::open(path)?;
    check_load_memory(&[(path, f.estimate)])?;
    f.read(path)
}

/// Refuses files whose loading together needs more than the memory limit.
fn check_load_memory(files: &[(&Path, f64)]) -> Result<()> {
    let total: f64 = files.iter().map(|f| f.1).sum();
    let largest = files.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let what = match files.len() {
        1 => "its values",
        _ => "loading W and Z",
    };
    match (crate::io::limits::over_limit(what, total), largest) {
        (Some(reason), Some((path, _))) => Err(KcompError::file(path, reason)),
        _ => Ok(()),
    }
}

/// Bytes loading W and Z from these files takes at most (what [`load_user_data`] checks
/// against the memory limit).
pub fn load_estimate(w_path: &Path, z_path: &Path) -> Result<f64> {
    Ok(TableFile::open(w_path)?.estimate + TableFile::open(z_path)?.estimate)
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

/// Interprets a table as tokens W: non-negative integer ids, remapped to dense ids, `pad`
/// the user's padding token if any (see [`crate::io::w_input`]).
pub fn tokens_from_table(t: &Table, path: &Path, pad: Option<i64>) -> Result<(TokenData, WInfo)> {
    let ids = ids_of(t.values.clone(), path)?;
    crate::io::w_input::dense_tokens(
        path,
        RaggedIds::rectangular(t.rows, t.cols, ids),
        None,
        pad,
        WFormat::Npy,
    )
}

/// Each attribute's (column's) labels renumbered to dense ids `0..k` in increasing order of
/// the labels, as W's token ids are ([`crate::io::w_input`]): the codes of discrete Z see which
/// rows share a value, never the labels' magnitudes, so labels {0, 10^6} cost what {0, 1} cost
/// and the tables learners allocate per value do not grow with them. K(Z) and K(Z|W) are then
/// codes of Z up to the naming of each attribute's values: the label sets are not charged (one
/// constant, the same for both, that a decoder given the names would not need and that C
/// should not see). Returns the largest number of labels of an attribute and the ids,
/// row-major. Memory: one sorted copy of a column at a time.
pub fn dense_attribute_ids(values: &[i64], cols: usize) -> (usize, Vec<u32>) {
    let mut dense = vec![0u32; values.len()];
    let mut most = 0;
    if cols == 0 {
        return (0, dense);
    }
    for c in 0..cols {
        let mut labels: Vec<i64> = values.iter().skip(c).step_by(cols).copied().collect();
        labels.sort_unstable();
        labels.dedup();
        most = most.max(labels.len());
        for (i, v) in values.iter().enumerate().skip(c).step_by(cols) {
            // Every value of the column is among its labels.
            dense[i] = labels.binary_search(v).unwrap_or(0) as u32;
        }
    }
    (most, dense)
}

/// Interprets a table as targets Z: discrete (integers, no precision; each attribute's labels
/// renumbered to dense ids, [`dense_attribute_ids`]) or continuous (floats quantised at
/// `precision`).
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
            let (n_vals, dense) = dense_attribute_ids(v, t.cols);
            Targets::discrete(t.cols, n_vals.max(2), dense)
                .map_err(|e| KcompError::file(path, e.to_string()))
        }
        (Values::Float(_), None) => Err(KcompError::file(
            path,
            "Z holds floating-point values: give --precision (grid spacing) to code it",
        )),
        (vals, Some(lam)) => {
            // Float values are coded where they are (no copy); integers are converted.
            let converted: Vec<f64>;
            let f: &[f64] = match vals {
                Values::Int(v) => {
                    converted = v.iter().map(|&x| x as f64).collect();
                    &converted
                }
                Values::Float(v) => v,
            };
            Targets::from_floats(t.cols, lam, f).map_err(|e| KcompError::file(path, e.to_string()))
        }
    }
}

/// Loads W and Z and checks they have the same number of rows (W read with the default
/// options: its format from the extension).
pub fn load_user_data(
    w_path: &Path,
    z_path: &Path,
    precision: Option<f64>,
) -> Result<(TokenData, Targets)> {
    load_w_and_z(w_path, &WOptions::default(), z_path, precision).map(|(w, z, _)| (w, z))
}

/// Loads W (read with `options`: integer tables, ragged rows, sentences) and Z, checks they
/// have the same number of rows, and says how W was read.
pub fn load_w_and_z(
    w_path: &Path,
    options: &WOptions,
    z_path: &Path,
    precision: Option<f64>,
) -> Result<(TokenData, Targets, WInfo)> {
    let format = options.format.resolve(w_path)?;
    // An integer W and Z are opened and measured first: W's table and tokens are still held
    // while Z is read, so their estimates are checked together. Sentences are measured by
    // their reader.
    let zf = TableFile::open(z_path)?;
    if format != WFormat::Text {
        let ext = match format {
            WFormat::Npy => "npy",
            WFormat::Csv => "csv",
            _ => "jsonl",
        };
        let wf = TableFile::open_as(w_path, ext.to_string())?;
        check_load_memory(&[(w_path, wf.estimate), (z_path, zf.estimate)])?;
    } else {
        check_load_memory(&[(z_path, zf.estimate)])?;
    }
    let (w, info) = crate::io::w_input::read_w(w_path, options)?;
    let zt = zf.read(z_path)?;
    if w.n != zt.rows {
        return Err(KcompError::file(
            z_path,
            format!(
                "{} rows, but {} has {} rows",
                zt.rows,
                w_path.display(),
                w.n
            ),
        ));
    }
    Ok((w, targets_from_table(&zt, z_path, precision)?, info))
}
