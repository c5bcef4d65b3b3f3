//! `kcomp synth lookup|grammar` as a library call: one synthetic run with its parameters
//! checked first, optional files, and the table or JSON object the command prints.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::datasets::validate::{memory, topsim_bytes};
use crate::error::{KcompError, Result};
use crate::estimators::topsim::TopsimOptions;
use crate::io::npy::write_dataset;

use super::run::{RunRecord, SynthData, SynthSpec, run};

/// A finished synthetic run: its parameters, record and the files written.
pub struct SynthOutcome {
    pub spec: SynthSpec,
    pub record: RunRecord,
    pub written: Vec<PathBuf>,
    /// The generated W and Z (the Python bindings hand them over as arrays).
    pub data: SynthData,
}

/// Runs `spec` (topological similarity as `topsim` says) and writes W.npy, Z.npy, Z_grid.npy
/// and meta.json into `out` if given (a folder holding another run's files only with `force`).
pub fn synth(
    spec: SynthSpec,
    topsim: &TopsimOptions,
    out: Option<&Path>,
    force: bool,
) -> Result<SynthOutcome> {
    // Parameters (and the generator's memory) first, so errors name the real culprit.
    match &spec {
        SynthSpec::Lookup(p) => p.validate()?,
        SynthSpec::Grammar(p) => p.validate()?,
    }
    let topsim = topsim.config(spec.seed());
    if let Some(t) = &topsim {
        let (n, m, d) = spec.shape();
        memory(
            "topological similarity",
            &[("topsim_max_pairs", topsim_bytes(n, m, d, t.max_pairs))],
        )?;
    }
    if let Some(dir) = out {
        let stamp = serde_json::json!({"command": "synth", "spec": &spec, "topsim": &topsim});
        crate::io::out_dir::claim(dir, &stamp, force)?;
    }
    let (record, data) = run(&spec, topsim.as_ref())?;
    let mut written = Vec::new();
    if let Some(dir) = out {
        let meta = serde_json::json!({ "spec": spec, "record": record });
        written = write_dataset(dir, &data.w, &data.z, data.precision, meta)?;
    }
    Ok(SynthOutcome {
        spec,
        record,
        written,
        data,
    })
}

impl SynthOutcome {
    /// The `--json` object: the record and its parameters (lengths in bits).
    pub fn to_json(&self) -> Result<String> {
        let json = |e: serde_json::Error| KcompError::Other(e.to_string());
        let mut value = serde_json::to_value(&self.record).map_err(json)?;
        value["params"] = serde_json::to_value(&self.spec).map_err(json)?;
        serde_json::to_string(&value).map_err(json)
    }

    /// The table and the files written.
    pub fn to_text(&self) -> String {
        let mut text = self.record.to_string();
        for path in &self.written {
            text += &format!("wrote {}\n", path.display());
        }
        text
    }
}

/// The table of `kcomp synth` (lengths in bits).
impl fmt::Display for RunRecord {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let r = self;
        writeln!(
            f,
            "{} representation (description lengths in bits)",
            r.generator
        )?;
        let rows = [
            ("K(p_w)", r.k_pw),
            ("K(W|p_w)", r.k_w_given_pw),
            ("K(f)", r.k_f),
            ("K(Z|W,f)", r.k_z_given_wf),
            ("K(Z)", r.k_z),
            ("K(Z|W)", r.k_z_given_w),
        ];
        for (name, v) in rows {
            // Said once: why compare/prequential on the written files print a larger K(Z).
            let why = match name {
                "K(Z)" => {
                    "   (exact; compare/prequential on the --out files code Z without the generator: larger)"
                }
                _ => "",
            };
            writeln!(f, "  {name:<16} {:>14}{why}", number(v, 3))?;
        }
        writeln!(
            f,
            "  {:<16} {:>14}   (K(Z) / K(Z|W) with totals, the paper's formula)",
            "C(Z)",
            number(r.c, 6)
        )?;
        writeln!(
            f,
            "  {:<16} {:>14}   (the published figures' convention: terms per sample)",
            "C(Z) per sample",
            number(r.c_per_sample, 6)
        )?;
        if let Some(saved) = r.bits_saved_per_row {
            writeln!(
                f,
                "  {:<16} {:>14}   ((K(Z) - K(Z|W)) / N over N = {} rows: comparable across N, C is not)",
                "bits saved/row",
                number(saved, 3),
                r.samples
            )?;
        }
        let topsim = r.topsim.map_or("-".to_string(), |t| number(t, 6));
        writeln!(f, "  {:<16} {:>14}", "topsim", topsim)?;
        for note in &r.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}

/// Fixed notation for ordinary magnitudes, scientific from 1e9 on (a 19-digit fixed number
/// hides its magnitude).
fn number(v: f64, decimals: usize) -> String {
    if v.abs() >= 1e9 {
        format!("{v:.6e}")
    } else {
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_terms_print_in_scientific_notation() {
        assert_eq!(number(1234.5678, 3), "1234.568");
        assert_eq!(number(-2.5e9, 3), "-2.500000e9");
        assert_eq!(number(0.1234567, 6), "0.123457");
    }
}
