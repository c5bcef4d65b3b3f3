//! BDM as a panel [`Estimator`]: K(Z|W) approximated by BDM(W then Z) - BDM(W) on the binary
//! serialisation of the rows (the chain rule, as the compression estimator's
//! |C(W, Z)| - |C(W)|). An approximation of algorithmic complexity, not a code length: BDM
//! sums CTM values, which are -log2 of estimated algorithmic probabilities, and the
//! difference can even be negative.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::ctm::{find_ctm_dir, load_cached};
use super::decompose::{BdmResult, Partition, bdm};
use crate::dataset::{Dataset, Targets};
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// Settings of the `bdm` estimator (`[bdm]` in a panel config).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BdmConfig {
    /// pybdm's package folder (or its `ctmdata` folder); default: `KCOMP_PYBDM_CTM`.
    pub ctm_dir: Option<PathBuf>,
    /// Boundary handling: `ignore` (pybdm's default), `correlated:SHIFT`, `recursive:MIN`.
    pub partition: Partition,
    /// Block length of the strings (default 12, pybdm's; at most 12).
    pub block: Option<usize>,
}

/// Bits per symbol of an alphabet of `n` symbols (at least 1).
fn width(n: usize) -> usize {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1) as usize
}

/// Appends `v` in `bits` bits, most significant first.
fn push_bits(out: &mut Vec<u8>, v: u32, bits: usize) {
    for b in (0..bits).rev() {
        out.push(((v >> b) & 1) as u8);
    }
}

/// The binary serialisations of a dataset (bits, rows in data order).
struct Serialised {
    /// W's rows.
    w: Vec<u8>,
    /// Z's rows.
    z: Vec<u8>,
    /// Each row of W followed by its row of Z.
    wz: Vec<u8>,
    /// Bits per row of W (the width of W as a binary matrix).
    row_bits: usize,
}

fn serialise(data: &Dataset) -> Result<Serialised> {
    let Targets::Discrete {
        n_attr,
        n_vals,
        values,
    } = &data.z
    else {
        return Err(KcompError::param("z", "BDM needs discrete Z"));
    };
    let (bw, bz) = (width(data.w.vocab), width(*n_vals));
    let (mut w, mut z, mut wz) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..data.n() {
        for &t in data.w.row(i) {
            push_bits(&mut w, t, bw);
            push_bits(&mut wz, t, bw);
        }
        for &v in &values[i * n_attr..(i + 1) * n_attr] {
            push_bits(&mut z, v, bz);
            push_bits(&mut wz, v, bz);
        }
    }
    Ok(Serialised {
        w,
        z,
        wz,
        row_bits: data.w.n_words * bw,
    })
}

/// BDM of a string, with the table's default 1-D settings.
fn bdm_1d(table: &super::CtmTable, s: &[u8], cfg: &BdmConfig) -> Result<BdmResult> {
    bdm(table, s, &[s.len()], cfg.block, cfg.partition)
}

/// The BDM estimator.
#[derive(Debug, Clone, Default)]
pub struct BdmEstimator {
    pub config: BdmConfig,
}

impl Estimator for BdmEstimator {
    fn name(&self) -> &str {
        "bdm"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        if !data.is_discrete() {
            return Err("BDM needs discrete symbols (this Z is continuous)".into());
        }
        find_ctm_dir(self.config.ctm_dir.as_deref()).map_err(|e| e.to_string())?;
        Ok(())
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let dir = find_ctm_dir(self.config.ctm_dir.as_deref())?;
        let table = load_cached(&dir, 1, 2)?;
        let Serialised { w, z, wz, row_bits } = serialise(data)?;
        let r_w = bdm_1d(&table, &w, &self.config)?;
        let r_z = bdm_1d(&table, &z, &self.config)?;
        let r_wz = bdm_1d(&table, &wz, &self.config)?;
        let k = r_wz.bits - r_w.bits;
        let mut est = Estimate::code_length(k)
            .with("bdm_w_bits", r_w.bits)
            .with("bdm_z_bits", r_z.bits)
            .with("bdm_wz_bits", r_wz.bits)
            .with("blocks_wz", r_wz.blocks)
            .with("distinct_blocks_wz", r_wz.distinct_blocks)
            .with("missing_blocks_wz", r_wz.missing_blocks)
            .with("partition", self.config.partition.to_string())
            .with("block", self.config.block.unwrap_or(table.block))
            .with("table", &table.name);
        // W as a binary matrix (rows x bits), with the 4x4 table.
        if let Ok(t2) = load_cached(&dir, 2, 2)
            && let Ok(m) = bdm(&t2, &w, &[data.n(), row_bits], None, self.config.partition)
        {
            est = est.with("bdm_w_matrix_bits", m.bits);
        }
        for (what, r) in [("W", &r_w), ("Z", &r_z), ("W then Z", &r_wz)] {
            for warning in &r.warnings {
                est = est.note(format!("{what}: {warning}"));
            }
        }
        if k < 0.0 {
            est = est.note(
                "BDM(W then Z) < BDM(W): BDM is not monotone, so this difference is no code length",
            );
        }
        Ok(est.note(
            "an approximation of K from CTM values (not a code length); binary serialisation, \
             rows in data order",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_serialisation_widths() {
        assert_eq!(width(2), 1);
        assert_eq!(width(3), 2);
        assert_eq!(width(4), 2);
        assert_eq!(width(5), 3);
        assert_eq!(width(1), 1);
        let mut v = Vec::new();
        push_bits(&mut v, 5, 3);
        assert_eq!(v, vec![1, 0, 1]);
        let c: BdmConfig = toml::from_str("partition = \"recursive:2\"\nblock = 8").unwrap();
        assert_eq!(c.partition, Partition::Recursive { min_length: 2 });
        assert!(toml::from_str::<BdmConfig>("partition = \"sideways\"").is_err());
    }
}
