//! The sweep TOML format.
//!
//! ```toml
//! name = "lookup-sentence-length"   # output sub-folder and plot titles
//! generator = "lookup"              # "lookup" or "grammar"
//! parameter = "length"              # the swept parameter (any generator parameter)
//! values = [1, 2, 4, 8, 16, 32, 64] # its values (numbers or strings)
//! seeds = 10                        # seeds 0..seeds (or seed_list = [3, 7])
//! topsim = true                     # compute topological similarity (default true)
//!
//! [params]                          # fixed generator parameters (defaults otherwise)
//! vocab = 10
//! rng = "numpy"
//!
//! [topsim_config]                   # optional topological-similarity settings
//! correlation = "pearson"
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::datasets::grammar::GrammarParams;
use crate::datasets::lookup_table::LookupParams;
use crate::error::{KcompError, Result};
use crate::estimators::topsim::TopsimConfig;

use super::run::SynthSpec;

/// A sweep: one parameter over a list of values, times seeds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepConfig {
    /// Name (output sub-folder, plot titles).
    pub name: String,
    /// "lookup" or "grammar".
    pub generator: String,
    /// The swept parameter.
    pub parameter: String,
    /// Its values.
    pub values: Vec<toml::Value>,
    /// Seeds `0..seeds`.
    #[serde(default)]
    pub seeds: Option<u64>,
    /// Explicit seeds (instead of `seeds`).
    #[serde(default)]
    pub seed_list: Option<Vec<u64>>,
    /// Compute topological similarity.
    #[serde(default = "default_true")]
    pub topsim: bool,
    /// Fixed generator parameters.
    #[serde(default)]
    pub params: toml::Table,
    /// Topological-similarity settings.
    #[serde(default)]
    pub topsim_config: TopsimConfig,
}

/// Most runs one sweep may plan.
pub const MAX_RUNS: usize = 100_000;

fn default_true() -> bool {
    true
}

/// One planned run: the value's label, the seed and the full spec.
#[derive(Debug, Clone)]
pub struct PlannedRun {
    /// The swept value as text.
    pub value: String,
    /// Index of the value in the config (for ordering and categorical plots).
    pub value_index: usize,
    /// The seed.
    pub seed: u64,
    /// Generator and parameters.
    pub spec: SynthSpec,
}

impl SweepConfig {
    /// Reads and validates a TOML file; errors name the file and the field.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = crate::io::limits::read_text(path)?;
        let config: SweepConfig =
            toml::from_str(&text).map_err(|e| KcompError::file(path, format!("{e}")))?;
        config
            .plan()
            .map_err(|e| KcompError::file(path, e.to_string()))?;
        Ok(config)
    }

    /// Parses a TOML string (for built-in configs).
    pub fn from_toml(name: &str, text: &str) -> Result<Self> {
        let config: SweepConfig =
            toml::from_str(text).map_err(|e| KcompError::file(name, format!("{e}")))?;
        config
            .plan()
            .map_err(|e| KcompError::file(name, e.to_string()))?;
        Ok(config)
    }

    /// The seeds of the sweep.
    pub fn seed_values(&self) -> Result<Vec<u64>> {
        match (&self.seeds, &self.seed_list) {
            (Some(_), Some(_)) => Err(KcompError::param(
                "seeds",
                "give either `seeds` or `seed_list`, not both",
            )),
            (Some(0), None) => Err(KcompError::param("seeds", "must be at least 1")),
            (Some(n), None) if *n > MAX_RUNS as u64 => Err(KcompError::param(
                "seeds",
                format!("{n} seeds is more than {MAX_RUNS} runs"),
            )),
            (Some(n), None) => Ok((0..*n).collect()),
            (None, Some(list)) if !list.is_empty() => {
                for (i, s) in list.iter().enumerate() {
                    if list[..i].contains(s) {
                        return Err(KcompError::param(
                            "seed_list",
                            format!("seed {s} is listed twice"),
                        ));
                    }
                }
                Ok(list.clone())
            }
            _ => Err(KcompError::param(
                "seeds",
                "give `seeds = N` or a non-empty `seed_list`",
            )),
        }
    }

    /// Expands the grid into runs (values outer, seeds inner), validating every spec.
    pub fn plan(&self) -> Result<Vec<PlannedRun>> {
        if self.values.is_empty() {
            return Err(KcompError::param("values", "must list at least one value"));
        }
        if self.params.contains_key("seed") || self.parameter == "seed" {
            return Err(KcompError::param(
                "params.seed",
                "seeds come from `seeds`/`seed_list`",
            ));
        }
        // The sweep's name is its folder under the output folder.
        crate::io::names::check_component("name", &self.name)?;
        // Counted before anything per value: a huge list is refused at once.
        if self.values.len() > MAX_RUNS {
            return Err(KcompError::param(
                "values",
                format!("{} values is more than {MAX_RUNS} runs", self.values.len()),
            ));
        }
        // Duplicates through a set of labels (linear; a pairwise scan is quadratic).
        let mut seen = std::collections::HashSet::new();
        for v in &self.values {
            if !seen.insert(value_label(v)) {
                return Err(KcompError::param(
                    "values",
                    format!("{} is listed twice", value_label(v)),
                ));
            }
        }
        if self.params.contains_key(&self.parameter) {
            return Err(KcompError::param(
                format!("params.{}", self.parameter),
                format!(
                    "`{}` is the swept parameter: its value comes from `values`, this one would be ignored",
                    self.parameter
                ),
            ));
        }
        if !self.topsim && self.topsim_config != TopsimConfig::default() {
            return Err(KcompError::param(
                "topsim_config",
                "set, but `topsim = false`: it would be ignored",
            ));
        }
        let seeds = self.seed_values()?;
        if seeds.len().saturating_mul(self.values.len()) > MAX_RUNS {
            return Err(KcompError::param(
                "seeds",
                format!(
                    "{} values x {} seeds is more than {MAX_RUNS} runs",
                    self.values.len(),
                    seeds.len()
                ),
            ));
        }
        let mut runs = Vec::new();
        for (value_index, value) in self.values.iter().enumerate() {
            for (seed_index, &seed) in seeds.iter().enumerate() {
                // Validity does not depend on the seed: check each value once.
                let first = seed_index == 0;
                let mut table = self.params.clone();
                table.insert(self.parameter.clone(), value.clone());
                table.insert("seed".into(), toml::Value::Integer(seed as i64));
                let spec = match self.generator.as_str() {
                    "lookup" => {
                        let p: LookupParams = table
                            .try_into()
                            .map_err(|e| KcompError::param("params", format!("{e}")))?;
                        if first {
                            p.validate()?;
                        }
                        SynthSpec::Lookup(p)
                    }
                    "grammar" => {
                        let p: GrammarParams = table
                            .try_into()
                            .map_err(|e| KcompError::param("params", format!("{e}")))?;
                        if first {
                            p.validate()?;
                        }
                        SynthSpec::Grammar(p)
                    }
                    other => {
                        return Err(KcompError::param(
                            "generator",
                            format!("unknown generator `{other}` (expected lookup or grammar)"),
                        ));
                    }
                };
                if self.topsim && first {
                    let (n, m, d) = spec.shape();
                    crate::datasets::validate::memory(
                        "topological similarity",
                        &[(
                            "topsim_config.max_pairs",
                            crate::datasets::validate::topsim_bytes(
                                n,
                                m,
                                d,
                                self.topsim_config.max_pairs,
                            ),
                        )],
                    )?;
                }
                runs.push(PlannedRun {
                    value: value_label(value),
                    value_index,
                    seed,
                    spec,
                });
            }
        }
        Ok(runs)
    }
}

/// A value as text: strings without quotes, numbers as written.
pub fn value_label(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
generator = "lookup"
parameter = "length"
values = [1, 2]
seeds = 3
[params]
vocab = 4
samples = 10
"#;

    #[test]
    fn plans_values_times_seeds() {
        let c = SweepConfig::from_toml("t.toml", GOOD).unwrap();
        let runs = c.plan().unwrap();
        assert_eq!(runs.len(), 6);
        assert_eq!(runs[4].value, "2");
        assert_eq!(runs[4].seed, 1);
    }

    #[test]
    fn errors_name_the_field() {
        let bad = GOOD.replace("vocab = 4", "vocabb = 4");
        let e = SweepConfig::from_toml("t.toml", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("vocabb") && e.contains("t.toml"), "{e}");
        let bad = GOOD.replace("values = [1, 2]", "values = [3]");
        let e = SweepConfig::from_toml("t.toml", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ngram") || e.contains("dim"), "{e}");
        let e = SweepConfig::from_toml("t.toml", "name = ")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.toml"), "{e}");
    }

    #[test]
    fn duplicates_and_ignored_settings_are_errors() {
        let err = |text: &str| {
            SweepConfig::from_toml("t.toml", text)
                .unwrap_err()
                .to_string()
        };
        let e = err(&GOOD.replace("seeds = 3", "seed_list = [0, 0, 1]"));
        assert!(e.contains("seed_list") && e.contains("twice"), "{e}");
        let e = err(&GOOD.replace("values = [1, 2]", "values = [1, 1, 2]"));
        assert!(e.contains("values") && e.contains("twice"), "{e}");
        let e = err(&GOOD.replace("vocab = 4", "vocab = 4\nlength = 4"));
        assert!(e.contains("params.length") && e.contains("ignored"), "{e}");
        let e = err(&GOOD.replace("seeds = 3", "seeds = 300000"));
        assert!(e.contains("runs"), "{e}");
        let e = err(&GOOD.replace(
            "seeds = 3",
            "seeds = 3\ntopsim = false\n[topsim_config]\nmax_pairs = 10",
        ));
        assert!(e.contains("topsim_config"), "{e}");
    }
}
