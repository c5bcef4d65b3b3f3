//! One dataset through a list of estimators (`kcomp compare --w --z` or `--grid`) and the
//! table it prints, and the K(Z) convention for user files: uniform over the observed
//! alphabets for discrete Z, the naive discretised-Gaussian code for continuous Z.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dataset::{Dataset, KzMethod, KzReference, Provenance, Targets, TokenData};
pub use crate::datasets::string_grid::dataset::record_dataset as grid_record_dataset;
use crate::error::{KcompError, Result};
use crate::estimators::interface::{EstimateRow, EstimateStatus, run_estimator};
use crate::estimators::prequential::naive::naive_bits;
use crate::io::user_data::load_w_and_z;
use crate::io::w_input::{WInfo, WOptions};
use crate::progress::WorkBar;
use crate::sweeps::summary::progress_bar;

use crate::estimators::topsim::TopsimConfig;
use crate::estimators::tre::TreConfig;

use super::config::{PanelConfig, PanelPrequential};
use super::registry;

/// A user's W and Z as a dataset with the user-data K(Z) convention.
pub fn user_dataset(w: TokenData, z: Targets, files: Vec<String>) -> Result<Dataset> {
    user_dataset_read(w, z, files, None)
}

/// [`user_dataset`] with how W was read (`info`), kept in the provenance (`w_input`) and said
/// under every result.
pub fn user_dataset_read(
    w: TokenData,
    z: Targets,
    files: Vec<String>,
    info: Option<&WInfo>,
) -> Result<Dataset> {
    let all: Vec<usize> = (0..z.n()).collect();
    let method = match z {
        Targets::Discrete { .. } => KzMethod::Uniform,
        Targets::Continuous { .. } => KzMethod::NaiveGaussian,
    };
    let bits = match &z {
        // Uniform over the values observed in the file (log2 of their number per cell), as
        // documented: not log2(max + 1), which one large value inflates (10^6 made C 10x) and
        // which charged a constant Z log2(2) per cell.
        Targets::Discrete { values, .. } => {
            let distinct = values
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            if distinct < 2 {
                return Err(KcompError::param(
                    "z",
                    "every value of Z is the same: K(Z) = 0 bits under the uniform code over \
                     the observed values, so C = K(Z)/K(Z|W) is undefined",
                ));
            }
            values.len() as f64 * (distinct as f64).log2()
        }
        Targets::Continuous { .. } => naive_bits(&z, &all),
    };
    let k_z = KzReference { bits, method };
    let mut provenance = Provenance {
        family: "user".into(),
        files,
        ..Provenance::default()
    };
    if let Some(info) = info {
        provenance.params.insert("w_input".into(), info.summary());
        provenance
            .params
            .insert("w_notes".into(), info.notes().into());
    }
    Dataset::new(w, z, provenance, k_z, None)
}

/// The dataset of `kcomp compare --grid FILE [--record I] [--setting S]` or
/// `--w W --z Z [--precision P]`.
pub fn single_dataset(
    grid: Option<(&Path, usize, Option<&str>)>,
    w_z: Option<(&Path, &Path)>,
    w_options: &WOptions,
    precision: Option<f64>,
) -> Result<Dataset> {
    if let Some((path, record, setting)) = grid {
        return grid_record_dataset(path, record, setting);
    }
    let Some((w_path, z_path)) = w_z else {
        return Err(KcompError::Other(
            "give a panel CONFIG.toml, --w FILE --z FILE or --grid FILE (see kcomp compare --help)"
                .into(),
        ));
    };
    let (w, z, info) = load_w_and_z(w_path, w_options, z_path, precision)?;
    let files = vec![w_path.display().to_string(), z_path.display().to_string()];
    user_dataset_read(w, z, files, Some(&info))
}

/// The prequential settings `kcomp compare --w --z` takes from flags.
#[derive(Debug, Clone, Default)]
pub struct PrequentialOverrides {
    /// The coding scheme (`--protocol`).
    pub scheme: Option<crate::estimators::prequential::Scheme>,
    /// The online scheme's learners by short name (`--learners`).
    pub learners: Option<Vec<String>>,
}

impl PrequentialOverrides {
    /// Applies the flags; an unknown learner name is an error naming it, and so is a flag
    /// the run would ignore: either flag when `estimators` lacks `prequential`, `--learners`
    /// under the reference protocol (one network per chunk, no learners).
    pub fn apply(
        &self,
        cfg: &mut crate::estimators::prequential::PrequentialConfig,
        estimators: &[String],
    ) -> Result<()> {
        use crate::estimators::prequential::code::Scheme;
        use crate::estimators::prequential::online::LearnerSpec;
        if !estimators.iter().any(|e| e == "prequential") {
            let given = [
                (self.scheme.is_some(), "protocol"),
                (self.learners.is_some(), "learners"),
            ];
            if let Some((_, name)) = given.iter().find(|(set, _)| *set) {
                return Err(crate::error::KcompError::param(
                    *name,
                    "configures the prequential estimator, which is not among --estimators; \
                     it would be ignored",
                ));
            }
        }
        if let Some(s) = self.scheme {
            cfg.scheme = s;
        }
        if self.learners.is_some() && cfg.scheme == Scheme::Reference {
            return Err(crate::error::KcompError::param(
                "learners",
                "the reference protocol trains one network per chunk and has no learners; \
                 --learners is for the online scheme (it would be ignored)",
            ));
        }
        if let Some(names) = &self.learners {
            cfg.online.learners = names
                .iter()
                .map(|n| {
                    LearnerSpec::parse(n.trim())
                        .map_err(|e| crate::error::KcompError::param("learners", e))
                })
                .collect::<Result<_>>()?;
            cfg.online.validate()?;
        }
        Ok(())
    }
}

/// The `--json` answer of a single-dataset comparison.
#[derive(Debug, Serialize)]
pub struct SingleComparison {
    /// Rows of the dataset (in `dataset` for JSON).
    #[serde(skip)]
    pub n: usize,
    pub dataset: serde_json::Value,
    pub k_z: KzReference,
    pub estimates: Vec<EstimateRow>,
    /// What a reader must know to compare the numbers with other runs (C grows with N, ...).
    pub notes: Vec<String>,
}

/// Estimator settings of a single-dataset comparison: the estimator sections of a panel
/// config (`[topsim]`, `[tre]`, `[bosdis]`, `[prequential]`, `estimators`, `llm_report`), read from
/// `--config FILE` and `--set KEY=VALUE`. Dataset keys (families, seeds) do not apply to one
/// dataset and are errors.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SingleSettings {
    pub estimators: Option<Vec<String>>,
    pub prequential: PanelPrequential,
    pub requential: crate::estimators::requential::RequentialConfig,
    pub bdm: crate::estimators::bdm::BdmConfig,
    pub topsim: TopsimConfig,
    pub tre: TreConfig,
    pub bosdis: crate::estimators::disentanglement::BosdisConfig,
    pub llm_report: Option<PathBuf>,
}

impl SingleSettings {
    /// Reads `file` (optional) and applies `sets` (`key.path=value`); errors name the file or
    /// `--set` and the key.
    pub fn load(file: Option<&Path>, sets: &[String]) -> Result<Self> {
        let mut table = match file {
            Some(path) => crate::config::read_table(path)?,
            None => toml::Table::new(),
        };
        for s in sets {
            crate::config::apply_assignment(&mut table, s)?;
        }
        let origin = match (file, sets.is_empty()) {
            (Some(p), true) => p.display().to_string(),
            (Some(p), false) => format!("{} with --set", p.display()),
            (None, _) => "--set".to_string(),
        };
        crate::config::from_table(table, &origin)
    }
}

/// Estimators run on one dataset only when named: learned_w trains a model per sentence space
/// for minutes, requential trains two learners per learner of prequential coding, bdm needs
/// the CTM tables of a pybdm installation.
pub const OPT_IN: [&str; 3] = ["learned_w", "requential", "bdm"];

/// The estimators and settings of a single-dataset comparison: `names` (else the settings'
/// list, else every estimator that can apply: llm_program only with a grid report; the
/// [`OPT_IN`] ones only when named), checked.
pub fn single_config(
    names: Option<Vec<String>>,
    llm_report: Option<PathBuf>,
    settings: SingleSettings,
) -> Result<PanelConfig> {
    let mut config = PanelConfig::single_dataset_defaults();
    let llm_report = llm_report.or(settings.llm_report);
    config.estimators = names.or(settings.estimators).unwrap_or_else(|| {
        registry::ESTIMATORS
            .iter()
            .filter(|e| **e != "llm_program" || llm_report.is_some())
            .filter(|e| !OPT_IN.contains(e))
            .map(|s| s.to_string())
            .collect()
    });
    config.llm_report = llm_report;
    config.prequential = settings.prequential;
    config.requential = settings.requential;
    config.bdm = settings.bdm;
    config.topsim = settings.topsim;
    config.tre = settings.tre;
    config.bosdis = settings.bosdis;
    config.validate_estimators()?;
    Ok(config)
}

/// `kcomp compare` on one dataset: `estimators` (default: all that apply), a progress bar
/// unless `quiet`.
pub fn compare_single(
    data: &Dataset,
    estimators: Option<Vec<String>>,
    llm_report: Option<PathBuf>,
    settings: SingleSettings,
    prequential: &PrequentialOverrides,
    quiet: bool,
) -> Result<SingleComparison> {
    let mut config = single_config(estimators, llm_report, settings)?;
    prequential.apply(&mut config.prequential.config, &config.estimators)?;
    let bar = progress_bar(config.estimators.len() as u64, "estimators", "compare");
    if quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let cmp = compare_one(data, &config.estimators, &config, &bar)?;
    bar.finish_and_clear();
    Ok(cmp)
}

impl fmt::Display for SingleComparison {
    /// The table of `kcomp compare` on one dataset (lengths in bits): one line per estimator
    /// that ran, the ones that do not apply to this data on one line per reason, then what a
    /// reader must know before comparing the numbers.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(
            f,
            "N = {}, K(Z) = {:.1} bits ({})",
            self.n,
            self.k_z.bits,
            self.k_z.method.describe()
        )?;
        // The name column fits the longest name (topsim_normalised_edit, ...).
        let w = self
            .estimates
            .iter()
            .map(|e| e.estimator.len())
            .max()
            .unwrap_or(0)
            .max(9);
        writeln!(
            f,
            "{:<w$} {:>12} {:>9} {:>14} {:>10} {:>7}  status",
            "estimator", "K(Z|W) bits", "C", "bits saved/row", "score", "s"
        )?;
        let num = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |x| format!("{x:.d$}"));
        let mut not_applicable: Vec<(&str, Vec<&str>)> = Vec::new();
        for e in &self.estimates {
            if let EstimateStatus::NotApplicable(reason) = &e.status {
                match not_applicable.iter_mut().find(|(r, _)| r == reason) {
                    Some((_, names)) => names.push(&e.estimator),
                    None => not_applicable.push((reason, vec![&e.estimator])),
                }
                continue;
            }
            writeln!(
                f,
                "{:<w$} {:>12} {:>9} {:>14} {:>10} {:>7.2}  {}",
                e.estimator,
                num(e.k_z_given_w_bits, 1),
                num(e.c, 3),
                num(e.bits_saved_per_row, 3),
                num(e.score, 4),
                e.seconds,
                e.status
            )?;
        }
        for (reason, names) in &not_applicable {
            writeln!(f, "{}: not applicable: {reason}", names.join(", "))?;
        }
        for note in &self.notes {
            writeln!(f, "{note}")?;
        }
        // Which scheme a prequential row used: the two give different numbers on one dataset.
        for e in &self.estimates {
            let scheme = match e.native.get("scheme").and_then(|s| s.as_str()) {
                Some("online") => "the online scheme (every row, a switching mixture of learners)",
                Some("reference") => {
                    "the reference protocol (a network retrained per chunk, Elmoznino et al.)"
                }
                _ => continue,
            };
            writeln!(f, "{}: {scheme}; --protocol to change", e.estimator)?;
        }
        // Which learner the online prequential code rests on (names are kcomp's own; a
        // padding token the rule learner read is said in a note, not in the name).
        for e in &self.estimates {
            let Some(serde_json::Value::Array(ls)) = e.native.get("learners") else {
                continue;
            };
            let parts: Vec<String> = ls
                .iter()
                .filter_map(|l| {
                    let name = l.get("name")?.as_str()?;
                    let name = name.split_once("+pad=").map_or(name, |(n, _)| n);
                    let share = l.get("share")?.as_f64()?;
                    Some(format!("{name} {:.1} %", 100.0 * share))
                })
                .collect();
            writeln!(
                f,
                "{}: share of the mixture's bits won by each learner: {}",
                e.estimator,
                parts.join(", ")
            )?;
        }
        // How W was read (dense ids, tokeniser, padding).
        if let Some(serde_json::Value::Array(notes)) =
            self.dataset.pointer("/provenance/params/w_notes")
        {
            for n in notes.iter().filter_map(|n| n.as_str()) {
                writeln!(f, "note (W): {n}")?;
            }
        }
        // Caveats under the table: what a reader must know before trusting a row.
        if let Some(caveat) = self.k_z.method.caveat() {
            writeln!(f, "note (K(Z)): {caveat}")?;
        }
        for e in &self.estimates {
            for note in &e.notes {
                writeln!(f, "note ({}): {note}", e.estimator)?;
            }
        }
        Ok(())
    }
}

/// What the online code's rule learner took for padding (its learner is named `rules+pad=T`),
/// in words: a token that ends every message is an end-of-sequence symbol of fixed-length
/// messages, not the padding of shorter ones.
fn padding_note(row: &EstimateRow, w: &TokenData) -> Option<String> {
    let serde_json::Value::Array(ls) = row.native.get("learners")? else {
        return None;
    };
    let token: u32 = ls.iter().find_map(|l| {
        let name = l.get("name")?.as_str()?;
        name.split_once("+pad=")?.1.parse().ok()
    })?;
    let rows = w.n.max(1);
    let ending = (0..w.n)
        .filter(|&i| w.row(i).last() == Some(&token))
        .count();
    Some(if ending == rows {
        format!(
            "the rule learner reads token {token} as the end of a message: it ends every \
             message (an end-of-sequence symbol; the messages have one length), so it also \
             counts positions from the message end"
        )
    } else {
        format!(
            "the rule learner reads token {token} as padding: it only ever ends a message, as \
             a run ({ending} of {rows} messages end with it); positions are also counted from \
             the message end (`kcomp prequential --pad T` names it)"
        )
    })
}

/// Runs `names` on `data` with the settings of `config` (prequential, topsim).
pub fn compare_one(
    data: &Dataset,
    names: &[String],
    config: &PanelConfig,
    progress: &WorkBar,
) -> Result<SingleComparison> {
    let estimators = names
        .iter()
        .map(|n| registry::build(n, config))
        .collect::<Result<Vec<_>>>()?;
    // Estimators differ by orders of magnitude in cost (entropy against tre or the
    // prequential code): the ETA follows their expected work, and each one's own progress
    // (the prequential learners) moves it while it runs.
    let shape = super::work::Shape::of(data);
    let works: Vec<f64> = estimators
        .iter()
        .map(|e| match e.applies_to(data) {
            Ok(()) => super::work::estimator_work(e.name(), shape, config),
            Err(_) => 0.0,
        })
        .collect();
    progress.add_work(works.iter().sum());
    let mut estimates: Vec<EstimateRow> = estimators
        .iter()
        .zip(&works)
        .map(|(e, &work)| {
            progress.set_message(e.name().to_string());
            let item = progress.start_item(work);
            run_estimator(e.as_ref(), data, item.progress())
        })
        .collect();
    for row in &mut estimates {
        if let Some(note) = padding_note(row, &data.w) {
            row.notes.push(note);
        }
    }
    let z = match &data.z {
        Targets::Discrete { n_attr, n_vals, .. } => {
            serde_json::json!({"kind": "discrete", "attributes": n_attr, "values": n_vals})
        }
        Targets::Continuous { dim, lam, .. } => {
            serde_json::json!({"kind": "continuous", "dim": dim, "precision": lam})
        }
    };
    Ok(SingleComparison {
        n: data.n(),
        dataset: serde_json::json!({
            "n": data.n(),
            "w": {"length": data.w.n_words, "vocab": data.w.vocab, "pad": data.w.pad},
            "z": z,
            "provenance": data.provenance,
        }),
        k_z: data.k_z,
        notes: estimates
            .iter()
            .any(|e| e.c.is_some())
            .then(|| crate::estimators::interface::COMPARABILITY.to_string())
            .into_iter()
            .collect(),
        estimates,
    })
}
