//! Answer trees `grid report` reads and writes.
//!
//! - kcomp's layout: `DIR/MODEL/SETTING/{i}.txt` (the answer to record i's rule prompt) and
//!   `{i}.result.txt` (the answer to its result prompt); SETTING is a setting name (h, v, b,
//!   r, hr, h-index-shuffle or h_index-shuffle, the published shape) or a dataset name
//!   (`k=3_u=2_d=8_type=h`, any shape, with `--data`).
//! - The published layout: `DIR/result/MODEL/DATASET/{i}.txt` (answer), `{i}.py` (the
//!   extracted program the evaluator runs), `{i}_info.json` (its scores), `stat_{n}.json`
//!   (their means) and `DIR/result_cg8/MODEL/DATASET/{i}.txt` (result-prompt answers).

use crate::datasets::string_grid::{GridSpec, Record, Setting, read_dataset};
use crate::error::{KcompError, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Records and seed of the published datasets (`grid generate --compat rgp`).
pub const PUBLISHED_RECORDS: usize = 30;
/// See [`PUBLISHED_RECORDS`].
pub const PUBLISHED_SEED: i64 = 0;

/// One answer of a tree with the files found for it.
#[derive(Debug, Clone)]
pub struct Job {
    pub model: String,
    pub setting: Setting,
    /// Dataset name, e.g. `k=4_u=2_d=16_type=h`.
    pub dataset: String,
    pub record: usize,
    /// The raw answer (`{i}.txt`).
    pub answer: Option<PathBuf>,
    /// The extracted program (`{i}.py`, published layout).
    pub program: Option<PathBuf>,
    /// The evaluator's stored scores (`{i}_info.json`).
    pub stored_info: Option<PathBuf>,
    /// The answer to the result-generation prompt.
    pub result_answer: Option<PathBuf>,
}

/// The dataset name of a setting on the published shape, e.g. `k=4_u=2_d=16_type=h`.
pub fn published_name(setting: Setting) -> String {
    let f = GridSpec::default().file_name(setting);
    f.trim_end_matches(".jsonl").to_string()
}

/// (setting, dataset name) of a folder named after a setting or a dataset.
fn folder_dataset(name: &str) -> Option<(Setting, String)> {
    if name.starts_with("k=") {
        let tag = name.split("_type=").nth(1)?;
        return Setting::parse(tag).ok().map(|s| (s, name.to_string()));
    }
    Setting::parse(name).ok().map(|s| (s, published_name(s)))
}

fn list(p: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(p).map_err(|e| KcompError::file(p, e.to_string()))? {
        let e = e.map_err(|e| KcompError::file(p, e.to_string()))?;
        v.push((e.file_name().to_string_lossy().into_owned(), e.path()));
    }
    v.sort();
    Ok(v)
}

/// Whether `dir` is a published result tree (it has a `result/` folder).
pub fn is_published(dir: &Path) -> bool {
    dir.join("result").is_dir()
}

/// Every answer of a tree in either layout, sorted by model, dataset and record. Folders
/// named `report` and `skip` (the report's own output) are ignored.
pub fn collect_jobs(dir: &Path, skip: Option<&Path>) -> Result<Vec<Job>> {
    let published = is_published(dir);
    let (root, cg_root) = if published {
        (dir.join("result"), Some(dir.join("result_cg8")))
    } else {
        (dir.to_path_buf(), None)
    };
    let mut jobs: BTreeMap<(String, String, usize), Job> = BTreeMap::new();
    for (model, mdir) in list(&root)? {
        if !mdir.is_dir() || model == "report" || skip.is_some_and(|s| s == mdir) {
            continue;
        }
        for (sub, sdir) in list(&mdir)? {
            if !sdir.is_dir() {
                continue;
            }
            let Some((setting, dataset)) = folder_dataset(&sub) else {
                crate::progress::note(&format!(
                    "warning: {}: unknown setting folder, skipped",
                    crate::io::names::terminal(&sdir.display().to_string())
                ));
                continue;
            };
            let mut files = list(&sdir)?;
            if let Some(cg) = &cg_root {
                let cdir = cg.join(&model).join(&sub);
                if cdir.is_dir() {
                    files.extend(
                        list(&cdir)?
                            .into_iter()
                            .map(|(n, p)| (format!("{n}#cg"), p)),
                    );
                }
            }
            for (name, path) in files {
                let (stem, kind) = if let Some(s) = name.strip_suffix(".txt#cg") {
                    (s, 4)
                } else if let Some(s) = name.strip_suffix(".result.txt") {
                    (s, 4)
                } else if let Some(s) = name.strip_suffix("_info.json") {
                    (s, 3)
                } else if let Some(s) = name.strip_suffix(".py") {
                    (s, 2)
                } else if let Some(s) = name.strip_suffix(".txt") {
                    (s, 1)
                } else {
                    continue;
                };
                let Ok(record) = stem.parse::<usize>() else {
                    continue;
                };
                let job = jobs
                    .entry((model.clone(), dataset.clone(), record))
                    .or_insert_with(|| Job {
                        model: model.clone(),
                        setting,
                        dataset: dataset.clone(),
                        record,
                        answer: None,
                        program: None,
                        stored_info: None,
                        result_answer: None,
                    });
                match kind {
                    1 => job.answer = Some(path),
                    2 => job.program = Some(path),
                    3 => job.stored_info = Some(path),
                    _ => job.result_answer = Some(path),
                }
            }
        }
    }
    // An answer needs a program or a rule answer; result answers alone are kept for Table 3.
    Ok(jobs.into_values().collect())
}

/// Loads a dataset by name: `DATA/{name}.jsonl`, or without `data` the published dataset of
/// that name rebuilt in memory (`grid generate --compat rgp --records 30 --seed 0`).
pub fn load_dataset(data: Option<&Path>, name: &str) -> std::result::Result<Vec<Record>, String> {
    if let Some(d) = data {
        return read_dataset(&d.join(format!("{name}.jsonl"))).map_err(|e| e.to_string());
    }
    let spec = GridSpec::default();
    Setting::ALL
        .iter()
        .find(|s| published_name(**s) == name)
        .ok_or_else(|| format!("{name} is not a published dataset: pass --data"))
        .and_then(|s| {
            spec.generate(*s, PUBLISHED_RECORDS, PUBLISHED_SEED)
                .map_err(|e| e.to_string())
        })
}

/// `json.dumps(dict, indent=4)` of a flat dict as Python writes it (keys in the given order,
/// as the evaluator's `_info.json` and `stat_{n}.json`).
pub fn python_json(pairs: &[(&str, serde_json::Value)]) -> String {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("    {}: {}", serde_json::Value::from(*k), v))
        .collect();
    format!("{{\n{}\n}}", body.join(",\n"))
}

/// Writes a file atomically below `root` (trusted, given by the user): the folders of `rel`
/// are created without following links, and the file replaces a link instead of following
/// it (see [`crate::io::files`]). `rel` must be built from [`crate::io::names::path_component`]s.
pub fn write_under(root: &Path, rel: &Path, text: &str) -> Result<()> {
    let folder = rel.parent().unwrap_or(Path::new(""));
    let dir = crate::io::files::create_dirs_under(root, folder)?;
    let name = rel
        .file_name()
        .ok_or_else(|| KcompError::file(root.join(rel), "has no file name"))?;
    crate::io::files::atomic_write(&dir.join(name), text.as_bytes())
}

/// The fields of `stat_{n}.json` (the evaluator's fields less c_n and c_m).
pub const STAT_FIELDS: [&str; 10] = [
    "c_dict_n",
    "c_dict_m",
    "c_block_n",
    "c_block_m",
    "c_length",
    "c_error",
    "c",
    "norm_c",
    "log_norm_c",
    "in_acc",
];

/// `stat_{n}.json`: the mean of each field over answers 0..n, summed in record order as
/// Python's `sum(v) / len(v)`.
pub fn stat_json(scores: &[&crate::programs::mapping_table::score::Scores]) -> String {
    let pairs: Vec<(&str, serde_json::Value)> = STAT_FIELDS
        .iter()
        .map(|f| {
            let vals: Vec<f64> = scores.iter().filter_map(|s| s.field(f)).collect();
            let mean = vals.iter().fold(0.0, |a, b| a + b) / vals.len().max(1) as f64;
            (*f, serde_json::json!(mean))
        })
        .collect();
    python_json(&pairs)
}
