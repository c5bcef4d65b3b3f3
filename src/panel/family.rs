//! Dataset families of a panel: a generator's parameters merged from the family's fixed
//! `params`, the swept parameter's value and the seed, turned into one [`Dataset`].

use crate::dataset::Dataset;
use crate::datasets::grammar::{self, GrammarParams};
use crate::datasets::language_system::LanguageSystemConfig;
use crate::datasets::lookup_table::{self, LookupParams};
use crate::datasets::protocols::ProtocolParams;
use crate::datasets::string_grid::dataset::GridSource;
use crate::datasets::string_grid::{GridSpec, Holistic, Setting};
use crate::error::{KcompError, Result};

use super::config::FamilySpec;

/// The generator settings of one dataset: fixed params, the swept value and the seed.
fn merged(family: &FamilySpec, value: &toml::Value, seed: u64) -> Result<toml::Table> {
    if family.params.contains_key("seed") || family.parameter == "seed" {
        return Err(KcompError::param(
            "params.seed",
            "seeds come from `seeds`/`seed_list`",
        ));
    }
    if family.params.contains_key(&family.parameter) {
        return Err(KcompError::param(
            format!("params.{}", family.parameter),
            "is the swept parameter; it cannot also be fixed",
        ));
    }
    let mut table = family.params.clone();
    table.insert(family.parameter.clone(), value.clone());
    table.insert("seed".into(), toml::Value::Integer(seed as i64));
    Ok(table)
}

fn parse<T: serde::de::DeserializeOwned>(table: toml::Table) -> Result<T> {
    table
        .try_into()
        .map_err(|e: toml::de::Error| KcompError::param("params", e.message().to_string()))
}

/// Checks a family's settings for one value without generating data.
pub fn check(family: &FamilySpec, value: &toml::Value) -> Result<()> {
    let table = merged(family, value, 0)?;
    match family.kind.as_str() {
        "lookup" => parse::<LookupParams>(table)?.validate(),
        "grammar" => parse::<GrammarParams>(table)?.validate(),
        "language" => parse::<LanguageSystemConfig>(table)?.validate().map(|_| ()),
        "grid" => parse::<GridFamilyParams>(table)?.spec().map(|_| ()),
        "protocol" => parse::<ProtocolParams>(table)?.validate(),
        other => Err(KcompError::param(
            "kind",
            format!(
                "unknown family kind `{other}` (expected lookup, grammar, language, protocol or grid)"
            ),
        )),
    }
}

/// Generates the dataset of one (value, seed) of a family.
pub fn generate(family: &FamilySpec, value: &toml::Value, seed: u64) -> Result<Dataset> {
    let table = merged(family, value, seed)?;
    match family.kind.as_str() {
        "lookup" => lookup_table::generate(&parse::<LookupParams>(table)?)?.to_dataset(),
        "grammar" => grammar::generate(&parse::<GrammarParams>(table)?)?.to_dataset(),
        "language" => parse::<LanguageSystemConfig>(table)?.dataset(),
        "grid" => parse::<GridFamilyParams>(table)?.dataset(),
        "protocol" => parse::<ProtocolParams>(table)?.dataset(),
        other => Err(KcompError::param(
            "kind",
            format!("unknown family kind `{other}`"),
        )),
    }
}

/// Settings of one string-to-grid dataset (seed 001's generator; one record).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
struct GridFamilyParams {
    /// Layout: h, v, b, r, hr, h-index-shuffle or holistic.
    setting: String,
    positions: usize,
    letters: usize,
    side: usize,
    /// Samples of the record (at most letters^positions; all of them by default).
    samples: Option<usize>,
    complementary: bool,
    /// Fraction of the inputs that get an arbitrary grid.
    holistic_fraction: f64,
    seed: u64,
}

impl Default for GridFamilyParams {
    fn default() -> Self {
        let spec = GridSpec::default();
        GridFamilyParams {
            setting: "h".into(),
            positions: spec.positions,
            letters: spec.letters,
            side: spec.side,
            samples: None,
            complementary: spec.complementary,
            holistic_fraction: 0.0,
            seed: 0,
        }
    }
}

impl GridFamilyParams {
    fn spec(&self) -> Result<(GridSpec, Setting, Holistic)> {
        let setting = Setting::parse(&self.setting)?;
        let inputs = u32::try_from(self.positions)
            .ok()
            .and_then(|k| self.letters.checked_pow(k))
            .filter(|&n| n <= 1 << 20)
            .ok_or_else(|| {
                KcompError::param("positions", "letters^positions must be at most 2^20")
            })?;
        let spec = GridSpec {
            positions: self.positions,
            letters: self.letters,
            side: self.side,
            samples: self.samples.unwrap_or(inputs),
            complementary: self.complementary,
        };
        spec.validate(setting)?;
        let holistic = Holistic {
            fraction: self.holistic_fraction,
            seed: self.seed,
        };
        holistic.validate()?;
        Ok((spec, setting, holistic))
    }

    fn dataset(&self) -> Result<Dataset> {
        let (spec, setting, holistic) = self.spec()?;
        let seed = i64::try_from(self.seed)
            .map_err(|_| KcompError::param("seed", "must be below 2^63"))?;
        let records = spec.generate_programs(setting, 1, seed, holistic)?;
        let source = GridSource {
            setting,
            seed,
            record: 0,
            holistic,
        };
        records[0].to_dataset(&spec, &source)
    }
}
