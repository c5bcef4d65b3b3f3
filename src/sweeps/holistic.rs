//! The prequential sweep over the holistic fraction h of a generated language: C^L(Z) at every
//! (h, seed), run on the sweep engine with one folder per run (`h{h}_seed{s}/`, the outputs of
//! a single `kcomp prequential` run) that `resume` reads back when its `config.toml` matches,
//! then `runs.csv`, `table.csv`, `table.md` and `c_l_vs_h.{png,svg}`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{KcompError, Result};
use crate::estimators::interface::Progress;
use crate::estimators::prequential::code::Scheme;
use crate::estimators::prequential::code::progress_bar;
use crate::estimators::prequential::report::bits_saved_per_row;
use crate::estimators::prequential::report::{
    EMERGENT_C_L_ITERATED, EMERGENT_C_L_NO_ITERATED, HPoint, write_h_sweep_figure,
};
use crate::estimators::prequential::run_config::{
    ConfigFile, Resolved, check_overwrite, finished_run, write_outputs,
};
use crate::estimators::prequential::{PrequentialResult, language_compositionality};
use crate::io::table::{decimal, write_csv};

use super::engine::{EngineOptions, Lookup, SavedResult, Sharding, Store, finish_part, run_jobs};
use super::summary::Stat;

/// Most seeds per holistic fraction.
pub const MAX_SWEEP_SEEDS: u64 = 1000;

/// Keys a sweep sets for every run: the command line must not set them.
pub const SWEPT_KEYS: [&str; 3] = [
    "language.holistic_fraction",
    "language.seed",
    "prequential.seed",
];

/// One run of the sweep.
#[derive(Debug, Clone)]
pub struct HRun {
    pub h: f64,
    pub seed: u64,
    pub config: ConfigFile,
    pub dir: PathBuf,
}

/// Checks the holistic fractions (in [0, 1], none twice) and the seed count.
pub fn check(hs: &[f64], seeds: u64, base: &ConfigFile, overridden: &[String]) -> Result<()> {
    for (i, &h) in hs.iter().enumerate() {
        if !(0.0..=1.0).contains(&h) {
            return Err(KcompError::param(
                "sweep_h",
                format!("every holistic fraction must be in [0, 1], got {h}"),
            ));
        }
        if hs[..i].contains(&h) {
            return Err(KcompError::param(
                "sweep_h",
                format!("{h} is listed twice (each value is run once with every seed)"),
            ));
        }
    }
    if let Some(key) = overridden.iter().find(|k| SWEPT_KEYS.contains(&k.as_str())) {
        let name = match key.as_str() {
            "language.seed" => "language_seed",
            other => other.rsplit('.').next().unwrap_or(other),
        };
        return Err(KcompError::param(
            name,
            "a --sweep-h sweep sets it for every run (h from the list, seeds 0..--seeds)",
        ));
    }
    if !(1..=MAX_SWEEP_SEEDS).contains(&seeds) {
        return Err(KcompError::param(
            "seeds",
            format!("must be in 1..={MAX_SWEEP_SEEDS}, got {seeds}"),
        ));
    }
    if base.files.is_some() {
        return Err(KcompError::param(
            "sweep_h",
            "a sweep needs a generated language",
        ));
    }
    Ok(())
}

/// The runs, seeds outermost so that an interrupted sweep still covers every h.
pub fn plan(base: &ConfigFile, hs: &[f64], seeds: u64, out: &Path) -> Vec<HRun> {
    let mut runs = Vec::new();
    for seed in 0..seeds {
        for &h in hs {
            let mut config = base.clone();
            let language = config.language.get_or_insert_with(Default::default);
            language.holistic_fraction = h;
            language.seed = seed;
            config.prequential.seed = seed;
            config.title = Some(format!("h = {h}, seed {seed}"));
            runs.push(HRun {
                h,
                seed,
                config,
                dir: out.join(format!("h{h}_seed{seed}")),
            });
        }
    }
    runs
}

/// A run's folder: `config.toml` (its settings), `result.json` and `result.sha256`, the
/// digest binding the result to the settings (see [`super::engine::digest`]).
struct FolderStore;

/// The digest file of a run folder.
const DIGEST_FILE: &str = "result.sha256";
const DIGEST_TAG: &str = "h-sweep run";

/// The digest of a run folder's settings and its result.json as written (its text).
fn run_digest(run: &HRun, result_json: &str) -> Result<String> {
    let settings = serde_json::Value::String(run.config.fingerprint()?);
    let result = serde_json::Value::String(result_json.to_string());
    Ok(super::engine::digest(DIGEST_TAG, &[&settings, &result]))
}

impl Store<HRun, PrequentialResult> for FolderStore {
    fn lookup(&self, run: &HRun) -> Lookup<PrequentialResult> {
        let Ok(Some(result)) = finished_run(&run.config, &run.dir) else {
            return Lookup::Missing;
        };
        let read = |name: &str, cap: u64| {
            crate::io::files::read_capped(&run.dir.join(name), cap)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
        };
        let Some(saved) = read(DIGEST_FILE, 1024) else {
            return Lookup::Refused(format!(
                "{DIGEST_FILE} is missing (written by an older kcomp, or removed)"
            ));
        };
        let text = read("result.json", crate::io::limits::MAX_TEXT_FILE_BYTES);
        match text {
            Some(t) if run_digest(run, &t).is_ok_and(|d| d == saved.trim()) => {}
            _ => {
                return Lookup::Refused(
                    "result.json does not match its digest (edited by hand or damaged)".into(),
                );
            }
        }
        match result.check_saved() {
            Ok(()) => Lookup::Found(result),
            Err(why) => Lookup::Refused(format!("result.json: {why}")),
        }
    }

    fn save(&self, run: &HRun, result: &PrequentialResult) -> Result<()> {
        write_outputs(result, &run.config, &run.dir)?;
        // The digest of what is on disk now (the file just written, read back).
        let written = crate::io::limits::read_text(&run.dir.join("result.json"))?;
        crate::io::files::atomic_write(
            &run.dir.join(DIGEST_FILE),
            format!("{}\n", run_digest(run, &written)?).as_bytes(),
        )
    }

    fn location(&self, run: &HRun) -> PathBuf {
        run.dir.clone()
    }
}

impl SavedResult for PrequentialResult {
    fn check_saved(&self) -> std::result::Result<(), String> {
        use super::engine::{check_finite, check_relation};
        check_finite("k_data", self.k_data, Some(f64::MIN_POSITIVE))?;
        check_finite("k_data_given_f", self.k_data_given_f, Some(0.0))?;
        check_finite("k_z", self.k_z, Some(0.0))?;
        check_finite("wall_seconds", self.wall_seconds, Some(0.0))?;
        check_relation("c_l", self.c_l, self.k_z / self.k_data, "K(Z) / K(Data)")?;
        check_relation(
            "k_f",
            self.k_f,
            self.k_data - self.k_data_given_f,
            "K(Data) - K(Data|f)",
        )?;
        if self.n_encoded == 0 {
            return Err("n_encoded = 0: nothing was coded".into());
        }
        Ok(())
    }
}

/// Runs the sweep (one run at a time: each run trains its chunks in parallel) and writes the
/// tables and the figure into `out`; returns the runs with their results (`None` when
/// `sharding` runs or lists only a part of the plan).
pub fn run_sweep(
    runs: &[HRun],
    out: &Path,
    resume: bool,
    progress: &Progress,
    sharding: Option<&Sharding>,
) -> Result<Option<Vec<PrequentialResult>>> {
    crate::io::files::create_dir_all(out)?;
    // The bar counts the engine's work (each run adds its own); the engine's count stays hidden.
    let hidden = crate::progress::WorkBar::hidden();
    let options = EngineOptions {
        threads: 1,
        resume,
        progress: &hidden,
        weights: None,
        sharding,
    };
    if let Some(s) = sharding {
        s.set_out(out);
    }
    let finished = run_jobs(runs, Some(&FolderStore), &options, |run| {
        let (w, z) = run.config.load_data()?;
        language_compositionality(&w, &z, &run.config.prequential, Some(progress))
    })?;
    Ok(finished.map(|f| f.results))
}

/// A sweep as `kcomp prequential --sweep-h H1,H2,... [--seeds N] [--resume] [--force]`
/// describes it, checked and planned.
pub struct HSweep {
    hs: Vec<f64>,
    runs: Vec<HRun>,
    dir: PathBuf,
    resume: bool,
    sharding: Option<Sharding>,
}

/// What a finished sweep prints: its Markdown table, or one JSON object per run; for a part
/// of the plan (`--shard`, `--job`, `--plan`), what it did (`markdown`, and `json` null).
pub struct HSweepOutput {
    pub markdown: String,
    pub json: serde_json::Value,
}

impl HSweep {
    /// Parses the list, checks it against the configuration (5 seeds by default) and plans the
    /// runs; without `resume`, a run folder holding other settings is refused unless `force`.
    /// With `sharding`, only a part of the plan runs (always resuming) or is merged.
    pub fn new(
        mut resolved: Resolved,
        list: &str,
        seeds: Option<u64>,
        resume: bool,
        force: bool,
        sharding: Option<Sharding>,
    ) -> Result<HSweep> {
        let hs = list
            .split(',')
            .map(|x| {
                x.trim().parse::<f64>().map_err(|_| {
                    KcompError::param("sweep_h", format!("`{x}` is not a valid number"))
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        let seeds = seeds.unwrap_or(5);
        check(&hs, seeds, &resolved.config, &resolved.overridden)?;
        let dir =
            resolved.config.output.dir.clone().ok_or_else(|| {
                KcompError::param("out", "a sweep needs an output directory (--out)")
            })?;
        // Every language of the sweep has the same size: V^A objects x repeats rows.
        let language = resolved.config.language.clone().unwrap_or_default();
        resolved.settle_val_size(language.validate()?.saturating_mul(language.repeats));
        let runs = plan(&resolved.config, &hs, seeds, &dir);
        // No run folder is written through a link planted in the sweep's folder.
        crate::io::files::guard_out_root(&dir);
        if !resume && sharding.is_none() {
            // The sweep's own tables and figure sit beside the run folders: a folder holding
            // another sweep (other fractions or seeds) would mix the two.
            let stamp = serde_json::json!({
                "command": "prequential --sweep-h",
                "holistic_fractions": hs,
                "seeds": seeds,
                "config": resolved.config.fingerprint()?,
            });
            crate::io::out_dir::check(&dir, &stamp, force)?;
            for run in &runs {
                check_overwrite(&run.config, &run.dir, force)?;
            }
            crate::io::out_dir::claim(&dir, &stamp, true)?;
        }
        Ok(HSweep {
            hs,
            runs,
            dir,
            resume,
            sharding,
        })
    }

    /// The part of the plan this sweep runs, if any.
    pub fn sharding(&self) -> Option<&Sharding> {
        self.sharding.as_ref()
    }

    /// Runs the sweep (a progress bar if `progress`) and writes its tables and figure.
    pub fn run(&self, progress: bool) -> Result<HSweepOutput> {
        // One run per folder; the parts of a sharded run share it by design (array tasks run
        // at once), so only whole runs and merges lock.
        let _lock = match &self.sharding {
            Some(s) if !s.summarises() => None,
            _ => Some(crate::io::files::lock_dir(&self.dir)?),
        };
        let scheme = self
            .runs
            .first()
            .map_or(Scheme::Online, |r| r.config.prequential.scheme);
        let pb = progress_bar(progress, scheme);
        let sharding = self.sharding.as_ref();
        let results = run_sweep(&self.runs, &self.dir, self.resume, &pb, sharding)?;
        pb.finish_and_clear();
        let results = match (results, sharding) {
            (Some(results), _) => results,
            (None, Some(part)) => {
                return Ok(HSweepOutput {
                    markdown: finish_part(part)?,
                    json: serde_json::Value::Null,
                });
            }
            (None, None) => {
                return Err(KcompError::Other(
                    "a sweep without sharding has results".into(),
                ));
            }
        };
        let markdown = write_tables(&self.dir, &self.hs, &self.runs, &results)?;
        let json = self
            .runs
            .iter()
            .zip(&results)
            .map(|(run, r)| serde_json::json!({"h": run.h, "seed": run.seed, "scheme": r.scheme, "c_l": r.c_l, "bits_saved_per_row": bits_saved_per_row(r), "k_data": r.k_data, "k_z": r.k_z}))
            .collect();
        Ok(HSweepOutput { markdown, json })
    }
}

/// One row of `runs.csv` (lengths in bits).
#[derive(Serialize)]
struct RunRow {
    #[serde(serialize_with = "decimal")]
    h: f64,
    seed: u64,
    #[serde(serialize_with = "decimal")]
    k_z_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_data_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_data_given_f_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_f_bits: f64,
    #[serde(serialize_with = "decimal")]
    c_l: f64,
    #[serde(serialize_with = "decimal")]
    bits_saved_per_row: f64,
    #[serde(serialize_with = "decimal")]
    wall_seconds: f64,
}

/// One row of `table.csv`: C^L over the seeds of one h.
#[derive(Serialize)]
pub struct HSummary {
    #[serde(serialize_with = "decimal")]
    pub h: f64,
    pub n_seeds: usize,
    #[serde(serialize_with = "decimal")]
    pub c_l_mean: f64,
    #[serde(serialize_with = "decimal")]
    pub c_l_std: f64,
    #[serde(serialize_with = "decimal")]
    pub c_l_min: f64,
    #[serde(serialize_with = "decimal")]
    pub c_l_max: f64,
    #[serde(serialize_with = "decimal")]
    pub k_data_mean_bits: f64,
    /// Mean (K(Z) - K(Z|W)) / N, bits.
    #[serde(serialize_with = "decimal")]
    pub bits_saved_per_row_mean: f64,
}

/// Writes runs.csv, table.csv, table.md and the figure; returns the Markdown table.
pub fn write_tables(
    out: &Path,
    hs: &[f64],
    runs: &[HRun],
    results: &[PrequentialResult],
) -> Result<String> {
    let scheme = runs
        .first()
        .map_or(Scheme::Online, |r| r.config.prequential.scheme);
    write_csv(
        &out.join("runs.csv"),
        runs.iter().zip(results).map(|(run, r)| RunRow {
            h: run.h,
            seed: run.seed,
            k_z_bits: r.k_z,
            k_data_bits: r.k_data,
            k_data_given_f_bits: r.k_data_given_f,
            k_f_bits: r.k_f,
            c_l: r.c_l,
            bits_saved_per_row: bits_saved_per_row(r),
            wall_seconds: r.wall_seconds,
        }),
    )?;
    let mut summaries = Vec::new();
    for &h in hs {
        let at_h: Vec<&PrequentialResult> = runs
            .iter()
            .zip(results)
            .filter(|(run, _)| run.h == h)
            .map(|(_, r)| r)
            .collect();
        let c: Vec<f64> = at_h.iter().map(|r| r.c_l).collect();
        let k: Vec<f64> = at_h.iter().map(|r| r.k_data).collect();
        let saved: Vec<f64> = at_h.iter().map(|r| bits_saved_per_row(r)).collect();
        let (Some(c_stat), Some(k_stat)) = (Stat::of(&c), Stat::of(&k)) else {
            continue;
        };
        summaries.push(HSummary {
            h,
            n_seeds: c.len(),
            c_l_mean: c_stat.mean,
            c_l_std: c_stat.std,
            c_l_min: c.iter().copied().fold(f64::INFINITY, f64::min),
            c_l_max: c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            k_data_mean_bits: k_stat.mean,
            bits_saved_per_row_mean: saved.iter().sum::<f64>() / saved.len() as f64,
        });
    }
    let mut md = String::from(
        "| h | seeds | C^L mean | C^L std | min | max | K(Z|W) mean (bits) | bits saved / row |\n|---|---|---|---|---|---|---|---|\n",
    );
    for s in &summaries {
        md += &format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.0} | {:.3} |\n",
            s.h,
            s.n_seeds,
            s.c_l_mean,
            s.c_l_std,
            s.c_l_min,
            s.c_l_max,
            s.k_data_mean_bits,
            s.bits_saved_per_row_mean
        );
    }
    md += &format!("\n{}\n", published_note(scheme));
    write_csv(&out.join("table.csv"), &summaries)?;
    let md_path = out.join("table.md");
    crate::io::files::write_atomic_io(&md_path, &md).map_err(|e| KcompError::io(&md_path, e))?;
    let points: Vec<HPoint> = summaries
        .iter()
        .map(|s| HPoint {
            h: s.h,
            mean: s.c_l_mean,
            sd: s.c_l_std,
            n: s.n_seeds,
        })
        .collect();
    write_h_sweep_figure(&points, scheme, &out.join("c_l_vs_h"))?;
    Ok(md)
}

/// The line under the h-sweep table: the scheme of these runs, and how the published values
/// were obtained (so a reader does not compare them with the wrong rows).
pub fn published_note(scheme: Scheme) -> String {
    let ours = match scheme {
        Scheme::Online => {
            "These runs: the online scheme (every row coded by a switching mixture of learners; \
             its lookup-table learners learn a holistic map, so C^L stays well above 1 at h = 1)."
        }
        Scheme::Reference => "These runs: the reference protocol, as the published values.",
    };
    format!(
        "{ours} Published (Elmoznino et al., ICML 2025, arXiv 2410.14817, Figure 3): C^L of \
         emergent languages of multi-agent reinforcement learning (2 attributes x 8 values, 50 \
         sentences per object), with iterated learning {:.3} +- {:.3}, without {:.3} +- {:.3} \
         (5 seeds), measured with the reference protocol (a network retrained per chunk of 50 \
         rows, 400 validation rows): not runs of this generator. Near 1 means that protocol's \
         networks learned nothing of w -> z from the rows they saw (a holistic map cannot be \
         learned from few rows), not that the language's exact C^L is 1.",
        EMERGENT_C_L_ITERATED.0,
        EMERGENT_C_L_ITERATED.1,
        EMERGENT_C_L_NO_ITERATED.0,
        EMERGENT_C_L_NO_ITERATED.1
    )
}
