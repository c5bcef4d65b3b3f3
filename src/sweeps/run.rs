//! One synthetic run: generate a dataset, take its exact terms, and its topological similarity.

use serde::{Deserialize, Serialize};

use crate::datasets::grammar::{self, GrammarParams};
use crate::datasets::lookup_table::{self, LookupParams, TableCostMethod};
use crate::error::Result;
use crate::estimators::ground_truth::ComplexityTerms;
use crate::estimators::topsim::{TopsimConfig, topsim_grid};

/// Which generator, with its parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "generator", rename_all = "kebab-case")]
pub enum SynthSpec {
    /// Lookup-table representations.
    Lookup(LookupParams),
    /// Context-free-grammar representations.
    Grammar(GrammarParams),
}

impl SynthSpec {
    /// The generator's name.
    pub fn generator(&self) -> &'static str {
        match self {
            SynthSpec::Lookup(_) => "lookup",
            SynthSpec::Grammar(_) => "grammar",
        }
    }

    /// (samples, length, dim): the sizes the topsim memory estimate needs.
    pub fn shape(&self) -> (usize, usize, usize) {
        match self {
            SynthSpec::Lookup(p) => (p.samples, p.length, p.dim),
            SynthSpec::Grammar(p) => (p.samples, p.length, p.dim),
        }
    }

    /// Expected work of the run, for an ETA by work (only ratios matter): the samples' cells
    /// N (M + D), plus for a lookup table its K^q x Dq/M entries, each coded (above 2^24 only
    /// the used rows are materialised). Measured: q = 16, K = 2 takes about 50x the time of
    /// q = 1 at N = 1,000, M = 16, D = 64, as its 4.2 million entries against 80,000 cells say.
    pub fn expected_work(&self) -> f64 {
        let (n, m, d) = self.shape();
        let cells = n as f64 * (m + d) as f64;
        match self {
            SynthSpec::Lookup(p) => {
                let rows = (p.vocab as f64).powi(p.ngram.min(64) as i32);
                let cols = (p.dim * p.ngram) as f64 / p.length.max(1) as f64;
                let entries = rows * cols;
                let table = if entries > (1u64 << 24) as f64 {
                    n as f64 * cols
                } else {
                    entries
                };
                cells + table
            }
            SynthSpec::Grammar(_) => cells,
        }
    }

    /// The seed of the run.
    pub fn seed(&self) -> u64 {
        match self {
            SynthSpec::Lookup(p) => p.seed,
            SynthSpec::Grammar(p) => p.seed,
        }
    }
}

/// The outcome of one run (bits; C is a ratio). Serialises to the `kcomp synth --json` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Units of every description length in this record.
    pub units: String,
    /// "lookup" or "grammar".
    pub generator: String,
    /// K(p_w).
    pub k_pw: f64,
    /// K(W|p_w), total over the samples.
    pub k_w_given_pw: f64,
    /// K(f).
    pub k_f: f64,
    /// K(Z|W,f), total over the samples.
    pub k_z_given_wf: f64,
    /// K(Z).
    pub k_z: f64,
    /// K(Z|W).
    pub k_z_given_w: f64,
    /// C(Z) with totals (the paper's formula).
    pub c: f64,
    /// C(Z) in the per-sample convention of the published figures.
    pub c_per_sample: f64,
    /// Rows N (samples).
    #[serde(default)]
    pub samples: usize,
    /// (K(Z) - K(Z|W)) / N, bits: comparable across N where C grows with N (`None` in
    /// records saved before the field existed).
    #[serde(default)]
    pub bits_saved_per_row: Option<f64>,
    /// Topological similarity (None when not computed).
    pub topsim: Option<f64>,
    /// Notes on how terms were obtained (e.g. analytic charge of unused table rows).
    pub notes: Vec<String>,
}

impl super::engine::SavedResult for RunRecord {
    /// Every term finite and non-negative, the sums and C recomputed from them exactly as
    /// [`ComplexityTerms`] computes them.
    fn check_saved(&self) -> std::result::Result<(), String> {
        use super::engine::{check_finite, check_relation};
        if self.units != "bits" {
            return Err(format!("units = {:?}, not bits", self.units));
        }
        for (name, v) in [
            ("k_pw", self.k_pw),
            ("k_w_given_pw", self.k_w_given_pw),
            ("k_f", self.k_f),
            ("k_z_given_wf", self.k_z_given_wf),
        ] {
            check_finite(name, v, Some(0.0))?;
        }
        let k_z = self.k_pw + self.k_w_given_pw + self.k_f + self.k_z_given_wf;
        check_relation("k_z", self.k_z, k_z, "K(p_w) + K(W|p_w) + K(f) + K(Z|W,f)")?;
        let k_zw = self.k_f + self.k_z_given_wf;
        check_relation("k_z_given_w", self.k_z_given_w, k_zw, "K(f) + K(Z|W,f)")?;
        check_relation("c", self.c, k_z / k_zw, "K(Z) / K(Z|W)")?;
        check_finite("c_per_sample", self.c_per_sample, Some(0.0))?;
        if let Some(t) = self.topsim
            && !(-1.0..=1.0).contains(&t)
        {
            return Err(format!("topsim = {t} is outside [-1, 1]"));
        }
        Ok(())
    }
}

impl RunRecord {
    fn from_terms(generator: &str, terms: &ComplexityTerms, topsim: Option<f64>) -> Self {
        RunRecord {
            units: "bits".into(),
            generator: generator.into(),
            k_pw: terms.k_pw,
            k_w_given_pw: terms.k_w_given_pw,
            k_f: terms.k_f,
            k_z_given_wf: terms.k_z_given_wf,
            k_z: terms.k_z(),
            k_z_given_w: terms.k_z_given_w(),
            c: terms.c(),
            c_per_sample: terms.c_per_sample(),
            samples: 0,
            bits_saved_per_row: None,
            topsim,
            notes: Vec::new(),
        }
    }
}

/// A generated dataset: W (word ids), Z (grid indices) and its grid spacing.
#[derive(Debug, Clone)]
pub struct SynthData {
    /// N x M word ids.
    pub w: ndarray::Array2<i64>,
    /// N x D grid indices.
    pub z: ndarray::Array2<i64>,
    /// Grid spacing: Z values are `z * precision`.
    pub precision: f64,
}

/// Runs one spec. `topsim = None` skips topological similarity.
pub fn run(spec: &SynthSpec, topsim: Option<&TopsimConfig>) -> Result<(RunRecord, SynthData)> {
    let (mut record, data, notes) = match spec {
        SynthSpec::Lookup(p) => {
            let d = lookup_table::generate(p)?;
            let note = match d.k_f_method {
                TableCostMethod::ExactAllRows => None,
                TableCostMethod::ExactUsedPlusExpectedUnused => Some(format!(
                    "K(f): {} of {:e} table rows occur and are coded exactly; the other rows are \
                     charged their exact expected code (Skellam entropy x entries), not materialised",
                    d.used_rows, d.table_rows
                )),
                TableCostMethod::ExactUsedRowsOnly => Some(format!(
                    "K(f): only the {} table rows that occur are charged (--table-cost used)",
                    d.used_rows
                )),
            };
            let rec = RunRecord::from_terms("lookup", &d.terms, None);
            let data = SynthData {
                w: d.w,
                z: d.z,
                precision: p.precision,
            };
            (rec, data, note.into_iter().collect::<Vec<_>>())
        }
        SynthSpec::Grammar(p) => {
            let d = grammar::generate(p)?;
            let mut notes = vec![
                "parse trees: CYK, split nearest the middle of each span (balanced at the top level)"
                    .to_string(),
            ];
            if p.reference_compat {
                notes.push("K(W|p_w) = M log2 K per sentence (reference convention)".into());
            }
            let rec = RunRecord::from_terms("grammar", &d.terms, None);
            let data = SynthData {
                w: d.w,
                z: d.z,
                precision: p.precision,
            };
            (rec, data, notes)
        }
    };
    record.notes = notes;
    record.samples = spec.shape().0;
    record.bits_saved_per_row = Some(crate::estimators::interface::bits_saved_per_row(
        record.k_z,
        record.k_z_given_w,
        record.samples,
    ));
    if let Some(cfg) = topsim {
        // An undefined correlation (a constant distance) is reported, not turned into NaN.
        match topsim_grid(&data.w, &data.z, data.precision, cfg) {
            Ok(t) => record.topsim = Some(t),
            Err(e) => record.notes.push(format!("topsim not computed: {e}")),
        }
    }
    Ok((record, data))
}
