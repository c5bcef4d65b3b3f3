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
use crate::generalisation::pcfgset::complexity::PcfgsetFamilyParams;

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
    if family.kind == "files" {
        return files_of(family, value).map(|_| ());
    }
    let table = merged(family, value, 0)?;
    match family.kind.as_str() {
        "lookup" => parse::<LookupParams>(table)?.validate(),
        "grammar" => parse::<GrammarParams>(table)?.validate(),
        "language" => parse::<LanguageSystemConfig>(table)?.validate().map(|_| ()),
        "grid" => parse::<GridFamilyParams>(table)?.spec().map(|_| ()),
        "protocol" => parse::<ProtocolParams>(table)?.validate(),
        "pcfgset" => parse::<PcfgsetFamilyParams>(table)?.validate(),
        other => Err(KcompError::param(
            "kind",
            format!(
                "unknown family kind `{other}` (expected lookup, grammar, language, protocol, grid, pcfgset or files)"
            ),
        )),
    }
}

/// Generates the dataset of one (value, seed) of a family.
pub fn generate(family: &FamilySpec, value: &toml::Value, seed: u64) -> Result<Dataset> {
    if family.kind == "files" {
        let (w, z, precision) = files_of(family, value)?;
        let options = files_params(family)?.w_options()?;
        let (wd, zd, info) = crate::io::user_data::load_w_and_z(&w, &options, &z, precision)?;
        let files = vec![w.display().to_string(), z.display().to_string()];
        return super::single::user_dataset_read(wd, zd, files, Some(&info));
    }
    let table = merged(family, value, seed)?;
    match family.kind.as_str() {
        "lookup" => lookup_table::generate(&parse::<LookupParams>(table)?)?.to_dataset(),
        "grammar" => grammar::generate(&parse::<GrammarParams>(table)?)?.to_dataset(),
        "language" => parse::<LanguageSystemConfig>(table)?.dataset(),
        "grid" => parse::<GridFamilyParams>(table)?.dataset(),
        "protocol" => parse::<ProtocolParams>(table)?.dataset(),
        "pcfgset" => parse::<PcfgsetFamilyParams>(table)?.dataset(),
        other => Err(KcompError::param(
            "kind",
            format!("unknown family kind `{other}`"),
        )),
    }
}

/// Fixed settings of a `files` family (a researcher's own datasets).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FilesParams {
    /// Folder the values are relative to (default: the working directory).
    root: Option<std::path::PathBuf>,
    /// Grid spacing of continuous Z (as `compare --precision`).
    precision: Option<f64>,
    /// How W is read (as `compare --w-format`): auto, npy, csv, jsonl or text.
    w_format: Option<crate::io::w_input::WFormat>,
    /// Tokeniser of sentence W (as `compare --tokeniser`): words, chars or a tokenizer.json.
    tokeniser: Option<String>,
    /// Keep the case of sentences (as `compare --keep-case`).
    #[serde(default)]
    keep_case: bool,
    /// The padding token of an integer W (as `compare --pad`).
    pad: Option<i64>,
}

impl FilesParams {
    fn w_options(&self) -> Result<crate::io::w_input::WOptions> {
        crate::io::w_input::WOptions::from_flags(
            self.w_format,
            self.tokeniser.as_deref(),
            self.keep_case,
            self.pad,
        )
    }
}

fn files_params(family: &FamilySpec) -> Result<FilesParams> {
    parse(family.params.clone())
}

/// The W and Z files of one value of a `files` family: a folder holding `W.npy` and `Z.npy`
/// (or `.csv`, `.jsonl`), or an inline table `{ w = "...", z = "...", name = "..." }`. Both
/// files must exist.
fn files_of(
    family: &FamilySpec,
    value: &toml::Value,
) -> Result<(std::path::PathBuf, std::path::PathBuf, Option<f64>)> {
    let params: FilesParams = parse(family.params.clone())?;
    let root = params.root.unwrap_or_default();
    let find = |dir: &std::path::Path, stem: &str| {
        ["npy", "csv", "jsonl", "txt"]
            .iter()
            .map(|ext| dir.join(format!("{stem}.{ext}")))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                KcompError::file(
                    dir,
                    format!("no {stem}.npy, {stem}.csv, {stem}.jsonl or {stem}.txt here"),
                )
            })
    };
    let (w, z) = match value {
        toml::Value::String(folder) => {
            let dir = root.join(folder);
            (find(&dir, "W")?, find(&dir, "Z")?)
        }
        toml::Value::Table(t) => {
            for key in t.keys() {
                if !["w", "z", "name"].contains(&key.as_str()) {
                    return Err(KcompError::param(
                        format!("values.{key}"),
                        "a files value has keys w, z and name only",
                    ));
                }
            }
            let path = |key: &str| match t.get(key).and_then(|v| v.as_str()) {
                Some(p) if root.join(p).is_file() => Ok(root.join(p)),
                Some(p) => Err(KcompError::file(root.join(p), "not found")),
                None => Err(KcompError::param(
                    format!("values.{key}"),
                    "give the file's path as a string",
                )),
            };
            (path("w")?, path("z")?)
        }
        other => {
            return Err(KcompError::param(
                "values",
                format!(
                    "`{other}`: a files value is a folder (\"data/run1\") or {{ w = \"..\", z = \"..\" }}"
                ),
            ));
        }
    };
    Ok((w, z, params.precision))
}

/// Settings of one string-to-grid dataset (Xu et al.'s generator; one record).
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
