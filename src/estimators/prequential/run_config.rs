//! One prequential run as a researcher configures it: a TOML file (`[language]` or `[files]`,
//! `[prequential]`, `[output]`) with command-line overrides, resolved once into a checked
//! [`ConfigFile`]; the data it describes; the settings that determine its numbers (saved as
//! `config.toml` beside the outputs, compared for `--resume` and before overwriting a folder).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::{self, Shape, Shortcut, ShortcutTable};
use crate::dataset::{Targets, TokenData};
use crate::datasets::language_system::LanguageSystemConfig;
use crate::error::{KcompError, Result};
use crate::io::user_data::load_w_and_z;
use crate::io::w_input::{WFormat, WInfo, WOptions};

use super::code::{progress_bar, validate};
use super::report::{to_text, write_csv, write_json, write_png};
use super::{PrequentialConfig, PrequentialResult, Scheme, language_compositionality};

/// User data files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesConfig {
    /// W: integer tokens (.npy, .csv or .jsonl; rows of different lengths are padded), one
    /// row per sample, or sentences (.txt), one per line.
    pub w: PathBuf,
    /// Z: integer attributes, or float vectors with `precision`.
    pub z: PathBuf,
    /// Grid spacing for continuous Z.
    pub precision: Option<f64>,
    /// How W is read (default: by its extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_format: Option<WFormat>,
    /// Tokeniser of sentence W: words (default), chars or a tokenizer.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokeniser: Option<String>,
    /// Keep the case of sentences.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_case: bool,
}

/// Output settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Directory for config.toml, result.json, curve.csv and curve.png.
    pub dir: Option<PathBuf>,
}

/// The TOML configuration file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Free text that starts the plot title (the run's settings follow it).
    pub title: Option<String>,
    /// A generated language system (used unless `files` is given).
    pub language: Option<LanguageSystemConfig>,
    /// User data.
    pub files: Option<FilesConfig>,
    /// The prequential protocol ([`resolve`] makes it the online scheme unless `scheme` or a
    /// reference-only key is set: see [`super::code::settle_scheme`]).
    #[serde(default)]
    pub prequential: PrequentialConfig,
    /// Outputs.
    #[serde(default)]
    pub output: OutputConfig,
}

const fn flag(flag: &'static str, key: &'static str, help: &'static str) -> Shortcut {
    Shortcut {
        flag,
        key,
        help,
        shape: Shape::Value,
    }
}

const fn shaped(
    flag: &'static str,
    key: &'static str,
    help: &'static str,
    shape: Shape,
) -> Shortcut {
    Shortcut {
        flag,
        key,
        help,
        shape,
    }
}

/// The flags of `kcomp prequential`, each a shortcut for one configuration key (any other key:
/// `--set KEY=VALUE`). Defaults live only in the configuration types.
pub const SHORTCUTS: &[Shortcut] = &[
    shaped(
        "w",
        "files.w",
        "W file: integer tokens (.npy, .csv, .jsonl; ragged rows are padded) or sentences \
         (.txt, one per line); needs --z",
        Shape::Text,
    ),
    shaped(
        "w-format",
        "files.w_format",
        "How --w is read: auto (by extension), npy, csv, jsonl or text (sentences)",
        Shape::Text,
    ),
    shaped(
        "tokeniser",
        "files.tokeniser",
        "Tokeniser of sentence W: words (default: Unicode lowercase, UAX #29 word boundaries, \
         each punctuation character a token), chars (grapheme clusters) or a tokenizer.json",
        Shape::Text,
    ),
    shaped(
        "keep-case",
        "files.keep_case",
        "Keep the case of sentence W (words and chars lowercase by default)",
        Shape::Switch,
    ),
    shaped(
        "z",
        "files.z",
        "Z file: integer attributes, or floats with --precision",
        Shape::Text,
    ),
    flag(
        "precision",
        "files.precision",
        "Grid spacing (precision) of continuous Z",
    ),
    flag(
        "holistic-fraction",
        "language.holistic_fraction",
        "Holistic fraction h of a generated language",
    ),
    flag(
        "language-seed",
        "language.seed",
        "Seed of a generated language",
    ),
    flag(
        "synonyms",
        "language.synonyms",
        "Synonyms per attribute value of a generated language",
    ),
    flag(
        "word-order",
        "language.word_order",
        "Word order of a generated language: fixed, permuted or free",
    ),
    flag(
        "protocol",
        "prequential.scheme",
        "Coding scheme: online (every row; a switching mixture of learners) or reference (the \
         published block-wise protocol, bit for bit). Default online; the reference-only \
         settings (--val-size, schedule, model, training, --warm-start, --backend) need \
         --protocol reference (an error otherwise)",
    ),
    shaped(
        "learners",
        "prequential.online.learners",
        "Learners of the online scheme, comma-separated: marginal, objects, ngram0..ngram3, \
         rules, linear1, linear2, sparse (or sparse:words:bigrams:positions:position-bigrams:\
         ridge=R), tree, mlp-linear, mlp256, gru (default: marginal, objects, ngram3, rules, \
         linear1, linear2, sparse, mlp-linear, mlp256, tree; those that apply to the data run, \
         the others are reported as skipped with the reason)",
        Shape::Names,
    ),
    flag(
        "pad",
        "prequential.online.pad",
        "Padding token of variable-length messages (W padded at the end; for --w, an id of \
         the file): the online scheme adds a GRU over the message with this padding mask. \
         Ragged or sentence W is padded by kcomp with its own token without this flag",
    ),
    flag(
        "seed",
        "prequential.seed",
        "Seed of the ordering and of the models",
    ),
    flag(
        "ordering",
        "prequential.ordering",
        "Row ordering: random or grouped (by object). The default, grouped, is the reference \
         protocol's order; the online scheme codes grouped rows in a seeded random order (a \
         code length must not learn which rows share an object from their order)",
    ),
    flag(
        "val-size",
        "prequential.val_size",
        "Validation rows, never encoded (default: 1/8 of the rows, at most 400)",
    ),
    shaped(
        "increment",
        "prequential.schedule",
        "Fixed-increment schedule MIN,STEP",
        Shape::Tagged {
            kind: "increment",
            fields: &["min", "step"],
        },
    ),
    shaped(
        "log-schedule",
        "prequential.schedule",
        "Log-spaced schedule MIN,N",
        Shape::Tagged {
            kind: "log",
            fields: &["min", "n"],
        },
    ),
    shaped(
        "fractions",
        "prequential.schedule",
        "Schedule as fractions of the encoded rows, e.g. 0.1,0.2,0.5",
        Shape::Tagged {
            kind: "fractions",
            fields: &["fractions"],
        },
    ),
    shaped(
        "hidden",
        "prequential.model.hidden",
        "Hidden layer widths, e.g. 256,256 (empty: linear)",
        Shape::List,
    ),
    flag("emb-dim", "prequential.model.emb_dim", "Embedding size"),
    flag("dropout", "prequential.model.dropout", "Dropout rate"),
    flag("lr", "prequential.train.lr", "Adam learning rate"),
    flag(
        "batch-size",
        "prequential.train.batch_size",
        "Mini-batch size",
    ),
    flag(
        "max-epochs",
        "prequential.train.max_epochs",
        "Maximum epochs per training",
    ),
    flag(
        "patience",
        "prequential.train.patience",
        "Early-stopping patience (epochs)",
    ),
    flag(
        "tolerance",
        "prequential.train.tolerance",
        "Early-stopping tolerance (nats per value)",
    ),
    flag(
        "lr-decay",
        "prequential.train.lr_decay",
        "Learning-rate factor after every --lr-patience epochs without improvement (reference \
         protocol only; default 1: constant)",
    ),
    flag(
        "lr-patience",
        "prequential.train.lr_patience",
        "Epochs without improvement before each learning-rate decay (reference protocol only; \
         default 0: never)",
    ),
    shaped(
        "warm-start",
        "prequential.warm_start",
        "Continue each chunk's model from the previous one (cheaper)",
        Shape::Switch,
    ),
    flag(
        "backend",
        "prequential.backend",
        "Model implementation: fast or burn",
    ),
    flag(
        "k-z",
        "prequential.k_z",
        "How K(Z) is obtained: analytic or prequential",
    ),
    flag(
        "threads",
        "prequential.threads",
        "Worker threads (0 = all cores); results do not depend on it",
    ),
    shaped(
        "out",
        "output.dir",
        "Output directory for config.toml, result.json, curve.csv and curve.png",
        Shape::Text,
    ),
];

/// The shortcut flags of `kcomp prequential` ([`SHORTCUTS`]).
#[derive(Debug, Clone)]
pub struct PrequentialFlags;

impl ShortcutTable for PrequentialFlags {
    const TABLE: &'static [Shortcut] = SHORTCUTS;

    /// The default from [`ConfigFile`] with a default language system and the online scheme;
    /// keys only the reference protocol reads say so.
    fn default_note(shortcut: &Shortcut) -> Option<String> {
        if shortcut.help.contains("default") {
            return None;
        }
        let defaults = ConfigFile {
            language: Some(LanguageSystemConfig::default()),
            prequential: super::code::online_default(),
            ..Default::default()
        };
        let table = toml::Table::try_from(&defaults).ok()?;
        let value = config::flag_text(&table, shortcut.key)?;
        let value = match shortcut.shape {
            // `--increment 50,50`: the tagged schedule names its kind by its flag.
            Shape::Tagged { kind, .. } => {
                let (default_kind, fields) = value.split_once(' ').unwrap_or((&value, ""));
                let flag = SHORTCUTS
                    .iter()
                    .find(|s| matches!(s.shape, Shape::Tagged { kind: k, .. } if k == default_kind))
                    .map_or(default_kind, |s| s.flag);
                match kind == default_kind {
                    true => fields.to_string(),
                    false => format!("--{flag} {fields}"),
                }
            }
            Shape::Switch => "off".to_string(),
            _ if value.is_empty() => "none".to_string(),
            _ => value,
        };
        let reference_only = shortcut
            .key
            .strip_prefix("prequential.")
            .and_then(|k| k.split('.').next())
            .is_some_and(|k| super::code::REFERENCE_KEYS.contains(&k));
        Some(match reference_only {
            true => format!("reference protocol only; default {value}"),
            false => format!("default {value}"),
        })
    }
}

/// A configuration resolved from a file and overrides.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub config: ConfigFile,
    /// Keys the command line set (flags and `--set`), in order.
    pub overridden: Vec<String>,
    /// `prequential.val_size` was left to its default (see [`default_val_size`]).
    pub val_size_default: bool,
}

/// Reads `path` (if any) and applies the shortcut flags, then the `--set` assignments.
pub fn resolve(
    path: Option<&Path>,
    flags: &[(&Shortcut, String)],
    sets: &[String],
) -> Result<Resolved> {
    let mut table = match path {
        Some(p) => config::read_table(p)?,
        None => toml::Table::new(),
    };
    let file_has_language = table.contains_key("language");
    let mut overridden = Vec::new();
    for (shortcut, text) in flags {
        shortcut.apply(&mut table, text)?;
        overridden.push(shortcut.key.to_string());
    }
    for assignment in sets {
        config::apply_assignment(&mut table, assignment)?;
        overridden.push(
            assignment
                .split('=')
                .next()
                .unwrap_or("")
                .trim()
                .to_string(),
        );
    }
    if let Some(files) = table.get("files").and_then(|f| f.as_table()) {
        if !files.contains_key("w") || !files.contains_key("z") {
            return Err(
                if files.contains_key("precision") && !files.contains_key("w") {
                    KcompError::param(
                        "precision",
                        "only continuous user data (--w/--z or [files]) has a precision",
                    )
                } else {
                    KcompError::param("w/z", "user data needs both W and Z (--w and --z)")
                },
            );
        }
        if table.contains_key("language") {
            let from_flags: Vec<&str> = overridden
                .iter()
                .filter_map(|k| k.strip_prefix("language."))
                .collect();
            return Err(match (file_has_language, from_flags.first()) {
                (false, Some(first)) => KcompError::param(
                    *first,
                    "language-system settings do not apply to user files",
                ),
                _ => KcompError::param(
                    "language",
                    "the config has both [language] and [files]: the language would be ignored",
                ),
            });
        }
    } else if !table.contains_key("language") {
        table.insert("language".into(), toml::Value::Table(toml::Table::new()));
    }
    if let Some(p) = table
        .entry("prequential")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
    {
        super::code::settle_scheme(p).map_err(|key| {
            // Name the flag that set the key when a flag did, else the key path.
            let prefix = format!("prequential.{key}");
            let name = flags
                .iter()
                .rev()
                .find(|(s, _)| s.key == prefix || s.key.starts_with(&format!("{prefix}.")))
                .map_or(prefix.clone(), |(s, _)| format!("--{}", s.flag));
            KcompError::param(name, super::code::REFERENCE_ONLY)
        })?;
    }
    let val_size_default = !config::has_key(&table, "prequential.val_size");
    let origin = path.map_or("config".to_string(), |p| p.display().to_string());
    let config: ConfigFile = config::from_table(table, &origin)?;
    // The online scheme encodes every row: a --val-size given with it would be ignored.
    if config.prequential.scheme == super::code::Scheme::Online
        && overridden.iter().any(|k| k == "prequential.val_size")
    {
        return Err(KcompError::param(
            "val_size",
            "is read only by the reference protocol; the online scheme encodes every row",
        ));
    }
    Ok(Resolved {
        config,
        overridden,
        val_size_default,
    })
}

/// The default validation set: 1/8 of the rows, at most 400 (the reference's 400 of 3,200).
pub fn default_val_size(rows: usize) -> usize {
    (rows / 8).clamp(1, 400)
}

impl Resolved {
    /// Sets the default `val_size` for `rows` rows when the configuration left it open; returns
    /// a line saying what was chosen.
    pub fn settle_val_size(&mut self, rows: usize) -> Option<String> {
        // The online scheme encodes every row: it has no validation set.
        if !self.val_size_default || self.config.prequential.scheme == Scheme::Online {
            return None;
        }
        let v = default_val_size(rows);
        self.config.prequential.val_size = v;
        self.val_size_default = false;
        Some(format!(
            "val_size = {v} of {rows} rows (default: 1/8, at most 400; --val-size to choose)"
        ))
    }
}

/// A single (not swept) run, ready to train: data loaded, settings checked.
pub struct SingleRun {
    pub config: ConfigFile,
    w: TokenData,
    z: Targets,
    /// The validation-set size chosen by default, to tell before training.
    pub note: Option<String>,
    /// How a user's W was read (dense ids, tokeniser, padding).
    pub w_info: Option<WInfo>,
}

impl Resolved {
    /// Loads and checks a single run. `seeds` and `resume` belong to sweeps; an output folder
    /// holding a run with other settings is refused unless `force`.
    pub fn single_run(
        mut self,
        force: bool,
        seeds: Option<u64>,
        resume: bool,
    ) -> Result<SingleRun> {
        for (set, name) in [(seeds.is_some(), "seeds"), (resume, "resume")] {
            if set {
                return Err(KcompError::param(name, "only applies to a --sweep-h sweep"));
            }
        }
        let (w, z, w_info) = self.config.load_data_read()?;
        let note = self.settle_val_size(w.n);
        validate(&w, &z, &self.config.prequential)?;
        if let Some(dir) = &self.config.output.dir {
            check_overwrite(&self.config, dir, force)?;
        }
        Ok(SingleRun {
            config: self.config,
            w,
            z,
            note,
            w_info,
        })
    }
}

impl SingleRun {
    /// Trains (with a progress bar if `progress`) and writes the outputs, if a folder is set.
    pub fn run(&self, progress: bool) -> Result<PrequentialResult> {
        // One run per output folder, held from the start (a second run stops at once).
        let _lock = match &self.config.output.dir {
            Some(dir) => Some(crate::io::files::lock_dir(dir)?),
            None => None,
        };
        let pb = progress_bar(progress, self.config.prequential.scheme);
        let r = language_compositionality(&self.w, &self.z, &self.config.prequential, Some(&pb))?;
        pb.finish_and_clear();
        if let Some(dir) = &self.config.output.dir {
            write_outputs(&r, &self.config, dir)?;
            if let Some(info) = &self.w_info
                && (info.remapped || info.pad_source.is_some())
            {
                crate::io::files::atomic_write(
                    &dir.join("w_vocabulary.csv"),
                    &info.vocabulary_csv(&self.w)?,
                )?;
            }
        }
        Ok(r)
    }

    /// The text `kcomp prequential` prints for the run's result.
    pub fn render(&self, r: &PrequentialResult) -> String {
        let mut text = to_text(r, &self.config.title());
        for n in self.w_info.iter().flat_map(|i| i.notes()) {
            text += &format!("note (W): {n}\n");
        }
        if let Some(dir) = &self.config.output.dir {
            text += &format!("outputs in          {}\n", dir.display());
        }
        text
    }
}

impl ConfigFile {
    /// Builds the data the config describes.
    pub fn load_data(&self) -> Result<(TokenData, Targets)> {
        self.load_data_read().map(|(w, z, _)| (w, z))
    }

    /// [`ConfigFile::load_data`] with how a user's W was read. The padding token of the
    /// online scheme (`pad`) names an id of the user's file: it is applied while W is read
    /// (the learners then take W's dense id).
    pub fn load_data_read(&self) -> Result<(TokenData, Targets, Option<WInfo>)> {
        match (&self.files, &self.language) {
            (Some(f), _) => {
                let options = WOptions::from_flags(
                    f.w_format,
                    f.tokeniser.as_deref(),
                    f.keep_case,
                    self.prequential.online.pad.map(i64::from),
                )?;
                let (w, z, info) = load_w_and_z(&f.w, &options, &f.z, f.precision)?;
                Ok((w, z, Some(info)))
            }
            (None, language) => {
                let ls = language.clone().unwrap_or_default().generate()?;
                Ok((ls.w, ls.z, None))
            }
        }
    }

    /// The settings that determine a run's numbers, as TOML: the configuration without the
    /// output folder, the title and the thread count (results do not depend on them).
    pub fn fingerprint(&self) -> Result<String> {
        let mut c = self.clone();
        c.title = None;
        c.output = OutputConfig::default();
        c.prequential.threads = 0;
        let err = |e: String| KcompError::Other(format!("cannot serialise the configuration: {e}"));
        let mut table = toml::Table::try_from(&c).map_err(|e| err(e.to_string()))?;
        super::code::with_scheme_named(&mut table, &["prequential"]);
        toml::to_string(&table).map_err(|e| err(e.to_string()))
    }

    /// A title from the run's own settings (after the config's `title`, if any).
    pub fn title(&self) -> String {
        let p = &self.prequential;
        let what = match (&self.files, &self.language) {
            (Some(f), _) => files_title(&f.w, &f.z),
            (None, l) => {
                let l = l.clone().unwrap_or_default();
                format!(
                    "language system h = {}, {} x {} values, language seed {}",
                    l.holistic_fraction, l.n_attr, l.n_vals, l.seed
                )
            }
        };
        let run = match p.scheme {
            Scheme::Reference => format!(
                "{what}; model seed {}, reference protocol, {} validation rows",
                p.seed, p.val_size
            ),
            Scheme::Online => format!("{what}; model seed {}, online scheme", p.seed),
        };
        match &self.title {
            Some(t) => format!("{t}: {run}"),
            None => run,
        }
    }
}

/// "Z given W in FOLDER" for files named W.* and Z.* side by side, else "Z-FILE given W-FILE".
fn files_title(w: &Path, z: &Path) -> String {
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let folder = |p: &Path| p.parent().map(|d| d.to_path_buf());
    if stem(w).as_deref() == Some("W") && stem(z).as_deref() == Some("Z") && folder(w) == folder(z)
    {
        return match w.parent().and_then(|d| d.file_name()) {
            Some(d) => format!("Z given W in {}", d.to_string_lossy()),
            None => "Z given W".to_string(),
        };
    }
    format!("{} given {}", file_name(z), file_name(w))
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Whether a stored fingerprint and ours hold the same settings. Folders written before
/// fingerprints named the scheme left out `reference` (the default then).
fn same_settings(stored: &str, ours: &str) -> bool {
    if stored == ours {
        return true;
    }
    match (config::parse_table(stored), config::parse_table(ours)) {
        (Ok(mut old), Ok(new)) => {
            super::code::with_scheme_named(&mut old, &["prequential"]);
            old == new
        }
        _ => false,
    }
}

/// A file of an earlier run: a regular file only (a FIFO planted in the output folder cannot
/// block `--resume`), read whole up to the text-file limit.
fn read_stored(path: &Path) -> Result<String> {
    crate::io::limits::read_text(path)
}

/// A finished run in `dir` made with the same settings, if there is one.
pub fn finished_run(cfg: &ConfigFile, dir: &Path) -> Result<Option<PrequentialResult>> {
    let Ok(stored) = read_stored(&dir.join("config.toml")) else {
        return Ok(None);
    };
    if !same_settings(&stored, &cfg.fingerprint()?) {
        return Ok(None);
    }
    let Ok(text) = read_stored(&dir.join("result.json")) else {
        return Ok(None);
    };
    Ok(serde_json::from_str(&text).ok())
}

/// Refuses to overwrite, in `dir`, a run made with other settings (unless `force`): the error
/// names the settings that differ.
pub fn check_overwrite(cfg: &ConfigFile, dir: &Path, force: bool) -> Result<()> {
    let Ok(stored) = read_stored(&dir.join("config.toml")) else {
        // No run of ours there: only an empty (or absent) folder is ours to fill.
        if !force && crate::io::out_dir::occupied(dir)? {
            return Err(crate::io::out_dir::foreign(dir));
        }
        return Ok(());
    };
    let ours = cfg.fingerprint()?;
    if force || same_settings(&stored, &ours) {
        return Ok(());
    }
    let changed = match (config::parse_table(&stored), config::parse_table(&ours)) {
        (Ok(old), Ok(new)) => config::differences(&old, &new, 3).join(", "),
        _ => String::new(),
    };
    Err(KcompError::param(
        "out",
        format!(
            "{} holds a run with other settings ({changed}); choose another --out, or --force to overwrite it",
            dir.display()
        ),
    ))
}

/// Writes config.toml (the settings that determine the numbers), result.json, curve.csv and
/// curve.png into `dir`.
pub fn write_outputs(r: &PrequentialResult, cfg: &ConfigFile, dir: &Path) -> Result<()> {
    crate::io::files::create_dir_all(dir)?;
    let cfg_path = dir.join("config.toml");
    // result.json first, config.toml (the mark of a finished run for resume) after it; both
    // atomic.
    write_json(r, &dir.join("result.json"))?;
    crate::io::files::atomic_write(&cfg_path, cfg.fingerprint()?.as_bytes())?;
    write_csv(r, &dir.join("curve.csv"))?;
    write_png(r, &dir.join("curve.png"), &cfg.title())
}
