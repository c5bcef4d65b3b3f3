//! The Block Decomposition Method (Zenil, Hernández-Orozco, Kiani, Soler-Toscano,
//! Rueda-Toicen, Tegnér, "A Decomposition Method for Global Evaluation of Shannon Entropy and
//! Local Estimations of Algorithmic Complexity", Entropy 20(8), 2018) with pybdm's
//! conventions: the data are cut into blocks (square in 2-D), each distinct block counted
//! once with its CTM value plus log2 of its multiplicity,
//! `BDM = sum over distinct blocks (CTM(block) + log2 n_block)`.
//!
//! Boundaries (pybdm's partitions), for a block side `s`:
//! - `ignore`: non-overlapping blocks from the start; leftover pieces smaller than the block
//!   are dropped (their symbols count for nothing);
//! - `correlated`: a sliding window moved by `shift`; only whole blocks;
//! - `recursive`: non-overlapping blocks; a leftover piece is cut again into square blocks of
//!   its smallest side, down to `min_length` (pieces thinner than that are dropped).
//!
//! Lookup: a block's symbols are relabelled by first occurrence (the tables hold one
//! representative per relabelling class); a block the table lacks gets the largest value of
//! its shape + 1. Counting uses the blocks as they are (`01` and `10` are two distinct
//! blocks with the same CTM value). Sums run in first-occurrence order, as pybdm's Counter.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::ctm::{CtmTable, normalise};
use crate::error::{KcompError, Result};

/// How the data's boundaries are cut (pybdm's partition classes); written `ignore`,
/// `correlated:SHIFT` or `recursive:MIN_LENGTH` in configs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Partition {
    /// pybdm's `PartitionIgnore` (its default).
    #[default]
    Ignore,
    /// pybdm's `PartitionCorrelated(shift)`.
    Correlated { shift: usize },
    /// pybdm's `PartitionRecursive(min_length)` (pybdm's default min_length: 2).
    Recursive { min_length: usize },
}

impl TryFrom<String> for Partition {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        Partition::parse(&s)
    }
}

impl From<Partition> for String {
    fn from(p: Partition) -> String {
        p.to_string()
    }
}

impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Partition::Ignore => write!(f, "ignore"),
            Partition::Correlated { shift } => write!(f, "correlated:{shift}"),
            Partition::Recursive { min_length } => write!(f, "recursive:{min_length}"),
        }
    }
}

impl Partition {
    /// `ignore`, `correlated` (shift 1), `correlated:K`, `recursive` (min_length 2) or
    /// `recursive:K`.
    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        let num = |default: usize| -> std::result::Result<usize, String> {
            match arg {
                None => Ok(default),
                Some(a) => a
                    .parse::<usize>()
                    .ok()
                    .filter(|&x| x >= 1)
                    .ok_or_else(|| format!("`{a}` is not a positive integer")),
            }
        };
        match kind {
            "ignore" if arg.is_none() => Ok(Partition::Ignore),
            "correlated" => Ok(Partition::Correlated { shift: num(1)? }),
            "recursive" => Ok(Partition::Recursive {
                min_length: num(2)?,
            }),
            _ => Err(format!(
                "unknown partition `{}` (ignore, correlated[:SHIFT], recursive[:MIN_LENGTH])",
                s.escape_debug()
            )),
        }
    }
}

/// BDM of one array, with what a reader needs to trust it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BdmResult {
    /// The BDM value, bits.
    pub bits: f64,
    pub blocks: usize,
    pub distinct_blocks: usize,
    /// Blocks the table lacks (charged the shape's largest value + 1).
    pub missing_blocks: usize,
    /// Symbols in no block (dropped at the boundary).
    pub uncovered_symbols: usize,
    /// Degenerate cases, in words.
    pub warnings: Vec<String>,
}

/// A region of the array: start and size per axis.
type Region = (Vec<usize>, Vec<usize>);

/// pybdm's slicing of a region into pieces of side `side` (non-overlapping when `shift` is
/// 0, else a window moved by `shift`), axis 0 outermost.
fn slices(region: &Region, side: usize, shift: usize) -> Vec<Region> {
    let (start, size) = region;
    let axes: Vec<Vec<(usize, usize)>> = size
        .iter()
        .zip(start)
        .map(|(&n, &off)| {
            let (span, step) = if shift == 0 {
                (n, side)
            } else {
                ((n + 1).saturating_sub(side), shift)
            };
            (0..span)
                .step_by(step)
                .map(|s| (off + s, side.min(n - s)))
                .collect()
        })
        .collect();
    let mut out: Vec<Region> = vec![(Vec::new(), Vec::new())];
    for axis in axes {
        let mut next = Vec::with_capacity(out.len() * axis.len());
        for (s, z) in &out {
            for &(a, n) in &axis {
                let (mut s2, mut z2) = (s.clone(), z.clone());
                s2.push(a);
                z2.push(n);
                next.push((s2, z2));
            }
        }
        out = next;
    }
    out
}

/// pybdm's recursive partition of `region`: whole blocks of side `side`, leftover pieces
/// cut again with their smallest side (at least `min_length`), in pybdm's order. The depth
/// is at most the block side (the side shrinks at every level).
fn recurse(region: &Region, side: usize, min_length: usize, out: &mut Vec<Region>) {
    for piece in slices(region, side, 0) {
        if piece.1.iter().all(|&n| n == side) {
            out.push(piece);
        } else {
            let m = piece.1.iter().copied().min().unwrap_or(0);
            if m >= min_length.max(1) && m < side {
                recurse(&piece, m, min_length, out);
            }
        }
    }
}

/// The blocks of `shape` under `partition` with block side `side`.
fn blocks(shape: &[usize], side: usize, partition: Partition) -> Vec<Region> {
    let whole: Region = (vec![0; shape.len()], shape.to_vec());
    let whole_blocks = |shift: usize| -> Vec<Region> {
        slices(&whole, side, shift)
            .into_iter()
            .filter(|r| r.1.iter().all(|&n| n == side))
            .collect()
    };
    match partition {
        Partition::Ignore => whole_blocks(0),
        Partition::Correlated { shift } => whole_blocks(shift),
        Partition::Recursive { min_length } => {
            let mut out = Vec::new();
            recurse(&whole, side, min_length, &mut out);
            out
        }
    }
}

/// The symbols of a region, row-major.
fn read(data: &[u8], shape: &[usize], region: &Region) -> Vec<u8> {
    let (start, size) = region;
    match shape.len() {
        1 => data[start[0]..start[0] + size[0]].to_vec(),
        _ => {
            let cols = shape[1];
            let mut v = Vec::with_capacity(size[0] * size[1]);
            for r in start[0]..start[0] + size[0] {
                v.extend_from_slice(&data[r * cols + start[1]..r * cols + start[1] + size[1]]);
            }
            v
        }
    }
}

/// BDM of `data` (row-major, `shape` of 1 or 2 axes, symbols below the table's alphabet)
/// with square blocks of side `block` (`None`: the table's own, 12 or 4).
pub fn bdm(
    table: &CtmTable,
    data: &[u8],
    shape: &[usize],
    block: Option<usize>,
    partition: Partition,
) -> Result<BdmResult> {
    if shape.len() != table.ndim {
        return Err(KcompError::param(
            "bdm",
            format!(
                "{}-D data for the {}-D table {}",
                shape.len(),
                table.ndim,
                table.name
            ),
        ));
    }
    if shape.iter().product::<usize>() != data.len() {
        return Err(KcompError::param("bdm", "shape and data length disagree"));
    }
    if let Some(&bad) = data.iter().find(|&&s| s as usize >= table.nsymbols) {
        return Err(KcompError::param(
            "bdm",
            format!(
                "symbol {bad} is outside the {}-symbol alphabet of {}",
                table.nsymbols, table.name
            ),
        ));
    }
    let side = block.unwrap_or(table.block);
    if !table.shapes.contains_key(&vec![side; shape.len()]) {
        return Err(KcompError::param(
            "bdm.block",
            format!(
                "{} has no blocks of side {side} (largest: {})",
                table.name, table.block
            ),
        ));
    }
    if let Partition::Correlated { shift: 0 } = partition {
        return Err(KcompError::param("bdm.partition", "shift must be >= 1"));
    }
    let regions = blocks(shape, side, partition);
    // Distinct blocks in first-occurrence order: (shape, symbols) -> (ctm, count).
    let mut index: HashMap<(Vec<usize>, Vec<u8>), usize> = HashMap::new();
    let mut distinct: Vec<(f64, usize)> = Vec::new();
    let mut missing = 0usize;
    let mut covered = vec![false; data.len()];
    for region in &regions {
        let symbols = read(data, shape, region);
        let (ctm, found) = table
            .lookup(&region.1, &normalise(&symbols))
            .ok_or_else(|| {
                KcompError::param(
                    "bdm",
                    format!("{} has no blocks of shape {:?}", table.name, region.1),
                )
            })?;
        if !found {
            missing += 1;
        }
        mark(&mut covered, shape, region);
        let key = (region.1.clone(), symbols);
        match index.get(&key) {
            Some(&i) => distinct[i].1 += 1,
            None => {
                index.insert(key, distinct.len());
                distinct.push((ctm, 1));
            }
        }
    }
    if regions.is_empty() {
        return Err(KcompError::param(
            "bdm",
            format!(
                "no whole block of side {side} in data of shape {shape:?}: BDM would be 0 \
                 (pybdm raises 'Computed BDM is 0'); use a smaller block or partition = \
                 \"recursive\""
            ),
        ));
    }
    let bits: f64 = distinct
        .iter()
        .map(|&(ctm, n)| ctm + (n as f64).log2())
        .sum();
    let uncovered = covered.iter().filter(|&&c| !c).count();
    let mut warnings = Vec::new();
    if regions.len() == 1 {
        warnings.push(format!(
            "a single block: BDM is the CTM value of one block of shape {:?}, not a \
             decomposition",
            regions[0].1
        ));
    }
    if shape.iter().any(|&n| n < side) {
        warnings.push(format!(
            "data of shape {shape:?} are smaller than the block side {side}: only smaller \
             blocks, or none, describe them"
        ));
    }
    if uncovered > 0 {
        warnings.push(format!(
            "{uncovered} of {} symbols are in no block (dropped at the boundary)",
            data.len()
        ));
    }
    if missing > 0 {
        warnings.push(format!(
            "{missing} blocks are not in {} and were charged the largest value of their \
             shape + 1",
            table.name
        ));
    }
    Ok(BdmResult {
        bits,
        blocks: regions.len(),
        distinct_blocks: distinct.len(),
        missing_blocks: missing,
        uncovered_symbols: uncovered,
        warnings,
    })
}

fn mark(covered: &mut [bool], shape: &[usize], region: &Region) {
    let (start, size) = region;
    match shape.len() {
        1 => covered[start[0]..start[0] + size[0]].fill(true),
        _ => {
            for r in start[0]..start[0] + size[0] {
                let base = r * shape[1];
                covered[base + start[1]..base + start[1] + size[1]].fill(true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ctm::ShapeTable;
    use super::*;
    use std::collections::BTreeMap;

    /// A synthetic 1-D binary table: CTM(block) = length + number of symbol changes + 0.5
    /// (invented values, so the algorithm is tested without the GPL-2 tables).
    fn synthetic(max_len: usize) -> CtmTable {
        let mut shapes = BTreeMap::new();
        for len in 1..=max_len {
            let mut t = ShapeTable::default();
            for code in 0..(1u32 << (len - 1)) {
                // Normalised binary blocks start with 0.
                let bits: Vec<u8> = (0..len)
                    .map(|i| {
                        if i == 0 {
                            0
                        } else {
                            ((code >> (len - 1 - i)) & 1) as u8
                        }
                    })
                    .collect();
                let changes = bits.windows(2).filter(|w| w[0] != w[1]).count();
                let v = len as f64 + changes as f64 + 0.5;
                t.missing = t.missing.max(v + 1.0);
                t.values.insert(super::super::ctm::key_of(&bits), v);
            }
            shapes.insert(vec![len], t);
        }
        CtmTable {
            name: "SYNTHETIC".into(),
            nsymbols: 2,
            ndim: 1,
            block: max_len,
            shapes,
        }
    }

    fn seq(s: &str) -> Vec<u8> {
        s.bytes().map(|c| c - b'0').collect()
    }

    #[test]
    fn closed_forms_on_a_synthetic_table() {
        let t = synthetic(4);
        // "0101" x 3 with 4-blocks: one distinct block (4 + 3 + 0.5) seen 3 times.
        let r = bdm(&t, &seq("010101010101"), &[12], None, Partition::Ignore).unwrap();
        assert_eq!(r.bits, 7.5 + 3f64.log2());
        assert_eq!(
            (r.blocks, r.distinct_blocks, r.uncovered_symbols),
            (3, 1, 0)
        );
        // "0101" and "1010" are distinct blocks with the same normalised value.
        let r = bdm(&t, &seq("01011010"), &[8], None, Partition::Ignore).unwrap();
        assert_eq!(r.bits, 15.0);
        // Ignore drops the 2 leftover symbols; recursive cuts them as a 2-block (2 + 1 + 0.5).
        let r = bdm(&t, &seq("0000000001"), &[10], None, Partition::Ignore).unwrap();
        assert_eq!(r.bits, 4.5 + 1.0);
        assert_eq!(r.uncovered_symbols, 2);
        let r = bdm(
            &t,
            &seq("0000000001"),
            &[10],
            None,
            Partition::Recursive { min_length: 2 },
        )
        .unwrap();
        assert_eq!(r.bits, 4.5 + 1.0 + 3.5);
        assert_eq!(r.uncovered_symbols, 0);
        // min_length 3 drops that piece again.
        let r = bdm(
            &t,
            &seq("0000000001"),
            &[10],
            None,
            Partition::Recursive { min_length: 3 },
        )
        .unwrap();
        assert_eq!(r.bits, 5.5);
        // Correlated, shift 1: 0000, 0001 ... windows of "000001": 0000 x2, 0001 x1.
        let r = bdm(
            &t,
            &seq("000001"),
            &[6],
            None,
            Partition::Correlated { shift: 1 },
        )
        .unwrap();
        assert_eq!(r.bits, 4.5 + 1.0 + 5.5);
        assert_eq!(r.blocks, 3);
    }

    #[test]
    fn degenerate_inputs_warn_or_fail() {
        let t = synthetic(4);
        let e = bdm(&t, &seq("010"), &[3], None, Partition::Ignore).unwrap_err();
        assert!(e.to_string().contains("BDM would be 0"), "{e}");
        let r = bdm(
            &t,
            &seq("010"),
            &[3],
            None,
            Partition::Recursive { min_length: 2 },
        )
        .unwrap();
        assert_eq!(r.bits, 3.0 + 2.0 + 0.5);
        assert!(r.warnings.iter().any(|w| w.contains("single block")));
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("smaller than the block"))
        );
        assert!(bdm(&t, &seq("0120"), &[4], None, Partition::Ignore).is_err());
        assert!(bdm(&t, &seq("0101"), &[4], Some(5), Partition::Ignore).is_err());
        assert_eq!(
            Partition::parse("recursive:3"),
            Ok(Partition::Recursive { min_length: 3 })
        );
        assert_eq!(
            Partition::parse("correlated"),
            Ok(Partition::Correlated { shift: 1 })
        );
        assert!(Partition::parse("ignore:2").is_err());
    }

    #[test]
    fn recursive_partition_of_a_matrix() {
        // 5 x 5 with side 4: one 4x4 block, then the strips 4x1, 1x4 and 1x1 are thinner than
        // min_length 2 and dropped.
        let b = blocks(&[5, 5], 4, Partition::Recursive { min_length: 2 });
        assert_eq!(b, vec![(vec![0, 0], vec![4, 4])]);
        // 6 x 6: the 4x4 block, the 4x2 strip cut into two 2x2, the 2x4 strip into two 2x2,
        // the 2x2 corner as it is, in pybdm's order.
        let b = blocks(&[6, 6], 4, Partition::Recursive { min_length: 2 });
        let starts: Vec<Vec<usize>> = b.iter().map(|r| r.0.clone()).collect();
        assert_eq!(
            starts,
            vec![
                vec![0, 0],
                vec![0, 4],
                vec![2, 4],
                vec![4, 0],
                vec![4, 2],
                vec![4, 4]
            ]
        );
    }
}
