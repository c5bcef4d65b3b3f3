//! A prefix code of a mapping-table program given W, and its decoder.
//!
//! The decoder knows W (N x M tokens), A (Z's components) and the declared number of values
//! V of every component. The code is a sequence of symbols, each uniform over a range the
//! decoder has already computed from W and the symbols before it:
//! - `Uniform(r)`: one of r values, log2 r bits;
//! - `Subset(n, k)`: a k-subset of n items whose size k was sent before, log2 C(n, k) bits.
//!
//! Since every range is known before its symbol is read, the lengths satisfy Kraft's
//! inequality with equality over all messages: the total, sum log2(range), is the ideal length
//! of a valid prefix code (an enumerative or arithmetic coder realises it within 2 bits).
//!
//! Symbols, in order:
//! 1. `alphabets`: a mode bit (Uniform(2)). Mode 0: every component's values are sent as
//!    themselves, Uniform(V). Mode 1: for each component a, |V_a| - 1 as Uniform(V), then its
//!    observed values V_a as Subset(V, |V_a|); values are sent as their rank in V_a,
//!    Uniform(|V_a|). The encoder picks the shorter mode.
//! 2. `structure`: T - 1 as Uniform(A) (T tables, numbered by their first output); for each
//!    output a, its table as Uniform(min(T, u + 1)) with u the tables seen among outputs < a
//!    (a restricted growth string); for each table, |S_t| as Uniform(M + 1) and S_t as
//!    Subset(M, |S_t|).
//! 3. `entries`: for each table, for each key tuple of W[S_t] in order of first appearance in
//!    W (keys are implicit: the decoder enumerates them), for each output of the table in
//!    ascending order, its value.
//! 4. `exceptions`: E as Uniform(D + 1), D the distinct inputs of W in order of first
//!    appearance; the wrong inputs as Subset(D, E); for each, in that order, all A values.
//! 5. `residuals`: with C the rows whose input occurs more than once and D_C their distinct
//!    inputs, the number R of rows differing from their input's output as
//!    Uniform(|C| - D_C + 1) (every such input keeps at least one row); those rows as
//!    Subset(|C|, R); for each, in row order, all A values.

use std::collections::{BTreeMap, HashMap};

use super::{MappingMdl, Prepared};
use crate::dataset::TokenData;
use crate::error::{KcompError, Result};

/// One symbol of the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Symbol {
    /// `value` in `0..radix`.
    Uniform { value: u64, radix: u64 },
    /// `chosen` (ascending) among `0..of`.
    Subset { chosen: Vec<usize>, of: usize },
}

pub use crate::coding::bits::log2_binomial;

impl Symbol {
    /// Length in bits.
    pub fn bits(&self) -> f64 {
        match self {
            Symbol::Uniform { radix, .. } => (*radix as f64).log2(),
            Symbol::Subset { chosen, of } => log2_binomial(*of, chosen.len()),
        }
    }
}

/// A symbol and the part of the program it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub field: &'static str,
    pub symbol: Symbol,
}

/// The code of one program.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Code {
    pub parts: Vec<Part>,
}

impl Code {
    /// Total length in bits.
    pub fn bits(&self) -> f64 {
        self.parts.iter().map(|p| p.symbol.bits()).sum()
    }

    /// Length per field, in bits.
    pub fn bits_by_part(&self) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for p in &self.parts {
            *out.entry(p.field.to_string()).or_insert(0.0) += p.symbol.bits();
        }
        out
    }

    fn uniform(&mut self, field: &'static str, value: u64, radix: u64) {
        debug_assert!(value < radix);
        self.parts.push(Part {
            field,
            symbol: Symbol::Uniform { value, radix },
        });
    }

    fn subset(&mut self, field: &'static str, chosen: Vec<usize>, of: usize) {
        self.parts.push(Part {
            field,
            symbol: Symbol::Subset { chosen, of },
        });
    }
}

/// Distinct inputs of W (first-appearance order): each row's id and the first row of each.
fn distinct_inputs(w: &TokenData) -> (Vec<usize>, Vec<usize>) {
    let mut ids: HashMap<&[u32], usize> = HashMap::new();
    let mut first = Vec::new();
    let of = (0..w.n)
        .map(|i| {
            let len = ids.len();
            let id = *ids.entry(w.row(i)).or_insert(len);
            if id == len {
                first.push(i);
            }
            id
        })
        .collect();
    (of, first)
}

/// Key tuples of W[keys] in order of first appearance, and each row's key index.
fn key_tuples(w: &TokenData, keys: &[usize]) -> (Vec<Vec<u32>>, Vec<usize>) {
    let mut map: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut tuples = Vec::new();
    let of = (0..w.n)
        .map(|i| {
            let t: Vec<u32> = keys.iter().map(|&k| w.row(i)[k]).collect();
            let len = map.len();
            *map.entry(t.clone()).or_insert_with(|| {
                tuples.push(t);
                len
            })
        })
        .collect();
    (tuples, of)
}

/// Rows whose input occurs more than once, and the number of those inputs.
fn repeated_rows(input_of: &[usize], d: usize) -> (Vec<usize>, usize) {
    let mut count = vec![0usize; d];
    for &id in input_of {
        count[id] += 1;
    }
    let rows = (0..input_of.len())
        .filter(|&i| count[input_of[i]] > 1)
        .collect();
    (rows, count.iter().filter(|&&c| c > 1).count())
}

/// Encodes `prog` (built on `p`).
pub(crate) fn encode(p: &Prepared, prog: &MappingMdl) -> Code {
    let (a_n, m, n_vals) = (p.a, p.m, p.n_vals);
    let w = TokenData {
        n: p.n,
        n_words: m,
        vocab: 0,
        tokens: p.w.clone(),
        pad: None,
    };
    let (input_of, first) = distinct_inputs(&w);
    let (rep_rows, rep_inputs) = repeated_rows(&input_of, first.len());
    let residual: Vec<usize> = (0..rep_rows.len())
        .filter(|&k| {
            let i = rep_rows[k];
            p.z_row(i) != p.z_row(p.target_row[p.input_of[i] as usize])
        })
        .collect();

    // values sent per component, to choose the alphabet mode
    let mut sent = vec![prog.exceptions.len() + residual.len(); a_n];
    for t in &prog.tables {
        for &o in &t.outputs {
            sent[o] += t.entries.len();
        }
    }
    let lv = (n_vals as f64).log2();
    let mode0: f64 = sent.iter().map(|&s| s as f64 * lv).sum();
    let mode1: f64 = (0..a_n)
        .map(|a| {
            let k = p.z_alpha[a].len();
            lv + log2_binomial(n_vals, k) + sent[a] as f64 * (k as f64).log2()
        })
        .sum();
    let mode = u64::from(mode1 < mode0);

    let mut code = Code::default();
    code.uniform("alphabets", mode, 2);
    if mode == 1 {
        for a in 0..a_n {
            let vals = &p.z_alpha[a];
            code.uniform("alphabets", vals.len() as u64 - 1, n_vals as u64);
            code.subset(
                "alphabets",
                vals.iter().map(|&v| v as usize).collect(),
                n_vals,
            );
        }
    }
    let value = |code: &mut Code, field: &'static str, a: usize, v: u32| {
        if mode == 1 {
            let rank = p.z_alpha[a].binary_search(&v).unwrap_or(0);
            code.uniform(field, rank as u64, p.z_alpha[a].len() as u64);
        } else {
            code.uniform(field, v as u64, n_vals as u64);
        }
    };

    let t_n = prog.tables.len();
    code.uniform("structure", t_n as u64 - 1, a_n as u64);
    let mut table_of = vec![0usize; a_n];
    for (t, tab) in prog.tables.iter().enumerate() {
        for &o in &tab.outputs {
            table_of[o] = t;
        }
    }
    let mut used = 0usize;
    for &t in &table_of {
        code.uniform("structure", t as u64, t_n.min(used + 1) as u64);
        used = used.max(t + 1);
    }
    for tab in &prog.tables {
        code.uniform("structure", tab.keys.len() as u64, m as u64 + 1);
        code.subset("structure", tab.keys.clone(), m);
    }
    for tab in &prog.tables {
        for e in &tab.entries {
            for (&o, &v) in tab.outputs.iter().zip(&e.value) {
                value(&mut code, "entries", o, v);
            }
        }
    }
    let d = first.len();
    code.uniform("exceptions", prog.exceptions.len() as u64, d as u64 + 1);
    let index: HashMap<&[u32], usize> = first
        .iter()
        .enumerate()
        .map(|(id, &r)| (w.row(r), id))
        .collect();
    let chosen: Vec<usize> = prog
        .exceptions
        .iter()
        .map(|x| index[x.input.as_slice()])
        .collect();
    code.subset("exceptions", chosen, d);
    for x in &prog.exceptions {
        for (o, &v) in x.output.iter().enumerate() {
            value(&mut code, "exceptions", o, v);
        }
    }
    code.uniform(
        "residuals",
        residual.len() as u64,
        (rep_rows.len() - rep_inputs) as u64 + 1,
    );
    code.subset("residuals", residual.clone(), rep_rows.len());
    for &k in &residual {
        for (o, &v) in p.z_row(rep_rows[k]).iter().enumerate() {
            value(&mut code, "residuals", o, v);
        }
    }
    code
}

/// Reads the code in order, computing every range itself.
struct Reader<'c> {
    parts: std::slice::Iter<'c, Part>,
    bits: f64,
}

impl Reader<'_> {
    fn bad(what: &str) -> KcompError {
        KcompError::param("code", format!("cannot decode {what}"))
    }

    fn uniform(&mut self, radix: u64) -> Result<u64> {
        match self.parts.next().map(|p| &p.symbol) {
            Some(Symbol::Uniform { value, .. }) if *value < radix => {
                self.bits += (radix as f64).log2();
                Ok(*value)
            }
            _ => Err(Self::bad(&format!("a value below {radix}"))),
        }
    }

    fn subset(&mut self, of: usize, k: usize) -> Result<Vec<usize>> {
        match self.parts.next().map(|p| &p.symbol) {
            Some(Symbol::Subset { chosen, .. })
                if chosen.len() == k
                    && chosen.windows(2).all(|w| w[0] < w[1])
                    && chosen.last().is_none_or(|&x| x < of) =>
            {
                self.bits += log2_binomial(of, k);
                Ok(chosen.clone())
            }
            _ => Err(Self::bad(&format!("a {k}-subset of {of}"))),
        }
    }
}

/// Decodes Z (N x `n_attr`, row-major) from W and the code, and returns the length the
/// decoder counted, in bits.
pub fn decode(w: &TokenData, n_attr: usize, n_vals: usize, code: &Code) -> Result<(Vec<u32>, f64)> {
    let (n, m, a_n) = (w.n, w.n_words, n_attr);
    let mut r = Reader {
        parts: code.parts.iter(),
        bits: 0.0,
    };
    let mode = r.uniform(2)?;
    let mut alpha: Vec<Vec<u32>> = Vec::new();
    if mode == 1 {
        for _ in 0..a_n {
            let k = r.uniform(n_vals as u64)? as usize + 1;
            alpha.push(r.subset(n_vals, k)?.into_iter().map(|v| v as u32).collect());
        }
    }
    let value = |r: &mut Reader, a: usize| -> Result<u32> {
        if mode == 1 {
            Ok(alpha[a][r.uniform(alpha[a].len() as u64)? as usize])
        } else {
            Ok(r.uniform(n_vals as u64)? as u32)
        }
    };

    let t_n = r.uniform(a_n as u64)? as usize + 1;
    let mut table_of = Vec::with_capacity(a_n);
    let mut used = 0usize;
    for _ in 0..a_n {
        let t = r.uniform(t_n.min(used + 1) as u64)? as usize;
        used = used.max(t + 1);
        table_of.push(t);
    }
    if used != t_n {
        return Err(Reader::bad("the table assignment (a table has no outputs)"));
    }
    let mut keys = Vec::with_capacity(t_n);
    for _ in 0..t_n {
        let s = r.uniform(m as u64 + 1)? as usize;
        keys.push(r.subset(m, s)?);
    }
    let mut z = vec![0u32; n * a_n];
    for (t, key) in keys.iter().enumerate() {
        let outs: Vec<usize> = (0..a_n).filter(|&a| table_of[a] == t).collect();
        let (tuples, of) = key_tuples(w, key);
        let mut vals = vec![0u32; tuples.len() * outs.len()];
        for e in 0..tuples.len() {
            for (j, &o) in outs.iter().enumerate() {
                vals[e * outs.len() + j] = value(&mut r, o)?;
            }
        }
        for i in 0..n {
            for (j, &o) in outs.iter().enumerate() {
                z[i * a_n + o] = vals[of[i] * outs.len() + j];
            }
        }
    }
    let (input_of, first) = distinct_inputs(w);
    let d = first.len();
    let e = r.uniform(d as u64 + 1)? as usize;
    let wrong = r.subset(d, e)?;
    let mut fixed: HashMap<usize, Vec<u32>> = HashMap::new();
    for id in wrong {
        let row = (0..a_n)
            .map(|a| value(&mut r, a))
            .collect::<Result<Vec<u32>>>()?;
        fixed.insert(id, row);
    }
    for i in 0..n {
        if let Some(row) = fixed.get(&input_of[i]) {
            z[i * a_n..(i + 1) * a_n].copy_from_slice(row);
        }
    }
    let (rep_rows, rep_inputs) = repeated_rows(&input_of, d);
    let count = r.uniform((rep_rows.len() - rep_inputs) as u64 + 1)? as usize;
    for k in r.subset(rep_rows.len(), count)? {
        let i = rep_rows[k];
        for a in 0..a_n {
            z[i * a_n + a] = value(&mut r, a)?;
        }
    }
    if r.parts.next().is_some() {
        return Err(Reader::bad("the end (symbols left over)"));
    }
    Ok((z, r.bits))
}
