//! Dataset families of a panel: a generator's parameters merged from the family's fixed
//! `params`, the swept parameter's value and the seed, turned into one [`Dataset`].

use crate::dataset::Dataset;
use crate::datasets::grammar::{self, GrammarParams};
use crate::datasets::language_system::LanguageSystemConfig;
use crate::datasets::lookup_table::{self, LookupParams};
use crate::datasets::protocols::ProtocolParams;
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
        "protocol" => parse::<ProtocolParams>(table)?.dataset(),
        other => Err(KcompError::param(
            "kind",
            format!("unknown family kind `{other}`"),
        )),
    }
}
