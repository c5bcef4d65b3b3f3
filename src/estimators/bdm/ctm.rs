//! CTM tables: the algorithmic-probability estimates of short strings and small binary
//! matrices that BDM adds up. They come from the R package acss.data (Soler-Toscano, Zenil,
//! Delahaye, Gauvrit; GPL-2) as repackaged by pybdm (MIT), and are **not** shipped with kcomp:
//! kcomp reads them from a pybdm installation the user points to (`--ctm DIR`, `[bdm]
//! ctm_dir`, or the `KCOMP_PYBDM_CTM` environment variable: the pybdm package folder, its
//! `ctmdata` folder, or a site-packages folder holding `pybdm`).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{KcompError, Result};
use crate::io::pickle::{self, Value};

/// The environment variable naming a pybdm installation.
pub const CTM_ENV: &str = "KCOMP_PYBDM_CTM";

/// Largest decompressed CTM file read (pybdm's largest, ctm-b9-d12, is 95 MB).
const MAX_PICKLE_BYTES: u64 = 512 << 20;

/// CTM values of one block shape, keyed by [`key_of`] of the normalised block.
#[derive(Debug, Clone, Default)]
pub struct ShapeTable {
    pub values: HashMap<u64, f64>,
    /// pybdm's value for a block absent from the table: the shape's largest value + 1.
    pub missing: f64,
}

/// One CTM dataset (e.g. `CTM-B2-D12`: binary strings of length 1 to 12).
#[derive(Debug, Clone)]
pub struct CtmTable {
    pub name: String,
    pub nsymbols: usize,
    pub ndim: usize,
    /// pybdm's default block side for this dataset (12 for strings, 4 for matrices).
    pub block: usize,
    pub shapes: BTreeMap<Vec<usize>, ShapeTable>,
}

/// The dataset name and file of pybdm for `ndim` dimensions and `nsymbols` symbols.
pub fn dataset_for(ndim: usize, nsymbols: usize) -> Option<(&'static str, &'static str, usize)> {
    match (ndim, nsymbols) {
        (1, 2) => Some(("CTM-B2-D12", "ctm-b2-d12.pkl.gz", 12)),
        (1, 4) => Some(("CTM-B4-D12", "ctm-b4-d12.pkl.gz", 12)),
        (1, 5) => Some(("CTM-B5-D12", "ctm-b5-d12.pkl.gz", 12)),
        (1, 6) => Some(("CTM-B6-D12", "ctm-b6-d12.pkl.gz", 12)),
        (1, 9) => Some(("CTM-B9-D12", "ctm-b9-d12.pkl.gz", 12)),
        (2, 2) => Some(("CTM-B2-D4x4", "ctm-b2-d4x4.pkl.gz", 4)),
        _ => None,
    }
}

/// The smallest alphabet with a 1-D table that holds `symbols` symbols.
pub fn alphabet_for(symbols: usize) -> Option<usize> {
    [2, 4, 5, 6, 9].into_iter().find(|&b| b >= symbols)
}

/// A normalised block (symbols relabelled 0, 1, ... by first occurrence) as the decimal
/// number of its digits: unique within one shape (at most 16 digits).
pub fn key_of(normalised: &[u8]) -> u64 {
    normalised
        .iter()
        .fold(0u64, |k, &d| k.wrapping_mul(10).wrapping_add(d as u64))
}

/// Relabels symbols by first occurrence (pybdm's `normalize_key`): `1 0 1 2` -> `0 1 0 2`.
pub fn normalise(block: &[u8]) -> Vec<u8> {
    let mut map = [u8::MAX; 256];
    let mut next = 0u8;
    block
        .iter()
        .map(|&s| {
            if map[s as usize] == u8::MAX {
                map[s as usize] = next;
                next += 1;
            }
            map[s as usize]
        })
        .collect()
}

fn digits(key: &str) -> Option<Vec<u8>> {
    key.bytes()
        .map(|c| c.is_ascii_digit().then(|| c - b'0'))
        .collect()
}

impl CtmTable {
    /// The CTM value of a block of `shape` whose normalised symbols are `normalised`:
    /// `Some((value, found))`, the missing-string value when the table lacks it, `None` when
    /// the table has no block of this shape at all.
    pub fn lookup(&self, shape: &[usize], normalised: &[u8]) -> Option<(f64, bool)> {
        let t = self.shapes.get(shape)?;
        Some(match t.values.get(&key_of(normalised)) {
            Some(&v) => (v, true),
            None => (t.missing, false),
        })
    }

    /// Builds a table from pybdm's unpickled dict `{shape tuple: {key string: value}}`.
    pub fn from_value(
        name: &str,
        nsymbols: usize,
        ndim: usize,
        block: usize,
        v: Value,
    ) -> Result<Self> {
        let bad = |m: String| KcompError::Other(format!("CTM table {name}: {m}"));
        let Value::Dict(items) = v else {
            return Err(bad("not a dict of shapes".into()));
        };
        let mut shapes = BTreeMap::new();
        for (k, v) in items {
            let Value::Tuple(dims) = k else {
                return Err(bad("a shape is not a tuple".into()));
            };
            let shape: Vec<usize> = dims
                .iter()
                .map(|d| match d {
                    Value::Int(i) if (1..=64).contains(i) => Ok(*i as usize),
                    _ => Err(bad(
                        "a shape holds something other than a small integer".into()
                    )),
                })
                .collect::<Result<_>>()?;
            let Value::Dict(entries) = v else {
                return Err(bad(format!("shape {shape:?} holds no dict")));
            };
            let mut t = ShapeTable {
                values: HashMap::with_capacity(entries.len()),
                missing: f64::NEG_INFINITY,
            };
            for (k, v) in entries {
                let (Value::Str(key), Value::Float(x)) = (k, v) else {
                    return Err(bad(format!(
                        "shape {shape:?}: an entry is not (string, float)"
                    )));
                };
                let d = digits(&key)
                    .filter(|d| d.len() == shape.iter().product::<usize>() && d.len() <= 16)
                    .ok_or_else(|| bad(format!("key {key:?} does not fit shape {shape:?}")))?;
                if !x.is_finite() {
                    return Err(bad(format!("key {key:?} has a non-finite value")));
                }
                t.missing = t.missing.max(x + 1.0);
                t.values.insert(key_of(&d), x);
            }
            if t.values.is_empty() {
                continue;
            }
            shapes.insert(shape, t);
        }
        if shapes.is_empty() {
            return Err(bad("no values".into()));
        }
        Ok(CtmTable {
            name: name.into(),
            nsymbols,
            ndim,
            block,
            shapes,
        })
    }

    /// Reads pybdm's gzipped pickle for (`ndim`, `nsymbols`) from the folder `ctm_dir`.
    pub fn from_pybdm(ctm_dir: &Path, ndim: usize, nsymbols: usize) -> Result<Self> {
        let (name, file, block) = dataset_for(ndim, nsymbols).ok_or_else(|| {
            KcompError::param(
                "bdm",
                format!(
                    "pybdm has no CTM table for {ndim}-D data over {nsymbols} symbols \
                     (1-D: 2, 4, 5, 6 or 9 symbols; 2-D: binary)"
                ),
            )
        })?;
        let path = ctm_dir.join(file);
        let f = std::fs::File::open(&path).map_err(|e| KcompError::file(&path, e.to_string()))?;
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(f)
            .take(MAX_PICKLE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| KcompError::file(&path, format!("not a gzip file: {e}")))?;
        if bytes.len() as u64 > MAX_PICKLE_BYTES {
            return Err(KcompError::file(&path, "larger than any pybdm CTM table"));
        }
        let value =
            pickle::from_slice(&bytes).map_err(|e| KcompError::file(&path, e.to_string()))?;
        Self::from_value(name, nsymbols, ndim, block, value)
            .map_err(|e| KcompError::file(&path, e.to_string()))
    }

    /// Reads the tables of a JSON file `{"tables": [{name, nsymbols, ndim, block, shapes:
    /// [{shape, missing, values: {key: value}}]}]}` (hand-made tables for tests; kcomp reads
    /// pybdm's own tables with [`find_ctm_dir`]).
    pub fn tables_from_json(path: &Path) -> Result<Vec<Self>> {
        let text = crate::io::limits::read_text(path)?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| KcompError::file(path, e.to_string()))?;
        let bad = |m: &str| KcompError::file(path, m.to_string());
        let tables = v
            .get("tables")
            .and_then(|t| t.as_array())
            .ok_or_else(|| bad("no `tables` list"))?;
        tables
            .iter()
            .map(|t| Self::from_json_value(t).map_err(|e| bad(&e)))
            .collect()
    }

    fn from_json_value(v: &serde_json::Value) -> std::result::Result<Self, String> {
        let get = |k: &str| v.get(k).ok_or_else(|| format!("a table has no `{k}`"));
        let name = get("name")?.as_str().ok_or("`name` is not text")?;
        let num = |k: &str| -> std::result::Result<usize, String> {
            get(k)?
                .as_u64()
                .map(|x| x as usize)
                .ok_or_else(|| format!("`{k}` is not a count"))
        };
        let (nsymbols, ndim, block) = (num("nsymbols")?, num("ndim")?, num("block")?);
        let mut shapes = BTreeMap::new();
        for s in get("shapes")?.as_array().ok_or("`shapes` is not a list")? {
            let shape: Vec<usize> = s
                .get("shape")
                .and_then(|x| x.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|d| d.as_u64().map(|d| d as usize))
                        .collect()
                })
                .ok_or("a shape has no `shape` list")?;
            let missing = s
                .get("missing")
                .and_then(|x| x.as_f64())
                .ok_or("a shape has no `missing` value")?;
            let mut t = ShapeTable {
                values: HashMap::new(),
                missing,
            };
            let values = s
                .get("values")
                .and_then(|x| x.as_object())
                .ok_or("a shape has no `values` object")?;
            for (k, x) in values {
                let d = digits(k).ok_or("a key is not digits")?;
                t.values
                    .insert(key_of(&d), x.as_f64().ok_or("a value is not a number")?);
            }
            shapes.insert(shape, t);
        }
        Ok(CtmTable {
            name: name.into(),
            nsymbols,
            ndim,
            block,
            shapes,
        })
    }
}

/// The folder holding pybdm's `ctm-*.pkl.gz` files, from `explicit` (a path option) or else
/// [`CTM_ENV`]: the path itself, its `ctmdata` sub-folder, or its `pybdm/ctmdata`.
pub fn find_ctm_dir(explicit: Option<&Path>) -> Result<PathBuf> {
    let given = match explicit {
        Some(p) => p.to_path_buf(),
        None => match std::env::var_os(CTM_ENV) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => {
                return Err(KcompError::param(
                    "bdm.ctm_dir",
                    format!(
                        "BDM needs the CTM tables of a pybdm installation (not shipped with \
                         kcomp: GPL-2 data): `pip install pybdm`, then set {CTM_ENV} (or \
                         `[bdm] ctm_dir`, --ctm) to its folder, e.g. \
                         $(python -c 'import pybdm, os; print(os.path.dirname(pybdm.__file__))')"
                    ),
                ));
            }
        },
    };
    let has_tables = |d: &Path| d.join("ctm-b2-d12.pkl.gz").is_file();
    for cand in [
        given.clone(),
        given.join("ctmdata"),
        given.join("pybdm").join("ctmdata"),
    ] {
        if has_tables(&cand) {
            return Ok(cand);
        }
    }
    Err(KcompError::file(
        &given,
        "holds no pybdm CTM tables (looked for ctm-b2-d12.pkl.gz in it, in ctmdata/ and in \
         pybdm/ctmdata/)",
    ))
}

type Cache = Mutex<HashMap<(PathBuf, usize, usize), Arc<CtmTable>>>;

/// [`CtmTable::from_pybdm`], read once per process and shared (a panel's datasets use the same
/// table; the 4- to 9-symbol tables take seconds to read).
pub fn load_cached(ctm_dir: &Path, ndim: usize, nsymbols: usize) -> Result<Arc<CtmTable>> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (ctm_dir.to_path_buf(), ndim, nsymbols);
    if let Some(t) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(t);
    }
    let t = Arc::new(CtmTable::from_pybdm(ctm_dir, ndim, nsymbols)?);
    if let Ok(mut c) = cache.lock() {
        c.insert(key, t.clone());
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_normalisation() {
        assert_eq!(normalise(&[1, 0, 1, 2]), vec![0, 1, 0, 2]);
        assert_eq!(normalise(&[4, 0, 5, 2, 4]), vec![0, 1, 2, 3, 0]);
        assert_eq!(key_of(&[0, 1, 0, 2]), 102);
        // Leading zeros vanish in the number; shapes keep keys of different lengths apart.
        assert_eq!(key_of(&[0, 0, 1]), 1);
        assert_eq!(alphabet_for(3), Some(4));
        assert_eq!(alphabet_for(10), None);
        assert!(dataset_for(2, 4).is_none());
    }

    #[test]
    fn missing_strings_take_the_maximum_plus_one() {
        let v = Value::Dict(vec![(
            Value::Tuple(vec![Value::Int(2)]),
            Value::Dict(vec![
                (Value::Str("00".into()), Value::Float(3.0)),
                (Value::Str("01".into()), Value::Float(3.5)),
            ]),
        )]);
        let t = CtmTable::from_value("T", 2, 1, 2, v).unwrap();
        assert_eq!(t.lookup(&[2], &[0, 1]), Some((3.5, true)));
        assert_eq!(t.shapes[&vec![2]].missing, 4.5);
        assert_eq!(t.lookup(&[2], &[0, 2]), Some((4.5, false)));
        assert_eq!(t.lookup(&[3], &[0, 1, 0]), None);
        let e = find_ctm_dir(Some(Path::new("/nonexistent/pybdm"))).unwrap_err();
        assert!(e.to_string().contains("ctm-b2-d12"), "{e}");
    }
}
