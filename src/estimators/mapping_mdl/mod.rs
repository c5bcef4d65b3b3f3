//! The shortest mapping table that reproduces a discrete dataset: Xu et al.'s program length
//! L(P) measured without an LLM (`shared/notes/estimator-panel.md`, "Program length without
//! an LLM").
//!
//! # The program language
//! W is N x M tokens, Z is N x A discrete values. A program is a set of tables; table t has key
//! positions S_t (a subset of W's positions, possibly empty) and output components O_t; the O_t
//! partition Z's components. Table t holds one entry per observed value tuple of W[S_t], mapping
//! it to the most frequent value tuple of Z[O_t] among the rows carrying that key (ties: the
//! tuple that first reached the top count in row order). An entry has |S_t| + |O_t| values, so
//! L(P+) = sum_t n_t (|S_t| + |O_t|) with n_t the number of observed key tuples.
//!
//! Each distinct input w has a target: the most frequent Z tuple of its rows. Inputs whose
//! table output differs from the target are patched by an exception table keyed on the whole
//! input, one entry of M + A values per distinct wrong input (applied to all its repeats):
//! E = number of such inputs and L(P) = L(P+) + (M + A) E, which on data without repeated
//! inputs is exactly the paper's (N_in + M_out) E. Rows that differ from their input's target
//! (the same input with different outputs) cannot be reproduced by any table; they pay a per-row
//! residual in the bit code below and are counted in `residual_rows`, not in L(P).
//!
//! # Search
//! Candidate key sets: every subset of the M positions when there are at most 1,024 of them
//! (M <= 10); otherwise every subset up to the largest size b with at most 1,024 subsets, if
//! b >= 3; otherwise a per-output beam search (width 4, up to 4 positions).
//! `exhaustive` is true when every subset of up to `max_key_size` positions was a candidate
//! (all subsets when M <= 10, so `max_key_size` = M), false for the beam. For each output and
//! candidate the tables' component errors are computed once; the assignment of outputs to key
//! sets (outputs with the same key set share one table, so shared keys are paid once) is then
//! improved by local search on L(P) (moves of one output and of a whole table) from several
//! starts: each output on its own best key set, and all outputs in one table on the three key
//! sets that are best for that (scored with exact tuple modes). The final programs are
//! evaluated exactly (tuple modes) and the shortest L(P) is kept. The assignment search is a
//! local search even when `exhaustive` is true: L(P) is an upper bound on the language's
//! optimum, not a certificate.
//!
//! Full enumeration is not the worst case it seems: on a random map of u^M inputs a table
//! keyed on k positions plus exceptions for the inputs it gets wrong costs
//! u^M (M + A) - u^k (M - k), below full enumeration for every k < M (312 instead of 320 on
//! the 4 x 4 grids, 171,008 instead of 172,032 for 6 positions x 4 letters on 6 x 6).
//!
//! # The bit code
//! [`code`] states a prefix code of the same program given W (see its docs) and decodes it.

pub mod code;
mod search;

use serde::Serialize;
use std::collections::HashMap;

use crate::dataset::{Dataset, Targets, TokenData};
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// One table entry: raw W tokens of the key positions -> raw Z values of the outputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub key: Vec<u32>,
    pub value: Vec<u32>,
}

/// One table of the program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Table {
    /// Key positions S_t (ascending).
    pub keys: Vec<usize>,
    /// Output components O_t (ascending).
    pub outputs: Vec<usize>,
    /// One entry per observed key tuple, in order of first appearance in W.
    pub entries: Vec<Entry>,
}

impl Table {
    /// Size in the paper's units: entries x (|S| + |O|).
    pub fn size(&self) -> usize {
        self.entries.len() * (self.keys.len() + self.outputs.len())
    }
}

/// An exception: a whole input and its target output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exception {
    pub input: Vec<u32>,
    pub output: Vec<u32>,
}

/// The shortest mapping table found for a dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MappingMdl {
    /// L(P+): sum over table entries of (key values + output values).
    pub l_p_plus: usize,
    /// E: distinct inputs the tables get wrong (patched by exceptions).
    pub errors: usize,
    /// L(P) = L(P+) + (M + A) E, in table values.
    pub l_p: usize,
    /// Length of the program's prefix code given W, in bits ([`code`]).
    pub bits: f64,
    /// The code length split into its parts (alphabets, structure, entries, exceptions,
    /// residuals), in bits.
    pub bits_parts: std::collections::BTreeMap<String, f64>,
    /// Every subset of up to `max_key_size` positions was a candidate key set.
    pub exhaustive: bool,
    /// Largest key set considered.
    pub max_key_size: usize,
    /// Rows that differ from their input's most frequent output (paid in bits only).
    pub residual_rows: usize,
    pub tables: Vec<Table>,
    pub exceptions: Vec<Exception>,
    /// Wall time, filled in by the caller (0 from [`fit`]).
    pub seconds: f64,
}

/// A program's shape: (key positions, output components) per table.
pub type Structure = Vec<(Vec<usize>, Vec<usize>)>;

/// The data in the form the search and the code use.
pub(crate) struct Prepared {
    pub n: usize,
    pub m: usize,
    pub a: usize,
    /// Declared number of values of every Z component.
    pub n_vals: usize,
    /// W tokens, raw, row-major.
    pub w: Vec<u32>,
    /// Per position: number of distinct tokens, and each row's dense index (first appearance).
    pub w_alpha: Vec<usize>,
    pub w_dense: Vec<u32>,
    /// Z values, raw, row-major.
    pub z: Vec<u32>,
    /// Per component: observed values (ascending) and each row's rank among them.
    pub z_alpha: Vec<Vec<u32>>,
    pub z_dense: Vec<u32>,
    /// The same ranks column by column (the search reads one component at a time).
    pub z_cols: Vec<Vec<u32>>,
    /// Each row's Z tuple as an id (first appearance).
    pub z_id: Vec<u32>,
    /// Distinct inputs in order of first appearance: each row's input id, and a row holding
    /// each input's target.
    pub input_of: Vec<u32>,
    pub d: usize,
    pub target_row: Vec<usize>,
}

impl Prepared {
    pub fn new(w: &TokenData, n_attr: usize, n_vals: usize, z: &[u32]) -> Result<Self> {
        let (n, m, a) = (w.n, w.n_words, n_attr);
        if n == 0 {
            return Err(KcompError::param(
                "dataset",
                "mapping_mdl needs at least one row",
            ));
        }
        if z.len() != n * a || a == 0 {
            return Err(KcompError::param(
                "z",
                format!("{} values for {n} rows x {a} components", z.len()),
            ));
        }
        if m > 64 {
            return Err(KcompError::param(
                "w",
                format!("mapping_mdl handles at most 64 positions, got {m}"),
            ));
        }
        let mut w_alpha = vec![0usize; m];
        let mut w_dense = vec![0u32; n * m];
        for j in 0..m {
            let mut map: HashMap<u32, u32> = HashMap::new();
            for i in 0..n {
                let len = map.len() as u32;
                w_dense[i * m + j] = *map.entry(w.tokens[i * m + j]).or_insert(len);
            }
            w_alpha[j] = map.len();
        }
        let mut z_alpha = Vec::with_capacity(a);
        let mut z_dense = vec![0u32; n * a];
        for c in 0..a {
            let mut vals: Vec<u32> = (0..n).map(|i| z[i * a + c]).collect();
            vals.sort_unstable();
            vals.dedup();
            for i in 0..n {
                z_dense[i * a + c] = vals.binary_search(&z[i * a + c]).unwrap_or(0) as u32;
            }
            z_alpha.push(vals);
        }
        let mut tuple_ids: HashMap<&[u32], u32> = HashMap::new();
        let z_id: Vec<u32> = (0..n)
            .map(|i| {
                let len = tuple_ids.len() as u32;
                *tuple_ids.entry(&z[i * a..(i + 1) * a]).or_insert(len)
            })
            .collect();
        let mut ids: HashMap<&[u32], u32> = HashMap::new();
        let mut input_of = Vec::with_capacity(n);
        let mut first_row = Vec::new();
        for i in 0..n {
            let len = ids.len() as u32;
            let id = *ids.entry(w.row(i)).or_insert(len);
            if id == len {
                first_row.push(i);
            }
            input_of.push(id);
        }
        let d = first_row.len();
        // Target of an input: the Z tuple that first reaches the top count among its rows.
        let mut target_row = first_row.clone();
        if d < n {
            let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); d];
            for (i, &id) in input_of.iter().enumerate() {
                rows_of[id as usize].push(i);
            }
            for (id, rows) in rows_of.iter().enumerate() {
                if rows.len() > 1 {
                    let mut counts: HashMap<&[u32], usize> = HashMap::new();
                    let mut best = 0;
                    for &r in rows {
                        let c = counts.entry(&z[r * a..(r + 1) * a]).or_insert(0);
                        *c += 1;
                        if *c > best {
                            best = *c;
                            target_row[id] = r;
                        }
                    }
                }
            }
        }
        Ok(Prepared {
            n,
            m,
            a,
            n_vals,
            w: w.tokens.clone(),
            w_alpha,
            w_dense,
            z: z.to_vec(),
            z_alpha,
            z_cols: (0..a)
                .map(|c| (0..n).map(|i| z_dense[i * a + c]).collect())
                .collect(),
            z_dense,
            z_id,
            input_of,
            d,
            target_row,
        })
    }

    pub fn z_row(&self, i: usize) -> &[u32] {
        &self.z[i * self.a..(i + 1) * self.a]
    }

    /// Ids of the rows' Z[outs] tuples (exact, by refining one component at a time).
    pub fn tuple_ids(&self, outs: &[usize]) -> Vec<u32> {
        let mut ids = vec![0u32; self.n];
        for &o in outs {
            let alpha = self.z_alpha[o].len() as u64;
            let mut map: HashMap<u64, u32> = HashMap::new();
            for (i, id) in ids.iter_mut().enumerate() {
                let c = *id as u64 * alpha + self.z_dense[i * self.a + o] as u64;
                let len = map.len() as u32;
                *id = *map.entry(c).or_insert(len);
            }
        }
        ids
    }

    /// Dense key ids of `keys` per row (first-appearance order) and their number.
    pub fn key_ids(&self, keys: &[usize]) -> (Vec<u32>, usize) {
        let mut ids = vec![0u32; self.n];
        let mut count = 1usize;
        for &p in keys {
            let alpha = self.w_alpha[p] as u64;
            let mut map: HashMap<u64, u32> = HashMap::new();
            for (i, id) in ids.iter_mut().enumerate() {
                let c = *id as u64 * alpha + self.w_dense[i * self.m + p] as u64;
                let len = map.len() as u32;
                *id = *map.entry(c).or_insert(len);
            }
            count = map.len();
        }
        (ids, count)
    }
}

/// Builds the exact program of a structure: entries by tuple modes, exceptions for the wrong
/// inputs, residual rows; and scores it (L(P+), E, L(P), bits).
pub(crate) fn build(p: &Prepared, structure: &Structure) -> Result<MappingMdl> {
    let mut covered = vec![false; p.a];
    for (keys, outs) in structure {
        if outs.is_empty() {
            return Err(KcompError::param("structure", "a table without outputs"));
        }
        if keys.iter().any(|&k| k >= p.m) || keys.windows(2).any(|w| w[0] >= w[1]) {
            return Err(KcompError::param(
                "structure",
                "keys must be ascending positions",
            ));
        }
        for &o in outs {
            if o >= p.a || covered[o] {
                return Err(KcompError::param(
                    "structure",
                    "outputs must partition Z's components",
                ));
            }
            covered[o] = true;
        }
    }
    if covered.iter().any(|c| !c) {
        return Err(KcompError::param("structure", "every output needs a table"));
    }
    // Tables ordered by their first output (the code numbers tables that way).
    let mut structure = structure.clone();
    for (_, outs) in structure.iter_mut() {
        outs.sort_unstable();
    }
    structure.sort_by_key(|(_, outs)| outs[0]);

    let mut predicted = vec![0u32; p.d * p.a];
    let mut tables = Vec::with_capacity(structure.len());
    for (keys, outs) in &structure {
        let (ids, count) = p.key_ids(keys);
        let tuple = p.tuple_ids(outs);
        let mut key_row = vec![usize::MAX; count];
        let mut best: Vec<(usize, usize)> = vec![(0, 0); count]; // (count, row)
        let mut counts: HashMap<(u32, u32), usize> = HashMap::new();
        for i in 0..p.n {
            let k = ids[i] as usize;
            if key_row[k] == usize::MAX {
                key_row[k] = i;
            }
            let c = counts.entry((ids[i], tuple[i])).or_insert(0);
            *c += 1;
            if *c > best[k].0 {
                best[k] = (*c, i);
            }
        }
        let entries: Vec<Entry> = (0..count)
            .map(|k| {
                let w = &p.w[key_row[k] * p.m..(key_row[k] + 1) * p.m];
                let z = p.z_row(best[k].1);
                Entry {
                    key: keys.iter().map(|&j| w[j]).collect(),
                    value: outs.iter().map(|&o| z[o]).collect(),
                }
            })
            .collect();
        for (id, &r) in p.target_row.iter().enumerate() {
            let e = &entries[ids[r] as usize];
            for (v, &o) in e.value.iter().zip(outs) {
                predicted[id * p.a + o] = *v;
            }
        }
        tables.push(Table {
            keys: keys.clone(),
            outputs: outs.clone(),
            entries,
        });
    }
    let mut exceptions = Vec::new();
    for (id, &r) in p.target_row.iter().enumerate() {
        if predicted[id * p.a..(id + 1) * p.a] != *p.z_row(r) {
            exceptions.push(Exception {
                input: p.w[r * p.m..(r + 1) * p.m].to_vec(),
                output: p.z_row(r).to_vec(),
            });
        }
    }
    let residual_rows = (0..p.n)
        .filter(|&i| p.z_row(i) != p.z_row(p.target_row[p.input_of[i] as usize]))
        .count();
    let l_p_plus: usize = tables.iter().map(Table::size).sum();
    let errors = exceptions.len();
    let mut out = MappingMdl {
        l_p_plus,
        errors,
        l_p: l_p_plus + (p.m + p.a) * errors,
        bits: 0.0,
        bits_parts: Default::default(),
        exhaustive: false,
        max_key_size: 0,
        residual_rows,
        tables,
        exceptions,
        seconds: 0.0,
    };
    let code = code::encode(p, &out);
    out.bits = code.bits();
    out.bits_parts = code.bits_by_part();
    Ok(out)
}

fn discrete_parts(z: &Targets) -> Result<(usize, usize, &[u32])> {
    match z {
        Targets::Discrete {
            n_attr,
            n_vals,
            values,
        } => Ok((*n_attr, *n_vals, values)),
        Targets::Continuous { .. } => Err(KcompError::param(
            "z",
            "mapping_mdl needs discrete Z, got continuous values",
        )),
    }
}

/// Searches the shortest mapping table for W and discrete Z.
pub fn fit(w: &TokenData, z: &Targets) -> Result<MappingMdl> {
    let (n_attr, n_vals, values) = discrete_parts(z)?;
    let p = Prepared::new(w, n_attr, n_vals, values)?;
    search::search(&p)
}

/// Scores a given program shape on W and Z (entries, exceptions and bits as in [`fit`]).
pub fn evaluate(w: &TokenData, z: &Targets, structure: &Structure) -> Result<MappingMdl> {
    let (n_attr, n_vals, values) = discrete_parts(z)?;
    let p = Prepared::new(w, n_attr, n_vals, values)?;
    build(&p, structure)
}

/// The code of a program found by [`fit`] or [`evaluate`] on the same W and Z ([`code`]).
pub fn encode_program(w: &TokenData, z: &Targets, prog: &MappingMdl) -> Result<code::Code> {
    let (n_attr, n_vals, values) = discrete_parts(z)?;
    let p = Prepared::new(w, n_attr, n_vals, values)?;
    Ok(code::encode(&p, prog))
}

/// The `mapping_mdl` estimator of the comparison panel.
#[derive(Debug, Clone, Copy, Default)]
pub struct MappingMdlEstimator;

impl Estimator for MappingMdlEstimator {
    fn name(&self) -> &str {
        "mapping_mdl"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        if data.is_discrete() {
            Ok(())
        } else {
            Err("mapping tables need discrete Z; this Z is continuous".into())
        }
    }

    fn estimate(&self, data: &Dataset, progress: &Progress) -> Result<Estimate> {
        progress.set_message("mapping_mdl: searching tables");
        let r = fit(&data.w, &data.z)?;
        let tables: Vec<serde_json::Value> = r
            .tables
            .iter()
            .map(|t| {
                serde_json::json!({
                    "keys": t.keys, "outputs": t.outputs, "entries": t.entries.len()
                })
            })
            .collect();
        let mut est = Estimate::code_length(r.bits)
            .with("l_p_plus", r.l_p_plus)
            .with("errors", r.errors)
            .with("l_p", r.l_p)
            .with("exhaustive", r.exhaustive)
            .with("max_key_size", r.max_key_size)
            .with("residual_rows", r.residual_rows)
            .with("bits_parts", &r.bits_parts)
            .with("tables", tables);
        if !r.exhaustive {
            est = est.note(format!(
                "key sets searched up to {} positions, not exhaustively",
                r.max_key_size
            ));
        }
        Ok(est.note("the assignment of outputs to key sets is a local search"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(n: usize, m: usize, v: usize, t: Vec<u32>) -> TokenData {
        TokenData::new(n, m, v, t).unwrap()
    }

    #[test]
    fn identity_copy_is_one_table_per_position() {
        // Z = W on 2 binary positions, 4 rows: two tables of 2 entries x (1 + 1).
        let w = tok(4, 2, 2, vec![0, 0, 0, 1, 1, 0, 1, 1]);
        let z = Targets::discrete(2, 2, vec![0, 0, 0, 1, 1, 0, 1, 1]).unwrap();
        let r = fit(&w, &z).unwrap();
        assert_eq!((r.l_p_plus, r.errors, r.l_p), (8, 0, 8));
        assert!(r.exhaustive);
        assert_eq!(r.tables.len(), 2);
    }

    #[test]
    fn constant_outputs_share_an_empty_key() {
        let w = tok(3, 1, 3, vec![0, 1, 2]);
        let z = Targets::discrete(3, 2, vec![1, 0, 1, 1, 0, 1, 1, 0, 1]).unwrap();
        let r = fit(&w, &z).unwrap();
        // one entry, no keys, three values
        assert_eq!((r.l_p_plus, r.errors), (3, 0));
        assert_eq!(r.tables[0].keys, Vec::<usize>::new());
    }

    #[test]
    fn many_positions_use_the_beam() {
        // 20 binary positions (too many subsets to enumerate), Z = (w3, w11)
        let (n, m) = (200, 20);
        let mut x: u64 = 12345;
        let tokens: Vec<u32> = (0..n * m)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) as u32 & 1
            })
            .collect();
        let z: Vec<u32> = (0..n)
            .flat_map(|i| [tokens[i * m + 3], tokens[i * m + 11]])
            .collect();
        let w = tok(n, m, 2, tokens);
        let r = fit(&w, &Targets::discrete(2, 2, z).unwrap()).unwrap();
        assert!(!r.exhaustive);
        assert_eq!((r.l_p, r.errors), (8, 0));
        let keys: Vec<Vec<usize>> = r.tables.iter().map(|t| t.keys.clone()).collect();
        assert_eq!(keys, vec![vec![3], vec![11]]);
    }

    #[test]
    fn bad_structures_are_errors() {
        let w = tok(2, 1, 2, vec![0, 1]);
        let z = Targets::discrete(2, 2, vec![0, 1, 1, 0]).unwrap();
        assert!(evaluate(&w, &z, &vec![(vec![0], vec![0])]).is_err());
        assert!(evaluate(&w, &z, &vec![(vec![1], vec![0, 1])]).is_err());
        assert!(evaluate(&w, &z, &vec![(vec![0], vec![0, 1])]).is_ok());
    }

    #[test]
    fn continuous_z_does_not_apply() {
        use crate::dataset::{KzMethod, KzReference, Provenance};
        let w = tok(2, 1, 2, vec![0, 1]);
        let z = Targets::from_floats(1, 0.1, &[0.0, 1.0]).unwrap();
        let kz = KzReference {
            bits: 2.0,
            method: KzMethod::Uniform,
        };
        let d = Dataset::new(w, z, Provenance::default(), kz, None).unwrap();
        let why = MappingMdlEstimator.applies_to(&d).unwrap_err();
        assert!(why.contains("continuous"));
        assert!(fit(&d.w, &d.z).is_err());
    }
}
