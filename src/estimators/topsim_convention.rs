//! The field's topological-similarity conventions by name, the one-hot cosine of EGG's games,
//! and meaning distances given as a matrix (human similarity ratings).
//!
//! Conventions (`[topsim] convention = "..."`; keys given beside it override it):
//! - `kcomp` (the default): Pearson's r; one-hot cityblock on W (2 x Hamming on messages of one
//!   length, so the Hamming correlation); Hamming on discrete Z, Euclidean on continuous Z.
//! - `egg`: EGG's `TopographicSimilarity.compute_topsim` (Kharitonov et al., EMNLP 2019):
//!   Spearman's rho, EGG's `edit` distance on W (Levenshtein / mean length: kcomp's
//!   `normalised-edit`; messages as given, padding included, as EGG's callback passes
//!   `logs.message`), Hamming on the meanings (scipy's fraction of differing positions; the
//!   same ranks as kcomp's count). EGG's games pass one-hot meanings (`sender_input`), so its
//!   `cosine` is the cosine of one-hot vectors: `z_distance = "cosine"` under this convention
//!   is `cosine-one-hot` on discrete Z. On continuous Z, where Hamming compares floats for
//!   equality, the convention takes Euclidean distances (said in a note).
//! - `elmoznino`: the Figure 2 code of Elmoznino et al. (ICML 2025): Pearson's r, one-hot
//!   cityblock on W, Euclidean on Z (attribute values as numbers on discrete Z).
//!
//! Every topsim output names the convention its settings match (`custom` when none).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{KcompError, Result};

use super::interface::{Estimate, Estimator, Progress};
use super::topsim::{
    Correlation, TopsimConfig, WDistance, ZDistance, correlate, sampled_pairs,
    topological_similarity, w_distance,
};

/// A named convention of the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Convention {
    /// kcomp's default: Pearson, one-hot cityblock (= Hamming) on W, Hamming (discrete) or
    /// Euclidean (continuous) on Z.
    Kcomp,
    /// EGG's compute_topsim: Spearman, normalised edit on W, Hamming on meanings.
    Egg,
    /// Elmoznino et al.'s Figure 2 code: Pearson, one-hot cityblock on W, Euclidean on Z.
    Elmoznino,
}

impl Convention {
    /// (correlation, W distance, Z distance) of the convention.
    pub fn settings(self) -> (Correlation, WDistance, ZDistance) {
        match self {
            Convention::Kcomp => (
                Correlation::Pearson,
                WDistance::OneHotCityblock,
                ZDistance::Auto,
            ),
            Convention::Egg => (
                Correlation::Spearman,
                WDistance::NormalisedEdit,
                ZDistance::Hamming,
            ),
            Convention::Elmoznino => (
                Correlation::Pearson,
                WDistance::OneHotCityblock,
                ZDistance::Euclidean,
            ),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Convention::Kcomp => "kcomp",
            Convention::Egg => "egg",
            Convention::Elmoznino => "elmoznino",
        }
    }
}

/// The settings as written in a config (`[topsim]`), before the convention is applied.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TopsimSettings {
    /// A named convention; the keys below override it.
    pub convention: Option<Convention>,
    pub correlation: Option<Correlation>,
    pub w_distance: Option<WDistance>,
    pub z_distance: Option<ZDistance>,
    pub max_pairs: Option<usize>,
    pub seed: Option<u64>,
    /// Meaning distances as an N x N matrix file (.npy, .csv), replacing distances on Z.
    pub z_distances: Option<PathBuf>,
}

impl TryFrom<TopsimSettings> for TopsimConfig {
    type Error = String;

    fn try_from(s: TopsimSettings) -> std::result::Result<Self, String> {
        let base = TopsimConfig::default();
        let convention = s.convention.unwrap_or(Convention::Kcomp);
        let (correlation, w_distance, mut z_distance) = convention.settings();
        if convention == Convention::Egg && s.z_distance == Some(ZDistance::Cosine) {
            // EGG's cosine is taken of one-hot meanings.
            z_distance = ZDistance::CosineOneHot;
        } else if let Some(z) = s.z_distance {
            z_distance = z;
        }
        Ok(TopsimConfig {
            correlation: s.correlation.unwrap_or(correlation),
            w_distance: s.w_distance.unwrap_or(w_distance),
            z_distance,
            max_pairs: s.max_pairs.unwrap_or(base.max_pairs),
            seed: s.seed.unwrap_or(base.seed),
            z_distances: s.z_distances,
        })
    }
}

/// The convention `config` (resolved for discrete or continuous Z) follows, or `custom`.
pub fn convention_name(config: &TopsimConfig, discrete: bool) -> &'static str {
    let resolved = config.resolved(discrete);
    let key = |z: ZDistance| z.resolve(discrete);
    for c in [Convention::Kcomp, Convention::Egg, Convention::Elmoznino] {
        let (corr, w, z) = c.settings();
        let z_matches = key(z) == resolved.z_distance
            || (c == Convention::Egg
                && (resolved.z_distance == ZDistance::CosineOneHot
                    || (!discrete && resolved.z_distance == ZDistance::Euclidean)));
        if corr == resolved.correlation && w == resolved.w_distance && z_matches {
            return c.name();
        }
    }
    "custom"
}

/// Discrete attribute rows as concatenated one-hot vectors (one block per attribute, as wide
/// as its largest value + 1), the meanings EGG's games hand to `compute_topsim`.
pub fn one_hot_rows(z: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
    let width = z.first().map_or(0, Vec::len);
    let mut sizes = vec![0usize; width];
    for row in z {
        if row.len() != width {
            return Err(KcompError::param("z", "rows of different widths"));
        }
        for (s, &v) in sizes.iter_mut().zip(row) {
            if v < 0.0 || v.fract() != 0.0 || v > 1e6 {
                return Err(KcompError::param(
                    "topsim.z_distance",
                    "cosine-one-hot needs discrete Z (non-negative integer attributes)",
                ));
            }
            *s = (*s).max(v as usize + 1);
        }
    }
    let total: usize = sizes.iter().sum();
    crate::io::limits::check_memory("topsim", "one-hot meanings", (z.len() * total * 8) as f64)?;
    Ok(z.iter()
        .map(|row| {
            let mut out = vec![0.0; total];
            let mut at = 0;
            for (&v, &s) in row.iter().zip(&sizes) {
                out[at + v as usize] = 1.0;
                at += s;
            }
            out
        })
        .collect())
}

/// An N x N matrix of meaning distances, checked: square, symmetric (to 1e-9 of its largest
/// entry), finite, non-negative, zero on the diagonal.
#[derive(Debug, Clone, PartialEq)]
pub struct DistanceMatrix {
    pub n: usize,
    pub values: Vec<f64>,
}

impl DistanceMatrix {
    /// Checks `values` (row-major, `n` x `n`); `origin` names them in errors.
    pub fn new(n: usize, values: Vec<f64>, origin: &str) -> Result<Self> {
        let err = |m: String| KcompError::file(origin, m);
        if values.len() != n * n {
            return Err(err(format!(
                "a distance matrix must be N x N: {} values for N = {n}",
                values.len()
            )));
        }
        let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (values[i * n + j], values[j * n + i]);
                if !a.is_finite() || a < 0.0 {
                    return Err(err(format!(
                        "row {}, column {}: {a} is not a finite non-negative distance",
                        i + 1,
                        j + 1
                    )));
                }
                if (a - b).abs() > 1e-9 * scale.max(1e-300) {
                    return Err(err(format!(
                        "not symmetric: row {}, column {} is {a} but row {}, column {} is {b}",
                        i + 1,
                        j + 1,
                        j + 1,
                        i + 1
                    )));
                }
            }
            if values[i * n + i] != 0.0 {
                return Err(err(format!(
                    "row {}: the distance of a meaning to itself must be 0",
                    i + 1
                )));
            }
        }
        Ok(DistanceMatrix { n, values })
    }

    /// Reads an N x N matrix from a `.npy` or `.csv` file.
    pub fn read(path: &Path) -> Result<Self> {
        let t = crate::io::user_data::read_table(path)?;
        if t.rows != t.cols {
            return Err(KcompError::file(
                path,
                format!(
                    "a distance matrix must be N x N, found {} x {}",
                    t.rows, t.cols
                ),
            ));
        }
        let values = match t.values {
            crate::io::user_data::Values::Int(v) => v.into_iter().map(|x| x as f64).collect(),
            crate::io::user_data::Values::Float(v) => v,
        };
        Self::new(t.rows, values, &path.display().to_string())
    }

    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.n + j]
    }
}

/// Topological similarity with meaning distances from a matrix: the W distances of `config`
/// over all pairs (or `max_pairs` sampled with its seed), correlated with `d`.
pub fn topological_similarity_matrix(
    w: &[Vec<i64>],
    d: &DistanceMatrix,
    config: &TopsimConfig,
) -> Result<f64> {
    let n = w.len();
    if d.n != n {
        return Err(KcompError::param(
            "topsim.z_distances",
            format!("the distance matrix is {0} x {0}, but W has {n} rows", d.n),
        ));
    }
    if n < 3 {
        return Err(KcompError::param("topsim", "needs at least 3 samples"));
    }
    let total = n * (n - 1) / 2;
    let pairs: Vec<(usize, usize)> = if total <= config.max_pairs {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    } else {
        sampled_pairs(n, config.max_pairs, config.seed)
    };
    let dw = pairs
        .iter()
        .map(|&(i, j)| w_distance(config.w_distance, &w[i], &w[j]))
        .collect();
    let dz = pairs.iter().map(|&(i, j)| d.get(i, j)).collect();
    correlate(dw, dz, config.correlation)
}

/// The kebab-case name of an option value, as in configs and on the command line.
fn value_name(v: impl clap::ValueEnum) -> String {
    v.to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_string())
}

/// Topological similarity as a panel score (`topsim`) on a dataset's rows: W as word ids, Z as
/// attribute values or grid index x precision (or the meaning distances of
/// `z_distances`). `label` names a registered variant (e.g. `topsim_jaccard`); `None` is
/// `topsim`. Every estimate names its convention and distances.
#[derive(Debug, Clone, Default)]
pub struct TopsimEstimator {
    pub config: TopsimConfig,
    pub label: Option<&'static str>,
}

impl Estimator for TopsimEstimator {
    fn name(&self) -> &str {
        self.label.unwrap_or("topsim")
    }

    fn estimate(&self, data: &crate::dataset::Dataset, _progress: &Progress) -> Result<Estimate> {
        let discrete = data.is_discrete();
        let mut config = self.config.resolved(discrete);
        let mut notes = Vec::new();
        if !discrete && config.z_distance == ZDistance::Hamming {
            // Hamming compares floats for equality: every pair of rows differs everywhere.
            config.z_distance = ZDistance::Euclidean;
            notes.push(
                "Hamming distance on continuous Z compares floats for equality; Euclidean used"
                    .to_string(),
            );
        }
        if !discrete && config.z_distance == ZDistance::CosineOneHot {
            return Err(KcompError::param(
                "topsim.z_distance",
                "cosine-one-hot needs discrete Z (attributes); use cosine on continuous Z",
            ));
        }
        let matrix = match &self.config.z_distances {
            Some(path) => Some(DistanceMatrix::read(path)?),
            None => None,
        };
        let w = data.w_rows();
        let score = match &matrix {
            Some(d) => topological_similarity_matrix(&w, d, &config)?,
            None => topological_similarity(&w, &data.z_rows_f64(), &config)?,
        };
        let n = data.n();
        let pairs = n * n.saturating_sub(1) / 2;
        let sampled = pairs > config.max_pairs;
        let convention = if matrix.is_some() {
            "custom"
        } else {
            convention_name(&config, discrete)
        };
        let z_text = match &self.config.z_distances {
            Some(path) => format!("the distance matrix {}", path.display()),
            None => format!(
                "{} on {} Z",
                value_name(config.z_distance),
                if discrete { "discrete" } else { "continuous" }
            ),
        };
        let mut est = Estimate::score(score)
            .with("convention", convention)
            .with("correlation", config.correlation)
            .with("w_distance", config.w_distance)
            .with("z_distance", config.z_distance)
            .with("pairs", if sampled { config.max_pairs } else { pairs });
        if let Some(path) = &self.config.z_distances {
            est = est.with("z_distances", path.display().to_string());
        }
        // One-hot cityblock counts each differing position twice: on messages of one length
        // it is 2 x Hamming, so the correlation is the field's Hamming/Hamming one.
        let same_as_hamming = if config.w_distance == WDistance::OneHotCityblock {
            " (= 2 x Hamming on messages of one length)"
        } else {
            ""
        };
        est = est.note(format!(
            "convention {convention}: {} correlation of {} on W{same_as_hamming} and {z_text} \
             (topsim.convention = \"egg\" for EGG's Spearman / normalised edit / Hamming; \
             topsim.correlation, topsim.w_distance, topsim.z_distance to change one)",
            value_name(config.correlation),
            value_name(config.w_distance),
        ));
        if discrete && config.z_distance == ZDistance::Cosine && matrix.is_none() {
            est = est.note(
                "cosine of the attribute indices as numbers (value 3 is \"closer\" to 4 than \
                 to 0, and index 0 has no direction): EGG's games take the cosine of one-hot \
                 meanings, `cosine-one-hot` here (topsim.z_distance or topsim.convention = \
                 \"egg\")",
            );
        }
        for note in notes {
            est = est.note(note);
        }
        if sampled {
            est = est.note(format!(
                "{} of {pairs} pairs sampled (seed {})",
                config.max_pairs, config.seed
            ));
        }
        Ok(est)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_toml(text: &str) -> TopsimConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn conventions_set_defaults_and_keys_override_them() {
        let egg = from_toml("convention = \"egg\"");
        assert_eq!(egg.correlation, Correlation::Spearman);
        assert_eq!(egg.w_distance, WDistance::NormalisedEdit);
        assert_eq!(egg.z_distance, ZDistance::Hamming);
        assert_eq!(convention_name(&egg, true), "egg");
        let egg_cos = from_toml("convention = \"egg\"\nz_distance = \"cosine\"");
        assert_eq!(egg_cos.z_distance, ZDistance::CosineOneHot);
        assert_eq!(convention_name(&egg_cos, true), "egg");
        let custom = from_toml("convention = \"egg\"\ncorrelation = \"pearson\"");
        assert_eq!(convention_name(&custom, true), "custom");
        assert_eq!(convention_name(&TopsimConfig::default(), true), "kcomp");
        assert_eq!(convention_name(&TopsimConfig::default(), false), "kcomp");
        let elm = from_toml("convention = \"elmoznino\"");
        assert_eq!(convention_name(&elm, true), "elmoznino");
        // The default serialises without a convention key and reads back the same.
        let text = toml::to_string(&TopsimConfig::default()).unwrap();
        assert_eq!(from_toml(&text), TopsimConfig::default());
        assert!(toml::from_str::<TopsimConfig>("convention = \"nope\"").is_err());
    }

    #[test]
    fn one_hot_cosine_counts_differing_attributes() {
        let z = vec![vec![0.0, 1.0], vec![0.0, 2.0], vec![1.0, 2.0]];
        let oh = one_hot_rows(&z).unwrap();
        assert_eq!(oh[0], vec![1.0, 0.0, 0.0, 1.0, 0.0]);
        assert_eq!(oh[2], vec![0.0, 1.0, 0.0, 0.0, 1.0]);
        assert!(one_hot_rows(&[vec![0.5]]).is_err());
    }

    #[test]
    fn distance_matrices_are_checked() {
        assert!(DistanceMatrix::new(2, vec![0.0, 1.0, 1.0, 0.0], "d").is_ok());
        for bad in [
            vec![0.0, 1.0, 2.0, 0.0],
            vec![1.0, 1.0, 1.0, 0.0],
            vec![0.0, -1.0, -1.0, 0.0],
            vec![0.0, f64::NAN, f64::NAN, 0.0],
        ] {
            assert!(DistanceMatrix::new(2, bad, "d").is_err());
        }
        assert!(DistanceMatrix::new(2, vec![0.0; 3], "d").is_err());
    }
}
