//! The `kcomp compare` TOML format: dataset families x parameter values x seeds, and the
//! estimators run on every dataset.
//!
//! ```toml
//! name = "default"
//! seeds = 3                                 # seeds 0..3 (or seed_list = [..]); no duplicates
//! estimators = ["exact", "mapping_mdl", "prequential", "compression", "topsim", "posdis", "bosdis"]
//!
//! [[family]]
//! name = "language-h"                       # output sub-folder, plot titles
//! kind = "language"                         # lookup | grammar | language | protocol | grid | files
//! parameter = "holistic_fraction"           # the swept generator parameter
//! values = [0.0, 0.5, 1.0]                  # no duplicates
//! [family.params]                           # fixed generator parameters (unknown names are errors)
//! repeats = 10
//!
//! [topsim]                                  # optional: topsim settings
//! correlation = "spearman"                  # pearson | spearman
//! w_distance = "normalised-edit"            # hamming | one-hot-cityblock | edit | normalised-edit | jaccard
//! z_distance = "hamming"                    # auto (default: hamming on discrete Z, euclidean
//!                                           # on continuous Z) | euclidean | cosine | hamming
//!
//! [bosdis]                                  # optional: bosdis settings
//! eos = 0                                   # end-of-sequence symbol, not counted (EGG: 0);
//!                                           # default: none, every symbol counts
//!
//! [tre]                                     # optional: TRE settings
//! composition = "linear"                    # additive | linear
//! error = "cosine"                          # l1 | cosine
//! optimizer = "adam"                        # adam | rmsprop
//! steps = 1000
//!
//! [requential]                              # optional: requential coding's settings
//! teacher = "online"                        # online | final
//! learners = ["marginal", "ngram2"]
//! k_z = false                               # skip K(Z) with W withheld
//!
//! [bdm]                                     # optional: BDM settings
//! ctm_dir = "/path/to/site-packages/pybdm"  # default: $KCOMP_PYBDM_CTM
//! partition = "recursive:2"                 # ignore | correlated:SHIFT | recursive:MIN_LENGTH
//!
//! [prequential]                             # optional: the prequential estimator's settings
//! val_fraction = 0.1
//! [prequential.config.train]
//! max_epochs = 200
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{KcompError, Result};
use crate::estimators::disentanglement::BosdisConfig;
use crate::estimators::topsim::TopsimConfig;
use crate::estimators::tre::TreConfig;

/// One family: a generator, the parameter it varies, its values and fixed parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySpec {
    /// Label (output sub-folder, plot titles); defaults to `kind-parameter`.
    #[serde(default)]
    pub name: Option<String>,
    /// `lookup`, `grammar`, `language`, `protocol` or `grid`.
    pub kind: String,
    /// The swept generator parameter.
    pub parameter: String,
    /// Its values.
    pub values: Vec<toml::Value>,
    /// Fixed generator parameters.
    #[serde(default)]
    pub params: toml::Table,
}

impl FamilySpec {
    /// The family's label.
    pub fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", self.kind, self.parameter))
    }
}

/// Settings of the prequential estimator inside a panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PanelPrequential {
    /// Fraction of each dataset's rows held out for early stopping.
    pub val_fraction: f64,
    /// The engine's configuration (`val_size` and `threads` are set per dataset): the online
    /// scheme unless `scheme = "reference"` or a reference-only key is set.
    #[serde(deserialize_with = "crate::estimators::prequential::code::deserialize_user_config")]
    pub config: crate::estimators::prequential::PrequentialConfig,
}

impl Default for PanelPrequential {
    fn default() -> Self {
        // Datasets run in parallel; each training stays on one thread.
        let config = crate::estimators::prequential::PrequentialConfig {
            threads: 1,
            ..crate::estimators::prequential::code::online_default()
        };
        PanelPrequential {
            val_fraction: 0.1,
            config,
        }
    }
}

/// A comparison panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanelConfig {
    /// Name (plot titles).
    pub name: String,
    /// Seeds `0..seeds`.
    #[serde(default)]
    pub seeds: Option<u64>,
    /// Explicit seeds (instead of `seeds`).
    #[serde(default)]
    pub seed_list: Option<Vec<u64>>,
    /// Estimator names, in table order.
    pub estimators: Vec<String>,
    /// The dataset families.
    #[serde(rename = "family")]
    pub families: Vec<FamilySpec>,
    /// Prequential settings.
    #[serde(default)]
    pub prequential: PanelPrequential,
    /// Requential-coding settings.
    #[serde(default)]
    pub requential: crate::estimators::requential::RequentialConfig,
    /// BDM settings (the CTM tables' folder, partition, block).
    #[serde(default)]
    pub bdm: crate::estimators::bdm::BdmConfig,
    /// Topological-similarity settings (also of `topsim_normalised_edit`, `topsim_jaccard`,
    /// which override `w_distance`).
    #[serde(default)]
    pub topsim: TopsimConfig,
    /// TRE settings (composition, error, optimiser, steps, lr, seed).
    #[serde(default)]
    pub tre: TreConfig,
    /// bosdis settings (the end-of-sequence symbol, none by default).
    #[serde(default)]
    pub bosdis: BosdisConfig,
    /// A `kcomp grid report` (its `per_answer.csv`) for the `llm_program` estimator.
    #[serde(default)]
    pub llm_report: Option<std::path::PathBuf>,
    /// Seed of the bootstrap over seeds in the agreement table.
    #[serde(default)]
    pub bootstrap_seed: u64,
    /// Bootstrap resamples.
    #[serde(default = "default_resamples")]
    pub bootstrap_resamples: usize,
}

fn default_resamples() -> usize {
    1000
}

/// Errors when a list holds the same value twice (a duplicate seed or value would be counted
/// twice in every mean and every rank correlation).
pub fn no_duplicates<T: PartialEq + std::fmt::Debug>(field: &str, list: &[T]) -> Result<()> {
    for (i, a) in list.iter().enumerate() {
        if list[..i].contains(a) {
            return Err(KcompError::param(field, format!("{a:?} is listed twice")));
        }
    }
    Ok(())
}

impl PanelConfig {
    /// Settings for one dataset given on the command line: defaults, no families.
    pub fn single_dataset_defaults() -> Self {
        PanelConfig {
            name: "single".into(),
            seeds: Some(1),
            seed_list: None,
            estimators: Vec::new(),
            families: Vec::new(),
            prequential: PanelPrequential::default(),
            requential: Default::default(),
            bdm: Default::default(),
            topsim: TopsimConfig::default(),
            tre: TreConfig::default(),
            bosdis: BosdisConfig::default(),
            llm_report: None,
            bootstrap_seed: 0,
            bootstrap_resamples: default_resamples(),
        }
    }

    /// Reads and validates a TOML file; errors name the file and the field.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = crate::io::limits::read_text(path)?;
        Self::from_toml(&path.display().to_string(), &text)
    }

    /// Reads a TOML file, applies `--set KEY=VALUE` assignments and validates.
    pub fn from_file_with(path: &Path, sets: &[String]) -> Result<Self> {
        if sets.is_empty() {
            return Self::from_file(path);
        }
        let mut table = crate::config::read_table(path)?;
        for s in sets {
            crate::config::apply_assignment(&mut table, s)?;
        }
        let origin = format!("{} with --set", path.display());
        let mut config: PanelConfig = crate::config::from_table(table, &origin)?;
        config
            .expand_file_globs()
            .and_then(|()| config.validate())
            .map_err(|e| KcompError::file(&origin, e.to_string()))?;
        Ok(config)
    }

    /// Parses and validates TOML text; `origin` names it in errors.
    pub fn from_toml(origin: &str, text: &str) -> Result<Self> {
        let mut config: PanelConfig =
            toml::from_str(text).map_err(|e| KcompError::file(origin, format!("{e}")))?;
        config
            .expand_file_globs()
            .and_then(|()| config.validate())
            .map_err(|e| KcompError::file(origin, e.to_string()))?;
        Ok(config)
    }

    /// Replaces every value of a `files` family that is a glob pattern (`runs/*`, `lang-?`:
    /// any of `*?[`) by the folders it matches under the family's `root`, in sorted order, so a
    /// folder of datasets is `"DIR/*"`. Matches that are not folders are skipped; a pattern
    /// matching no folder is an error (a typo must not shrink the panel silently).
    pub fn expand_file_globs(&mut self) -> Result<()> {
        for fam in self.families.iter_mut().filter(|f| f.kind == "files") {
            let root = match fam.params.get("root") {
                Some(toml::Value::String(r)) => std::path::PathBuf::from(r),
                _ => std::path::PathBuf::new(),
            };
            let mut values = Vec::with_capacity(fam.values.len());
            for value in &fam.values {
                let pattern = match value {
                    toml::Value::String(p) if p.contains(['*', '?', '[']) => p,
                    other => {
                        values.push(other.clone());
                        continue;
                    }
                };
                let full = root.join(pattern);
                let bad = |e: String| KcompError::param(format!("values `{pattern}`"), e);
                let paths = glob::glob(&full.to_string_lossy())
                    .map_err(|e| bad(format!("not a valid glob pattern: {e}")))?;
                let mut found: Vec<String> = Vec::new();
                for path in paths {
                    let path = path.map_err(|e| bad(e.to_string()))?;
                    if !path.is_dir() {
                        continue;
                    }
                    let rel = path.strip_prefix(&root).unwrap_or(&path);
                    found.push(rel.to_string_lossy().into_owned());
                }
                if found.is_empty() {
                    return Err(bad(format!("matches no folder under `{}`", root.display())));
                }
                found.sort();
                values.extend(found.into_iter().map(toml::Value::String));
            }
            fam.values = values;
        }
        Ok(())
    }

    /// The seeds.
    pub fn seed_values(&self) -> Result<Vec<u64>> {
        let seeds = match (&self.seeds, &self.seed_list) {
            (Some(_), Some(_)) => {
                return Err(KcompError::param(
                    "seeds",
                    "give either `seeds` or `seed_list`, not both",
                ));
            }
            (Some(n), None) if (1..=10_000).contains(n) => (0..*n).collect(),
            (None, Some(list)) if !list.is_empty() => list.clone(),
            _ => {
                return Err(KcompError::param(
                    "seeds",
                    "give `seeds = N` (1..=10000) or a non-empty `seed_list`",
                ));
            }
        };
        no_duplicates("seed_list", &seeds)?;
        Ok(seeds)
    }

    /// Checks everything that can be checked without generating data: seeds, estimator names,
    /// families (kinds, parameters, duplicate values) and every planned generator setting.
    pub fn validate(&self) -> Result<()> {
        self.seed_values()?;
        self.validate_estimators()?;
        if self.families.is_empty() {
            return Err(KcompError::param(
                "family",
                "define at least one [[family]]",
            ));
        }
        let labels: Vec<String> = self.families.iter().map(FamilySpec::label).collect();
        // A family's label names its folder under the output folder.
        for l in &labels {
            crate::io::names::check_component("family.name", l)?;
        }
        no_duplicates("family.name", &labels)?;
        // Files do not change with the seed: more seeds would count each dataset repeatedly.
        if self.families.iter().any(|f| f.kind == "files") && self.seed_values()?.len() > 1 {
            return Err(KcompError::param(
                "seeds",
                "a files family reads the same data for every seed: use seeds = 1",
            ));
        }
        if !(1..=1_000_000).contains(&self.bootstrap_resamples) {
            return Err(KcompError::param(
                "bootstrap_resamples",
                "must be in 1..=1000000",
            ));
        }
        for family in &self.families {
            let label = family.label();
            if family.values.is_empty() {
                return Err(KcompError::param(
                    format!("family {label}: values"),
                    "list at least one value",
                ));
            }
            no_duplicates(&format!("family {label}: values"), &family.values)?;
            // A value names its saved result and its rows in the tables: two values with one
            // name (a `files` family's two datasets named alike, or names equal once made file
            // names) would share one file and one label.
            let mut seen: Vec<(String, &toml::Value)> = Vec::new();
            for value in &family.values {
                let text = super::run::value_text(value);
                let file = crate::sweeps::engine::safe_file_name(&text);
                if let Some((_, other)) = seen.iter().find(|(f, _)| *f == file) {
                    let name = |v: &toml::Value| {
                        crate::io::names::terminal(&super::run::value_text(v)).into_owned()
                    };
                    return Err(KcompError::param(
                        format!("family {label}: values"),
                        format!(
                            "`{}` and `{}` would be saved under one name (`{file}`); give each \
                             dataset its own `name`",
                            name(other),
                            name(value)
                        ),
                    ));
                }
                seen.push((file, value));
            }
            for value in &family.values {
                super::family::check(family, value)
                    .map_err(|e| KcompError::param(format!("family {label}"), e.to_string()))?;
            }
        }
        Ok(())
    }

    /// Checks the estimator list and the estimators' settings (also on one dataset).
    pub fn validate_estimators(&self) -> Result<()> {
        if self.estimators.is_empty() {
            return Err(KcompError::param(
                "estimators",
                "list at least one estimator",
            ));
        }
        no_duplicates("estimators", &self.estimators)?;
        self.tre.validate()?;
        if self.estimators.iter().any(|e| e == "requential") {
            self.requential.validate()?;
        }
        for name in &self.estimators {
            super::registry::check_name(name)?;
        }
        if self.estimators.iter().any(|e| e == "llm_program") {
            super::registry::build("llm_program", self)?;
        }
        if !(self.prequential.val_fraction > 0.0 && self.prequential.val_fraction < 0.5) {
            return Err(KcompError::param(
                "prequential.val_fraction",
                "must be in (0, 0.5)",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
seeds = 2
estimators = ["exact", "topsim"]
[[family]]
kind = "lookup"
parameter = "ngram"
values = [1, 2]
[family.params]
samples = 50
length = 4
dim = 8
"#;

    #[test]
    fn good_config_validates() {
        let c = PanelConfig::from_toml("t.toml", GOOD).unwrap();
        assert_eq!(c.seed_values().unwrap(), vec![0, 1]);
        assert_eq!(c.families[0].label(), "lookup-ngram");
        // Estimator options: the EGG topsim distances and the TRE variants.
        let text = format!(
            "{GOOD}[topsim]\nw_distance = \"jaccard\"\nz_distance = \"hamming\"\n\
             [tre]\ncomposition = \"linear\"\nerror = \"cosine\"\noptimizer = \"rmsprop\"\n"
        );
        let c = PanelConfig::from_toml("t.toml", &text).unwrap();
        use crate::estimators::topsim::{WDistance, ZDistance};
        use crate::estimators::tre::{Composition, Optimizer, TreError};
        assert_eq!(c.topsim.w_distance, WDistance::Jaccard);
        assert_eq!(c.topsim.z_distance, ZDistance::Hamming);
        assert_eq!(c.tre.composition, Composition::Linear);
        assert_eq!(c.tre.error, TreError::Cosine);
        assert_eq!(c.tre.optimizer, Optimizer::Rmsprop);
        let est = super::super::registry::build("tre", &c).unwrap();
        assert_eq!(est.name(), "tre");
        let est = super::super::registry::build("topsim_normalised_edit", &c).unwrap();
        assert_eq!(est.name(), "topsim_normalised_edit");
    }

    #[test]
    fn errors_name_file_and_field() {
        for (bad, needle) in [
            (
                GOOD.replace("values = [1, 2]", "values = [1, 1]"),
                "listed twice",
            ),
            (
                GOOD.replace("seeds = 2", "seed_list = [0, 0]"),
                "listed twice",
            ),
            (GOOD.replace("\"topsim\"", "\"nope\""), "nope"),
            (GOOD.replace("dim = 8", "dimm = 8"), "dimm"),
            (GOOD.replace("length = 4", "ngram = 4"), "ngram"),
            (GOOD.replace("values = [1, 2]", "values = [3]"), "ngram"),
            (format!("{GOOD}[tre]\nerror = \"l2\"\n"), "l2"),
            (format!("{GOOD}[tre]\nlr = -1.0\n"), "tre.lr"),
            (
                format!("{GOOD}[topsim]\nw_distance = \"jacard\"\n"),
                "jacard",
            ),
        ] {
            let e = PanelConfig::from_toml("t.toml", &bad)
                .unwrap_err()
                .to_string();
            assert!(e.contains("t.toml") && e.contains(needle), "{needle}: {e}");
        }
    }
}
