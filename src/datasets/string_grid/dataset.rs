//! String-to-grid records as [`Dataset`]s, with the generator's exact K(Z|W).
//!
//! W is N x k tokens: position i's letter as its alphabet index (`'A'` = 0, so position i uses
//! tokens u*i .. u*i + u - 1, vocabulary k*u). Z is N x side^2 binary cells ('*' = 1), row-major.
//! K(Z) is uniform over the cells, N x side^2 bits ([`KzMethod::Uniform`]).
//!
//! # Exact K(Z|W)
//! Given the shape (k, u, side, d), the setting and h (all in the provenance), the generator's
//! program is its layout, its patterns and its holistic exceptions; Z follows from W and the
//! program. Each part is a uniform choice among what the generator can produce, in bits:
//! - `layout` = log2 L, L the number of distinct assignments of cells to positions:
//!   h, v, b: L = 1; r: L = cells! / (c!)^k (the shuffled cells dealt in chunks of
//!   c = cells/k); h-index-shuffle: L = k! - 1 (any non-identity permutation of the rows);
//!   hr: the layouts in which at least two positions own their row and the other positions
//!   share the remaining rows' cells, L = sum_{j=2..k} C(k, j) D_{k-j} with
//!   D_r = sum_{l=0..r} (-1)^l C(r, l) (c(r-l))! / (c!)^(r-l) (deals of r rows' cells to r
//!   positions in which no position gets its own row), 415 on the published 4 x 4 grid (not
//!   6 x 70 = 420: the deal can recreate a chosen-row layout).
//! - `patterns` = k c bits with complementary letters (one pattern per position, the second
//!   letter its complement), k u c bits otherwise (one pattern per letter).
//! - holistic inputs: with H = round(h u^k) of the u^k inputs holistic and E of them among the
//!   N observed rows, `exception_count` = log2(hi - lo + 1) for E in [lo, hi] =
//!   [max(0, H + N - u^k), min(N, H)] (0 bits when h = 0 or d = u^k), `exception_inputs` =
//!   log2 C(N, E) (which observed inputs) and `exception_grids` = E side^2 (their cells).
//!
//! When every input is holistic (H = u^k, e.g. [`Setting::Holistic`]) the program is only
//! `exception_grids` = N side^2 bits: no layout, no patterns, K(Z|W) = K(Z).
//!
//! On the published shape (k = 4, u = 2, 4 x 4, complementary): h, v, b 16 bits;
//! r 16 + log2 63,063,000 = 41.91; hr 16 + log2 415 = 24.70; h-index-shuffle 16 + log2 23 =
//! 20.52.

use serde::Serialize;
use std::collections::BTreeMap;

use super::{GeneratedRecord, GridProgram, GridSpec, Holistic, Record, Setting, read_dataset};
use crate::dataset::{Dataset, ExactTerms, KzMethod, KzReference, Provenance, Targets, TokenData};
use crate::error::{KcompError, Result};
use std::path::Path;

fn ln_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

fn binomial_f64(n: usize, k: usize) -> f64 {
    (ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k))
        .exp()
        .round()
}

/// (q c)! / (c!)^q: deals of q groups of c cells to q labelled positions.
fn deals(q: usize, c: usize) -> f64 {
    (ln_factorial(q * c) - q as f64 * ln_factorial(c)).exp()
}

/// log2 of the number of distinct layouts `setting` can produce on `spec`'s shape.
pub fn layout_bits(spec: &GridSpec, setting: Setting) -> f64 {
    let k = spec.positions;
    let cells = spec.side * spec.side;
    let c = cells / k.max(1);
    match setting {
        Setting::Horizontal | Setting::Vertical | Setting::Block | Setting::Holistic => 0.0,
        Setting::Random => (ln_factorial(cells) - k as f64 * ln_factorial(c)) / 2f64.ln(),
        Setting::HorizontalIndexShuffle => {
            if k > 1 {
                (ln_factorial(k).exp().round() - 1.0).log2()
            } else {
                0.0
            }
        }
        Setting::HorizontalRandom => {
            if k < 2 {
                return 0.0;
            }
            let derangements = |r: usize| -> f64 {
                (0..=r)
                    .map(|l| {
                        let sign = if l % 2 == 0 { 1.0 } else { -1.0 };
                        sign * binomial_f64(r, l) * deals(r - l, c)
                    })
                    .sum()
            };
            let total: f64 = (2..=k)
                .map(|j| binomial_f64(k, j) * derangements(k - j).round())
                .sum();
            total.log2()
        }
    }
}

/// Bits of the letters' patterns.
pub fn pattern_bits(spec: &GridSpec) -> f64 {
    let c = (spec.side * spec.side / spec.positions.max(1)) as f64;
    if spec.complementary {
        spec.positions as f64 * c
    } else {
        (spec.positions * spec.letters) as f64 * c
    }
}

/// The generator's K(Z|W) for `n_rows` observed rows of which `n_exceptions` are holistic
/// (see the module docs), with K(Z) = n_rows x cells.
pub fn exact_terms(
    spec: &GridSpec,
    setting: Setting,
    holistic_fraction: f64,
    n_rows: usize,
    n_exceptions: usize,
) -> Result<ExactTerms> {
    let cells = (spec.side * spec.side) as f64;
    let total = spec.letters.pow(spec.positions as u32);
    let holistic = Holistic {
        fraction: holistic_fraction,
        seed: 0,
    };
    holistic.validate()?;
    let h = holistic.count(setting, total);
    if n_rows > total || n_exceptions > n_rows.min(h) {
        return Err(KcompError::param(
            "exceptions",
            format!("{n_exceptions} holistic rows among {n_rows} with {h} holistic inputs"),
        ));
    }
    let mut parts = BTreeMap::new();
    if h == total {
        parts.insert("exception_grids".to_string(), n_rows as f64 * cells);
    } else {
        let lo = (h + n_rows).saturating_sub(total);
        let hi = n_rows.min(h);
        parts.insert("layout".to_string(), layout_bits(spec, setting));
        parts.insert("patterns".to_string(), pattern_bits(spec));
        parts.insert("exception_count".to_string(), ((hi - lo + 1) as f64).log2());
        parts.insert(
            "exception_inputs".to_string(),
            crate::coding::bits::log2_binomial(n_rows, n_exceptions),
        );
        parts.insert("exception_grids".to_string(), n_exceptions as f64 * cells);
    }
    Ok(ExactTerms {
        k_z_given_w_bits: parts.values().sum(),
        k_z_bits: n_rows as f64 * cells,
        parts,
    })
}

/// Where a record came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridSource {
    pub setting: Setting,
    /// Seed of the Python stream (the published files: 0).
    pub seed: i64,
    /// Index of the record in its file (0-based).
    pub record: usize,
    pub holistic: Holistic,
}

#[derive(Serialize)]
struct Params {
    setting: &'static str,
    positions: usize,
    letters: usize,
    side: usize,
    samples: usize,
    complementary: bool,
    record: usize,
    holistic_fraction: f64,
    holistic_seed: u64,
}

/// Letter indices of every position of one input ("A C E G").
fn parse_input(spec: &GridSpec, text: &str, row: usize) -> Result<Vec<usize>> {
    let bad = |why: String| KcompError::param("record", format!("input {}: {why}", row + 1));
    let letters: Vec<&str> = text.split_whitespace().collect();
    if letters.len() != spec.positions {
        return Err(bad(format!(
            "`{text}` has {} letters, expected {}",
            letters.len(),
            spec.positions
        )));
    }
    letters
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let b = l.as_bytes();
            let first = (spec.letters * i) as i64;
            let v = if b.len() == 1 {
                b[0] as i64 - 65 - first
            } else {
                -1
            };
            if (0..spec.letters as i64).contains(&v) {
                Ok(v as usize)
            } else {
                Err(bad(format!("`{l}` is not a letter of position {}", i + 1)))
            }
        })
        .collect()
}

fn parse_grid(spec: &GridSpec, text: &str, row: usize) -> Result<Vec<u32>> {
    let bad = |why: &str| KcompError::param("record", format!("output {}: {why}", row + 1));
    let rows: Vec<&str> = text.split('\n').collect();
    if rows.len() != spec.side || rows.iter().any(|r| r.len() != spec.side) {
        return Err(bad(&format!("expected {0} rows of {0} cells", spec.side)));
    }
    rows.iter()
        .flat_map(|r| r.bytes())
        .map(|b| match b {
            b'*' => Ok(1),
            b'.' => Ok(0),
            _ => Err(bad("cells must be '.' or '*'")),
        })
        .collect()
}

/// The record as a dataset. With the generator's `program` the exact terms count its holistic
/// rows (and the program must reproduce every row); without it they are known only when no
/// input or every input is holistic.
pub fn record_to_dataset(
    record: &Record,
    spec: &GridSpec,
    source: &GridSource,
    program: Option<&GridProgram>,
) -> Result<Dataset> {
    spec.validate(source.setting)?;
    let (k, u) = (spec.positions, spec.letters);
    let cells = spec.side * spec.side;
    let n = record.input.len();
    if n == 0 || record.output.len() != n {
        return Err(KcompError::param(
            "record",
            "needs as many outputs as inputs, at least one",
        ));
    }
    let mut tokens = Vec::with_capacity(n * k);
    let mut values = Vec::with_capacity(n * cells);
    let mut n_exceptions = 0;
    for (r, (inp, out)) in record.input.iter().zip(&record.output).enumerate() {
        let vals = parse_input(spec, inp, r)?;
        let grid = parse_grid(spec, out, r)?;
        tokens.extend(vals.iter().enumerate().map(|(i, &v)| (u * i + v) as u32));
        if let Some(prog) = program {
            let idx = vals.iter().fold(0usize, |acc, &v| acc * u + v);
            let expected: Vec<u32> = prog
                .grid(&vals, idx, cells)
                .into_iter()
                .map(u32::from)
                .collect();
            if expected != grid {
                return Err(KcompError::param(
                    "program",
                    format!("does not reproduce row {} (`{inp}`)", r + 1),
                ));
            }
            n_exceptions += usize::from(prog.holistic.contains_key(&idx));
        }
        values.extend(grid);
    }
    let w = TokenData::new(n, k, k * u, tokens)?;
    let z = Targets::discrete(cells, 2, values)?;
    let total = u.pow(k as u32);
    let h = source.holistic.count(source.setting, total);
    let exact = if program.is_some() {
        Some(exact_terms(
            spec,
            source.setting,
            source.holistic.fraction,
            n,
            n_exceptions,
        )?)
    } else if h == 0 || h == total {
        Some(exact_terms(
            spec,
            source.setting,
            source.holistic.fraction,
            n,
            if h == 0 { 0 } else { n },
        )?)
    } else {
        None
    };
    let params = Params {
        setting: source.setting.name(),
        positions: k,
        letters: u,
        side: spec.side,
        samples: spec.samples,
        complementary: spec.complementary,
        record: source.record,
        holistic_fraction: source.holistic.fraction,
        holistic_seed: source.holistic.seed,
    };
    let k_z = KzReference {
        bits: (n * cells) as f64,
        method: KzMethod::Uniform,
    };
    Dataset::new(
        w,
        z,
        Provenance::generated("grid", &params, source.seed as u64),
        k_z,
        exact,
    )
}

impl GeneratedRecord {
    /// This record as a dataset, with exact terms from its program.
    pub fn to_dataset(&self, spec: &GridSpec, source: &GridSource) -> Result<Dataset> {
        record_to_dataset(&self.record, spec, source, Some(&self.program))
    }
}

/// Record `index` of a string-to-grid file as a dataset. The layout setting comes from
/// `setting` or from the published file name (`..._type=<setting>.jsonl`); the shape (positions,
/// letters, side) is read off the records; two letters are taken as complementary patterns, as
/// published. Every input and grid is parsed and the shape validated: `compare --grid` and
/// `grid score` refuse the same malformed records with this one function.
pub fn record_dataset(path: &Path, index: usize, setting: Option<&str>) -> Result<Dataset> {
    let records = read_dataset(path)?;
    let record = records.get(index).ok_or_else(|| {
        KcompError::file(
            path,
            format!("--record {index}: the file has {} records", records.len()),
        )
    })?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let tag = match setting {
        Some(s) => s.to_string(),
        None => name
            .rsplit_once("type=")
            .map(|(_, t)| t.trim_end_matches(".jsonl").to_string())
            .ok_or_else(|| {
                KcompError::file(
                    path,
                    "give --setting (the file name has no `type=<setting>`)",
                )
            })?,
    };
    let setting = Setting::parse(&tag)?;
    let positions = record
        .input
        .first()
        .map_or(0, |i| i.split_whitespace().count());
    let side = record.output.first().map_or(0, |o| o.lines().count());
    let mut letters: Vec<char> = records
        .iter()
        .flat_map(|r| {
            r.input
                .iter()
                .flat_map(|i| i.chars().filter(|c| !c.is_whitespace()))
        })
        .collect();
    letters.sort_unstable();
    letters.dedup();
    if positions == 0 || !letters.len().is_multiple_of(positions) {
        return Err(KcompError::file(
            path,
            "cannot read the input shape off the records",
        ));
    }
    let per_position = letters.len() / positions;
    let spec = GridSpec {
        positions,
        letters: per_position,
        side,
        samples: record.input.len(),
        complementary: per_position == 2,
    };
    let source = GridSource {
        setting,
        seed: 0,
        record: index,
        holistic: Holistic::NONE,
    };
    let mut data = record_to_dataset(record, &spec, &source, None)?;
    data.provenance.files = vec![path.display().to_string()];
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }

    #[test]
    fn published_shape_closed_forms() {
        let spec = GridSpec::default();
        let k = |s| exact_terms(&spec, s, 0.0, 16, 0).unwrap().k_z_given_w_bits;
        close(k(Setting::Horizontal), 16.0);
        close(k(Setting::Vertical), 16.0);
        close(k(Setting::Block), 16.0);
        close(k(Setting::Random), 16.0 + 63_063_000f64.log2());
        close(k(Setting::HorizontalRandom), 16.0 + 415f64.log2());
        close(k(Setting::HorizontalIndexShuffle), 16.0 + 23f64.log2());
        let t = exact_terms(&spec, Setting::Holistic, 0.0, 16, 16).unwrap();
        close(t.k_z_given_w_bits, 256.0);
        close(t.k_z_bits, 256.0);
    }

    #[test]
    fn holistic_parts() {
        let spec = GridSpec::default();
        // h = 0.25: 4 of the 16 inputs, all observed (d = 16): count implied, C(16, 4) inputs
        let t = exact_terms(&spec, Setting::Horizontal, 0.25, 16, 4).unwrap();
        close(t.parts["exception_count"], 0.0);
        close(t.parts["exception_inputs"], 1820f64.log2());
        close(t.parts["exception_grids"], 64.0);
        close(t.k_z_given_w_bits, 16.0 + 1820f64.log2() + 64.0);
        // h = 1 on a compositional setting is the holistic program
        let t = exact_terms(&spec, Setting::Random, 1.0, 16, 16).unwrap();
        assert_eq!(t.parts.len(), 1);
        close(t.k_z_given_w_bits, 256.0);
        // 8 of 16 observed with 4 holistic inputs: E in [0, 4], 5 values
        let s8 = GridSpec {
            samples: 8,
            ..GridSpec::default()
        };
        let t = exact_terms(&s8, Setting::Horizontal, 0.25, 8, 1).unwrap();
        close(t.parts["exception_count"], 5f64.log2());
        close(t.parts["exception_inputs"], 3.0);
        assert!(exact_terms(&spec, Setting::Horizontal, 1.5, 16, 0).is_err());
        assert!(exact_terms(&spec, Setting::Horizontal, 0.25, 16, 5).is_err());
    }

    #[test]
    fn bad_records_name_the_row() {
        let spec = GridSpec::default();
        let src = GridSource {
            setting: Setting::Horizontal,
            seed: 0,
            record: 0,
            holistic: Holistic::NONE,
        };
        let rec = Record {
            input: vec!["A C E X".into()],
            output: vec!["....\n....\n....\n....".into()],
        };
        let err = record_to_dataset(&rec, &spec, &src, None).unwrap_err();
        assert!(err.to_string().contains("input 1"), "{err}");
        let rec = Record {
            input: vec!["A C E G".into()],
            output: vec!["....\n....\n....".into()],
        };
        let err = record_to_dataset(&rec, &spec, &src, None).unwrap_err();
        assert!(err.to_string().contains("output 1"), "{err}");
    }
}
