//! `kcomp prequential`: prequential code length of Z given W and C^L(Z), from a TOML config
//! (a generated language system or user files) with command-line overrides.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::{Deserialize, Serialize};

use crate::dataset::{Targets, TokenData};
use crate::datasets::language_system::{LanguageSystemConfig, WordOrder};
use crate::error::{KcompError, Result};
use crate::estimators::prequential::code::progress_bar;
use crate::estimators::prequential::report::{to_json, write_csv, write_json, write_png};
use crate::estimators::prequential::{
    KzMethod, ModelBackend, Ordering, PrequentialConfig, PrequentialResult, Schedule,
    language_compositionality,
};
use crate::io::user_data::load_user_data;
use crate::sweeps::summary::Stat;

/// User data files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesConfig {
    /// W: integer tokens (.npy, .csv or .jsonl), one row per sample.
    pub w: PathBuf,
    /// Z: integer attributes, or float vectors with `precision`.
    pub z: PathBuf,
    /// Grid spacing for continuous Z.
    pub precision: Option<f64>,
}

/// Output settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Directory for result.json, curve.csv and curve.png.
    pub dir: Option<PathBuf>,
}

/// The TOML configuration file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Free text shown in the plot title.
    pub title: Option<String>,
    /// A generated language system (used unless `files` is given).
    pub language: Option<LanguageSystemConfig>,
    /// User data.
    pub files: Option<FilesConfig>,
    /// The prequential protocol.
    #[serde(default)]
    pub prequential: PrequentialConfig,
    /// Outputs.
    #[serde(default)]
    pub output: OutputConfig,
}

/// Arguments of `kcomp prequential`.
#[derive(Debug, Clone, Args)]
pub struct PrequentialArgs {
    /// TOML configuration (e.g. configs/prequential/emergent.toml); flags override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// W file (.npy, .csv, .jsonl) of integer tokens; needs --z.
    #[arg(long, requires = "z")]
    pub w: Option<PathBuf>,
    /// Z file (.npy, .csv, .jsonl): integer attributes, or floats with --precision.
    #[arg(long, requires = "w")]
    pub z: Option<PathBuf>,
    /// Grid spacing (precision) of continuous Z.
    #[arg(long, allow_hyphen_values = true)]
    pub precision: Option<f64>,
    /// Holistic fraction h of a generated language system.
    #[arg(long, allow_hyphen_values = true)]
    pub holistic_fraction: Option<f64>,
    /// Seed of a generated language system.
    #[arg(long)]
    pub language_seed: Option<u64>,
    /// Synonyms per attribute value of a generated language system.
    #[arg(long)]
    pub synonyms: Option<usize>,
    /// Word order of a generated language system.
    #[arg(long, value_enum)]
    pub word_order: Option<WordOrder>,
    /// Seed of the ordering and of the models.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Row ordering.
    #[arg(long, value_enum)]
    pub ordering: Option<Ordering>,
    /// Validation rows (never encoded).
    #[arg(long)]
    pub val_size: Option<usize>,
    /// Fixed-increment schedule MIN,STEP.
    #[arg(long, value_name = "MIN,STEP", conflicts_with_all = ["log_schedule", "fractions"])]
    pub increment: Option<String>,
    /// Log-spaced schedule MIN,N.
    #[arg(long, value_name = "MIN,N", conflicts_with = "fractions")]
    pub log_schedule: Option<String>,
    /// Explicit schedule as fractions of the encoded rows, e.g. 0.1,0.2,0.5.
    #[arg(long, value_name = "F1,F2,...", allow_hyphen_values = true)]
    pub fractions: Option<String>,
    /// Hidden layer widths, e.g. 256,256.
    #[arg(long, allow_hyphen_values = true)]
    pub hidden: Option<String>,
    /// Embedding size.
    #[arg(long)]
    pub emb_dim: Option<usize>,
    /// Dropout rate.
    #[arg(long, allow_hyphen_values = true)]
    pub dropout: Option<f64>,
    /// Adam learning rate.
    #[arg(long, allow_hyphen_values = true)]
    pub lr: Option<f64>,
    /// Mini-batch size.
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Maximum epochs per training.
    #[arg(long)]
    pub max_epochs: Option<usize>,
    /// Early-stopping patience (epochs).
    #[arg(long)]
    pub patience: Option<usize>,
    /// Early-stopping tolerance (nats per value).
    #[arg(long, allow_hyphen_values = true)]
    pub tolerance: Option<f64>,
    /// Multiply the learning rate by this factor after every --lr-patience epochs without
    /// improvement (default 1: constant, as the reference). E.g. 0.5 with --lr-patience 10
    /// lets continuous-Z models resolve values finer than the constant rate allows.
    #[arg(long, allow_hyphen_values = true)]
    pub lr_decay: Option<f64>,
    /// Epochs without improvement before each learning-rate decay (0 = never).
    #[arg(long)]
    pub lr_patience: Option<usize>,
    /// Continue each chunk's model from the previous one (cheaper).
    #[arg(long)]
    pub warm_start: bool,
    /// Model implementation.
    #[arg(long, value_enum)]
    pub backend: Option<ModelBackend>,
    /// How K(Z) is obtained.
    #[arg(long, value_enum)]
    pub k_z: Option<KzMethod>,
    /// Worker threads (0 = all cores); results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output directory for result.json, curve.csv and curve.png.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Sweep the holistic fraction of the generated language over these values
    /// (e.g. 0,0.25,0.5,0.75,1); writes runs.csv, table.csv, table.md and c_l_vs_h.png to --out.
    #[arg(long, value_name = "H1,H2,...", allow_hyphen_values = true)]
    pub sweep_h: Option<String>,
    /// Seeds per holistic fraction in a sweep (language seed = model seed = 0..N; default 5).
    #[arg(long)]
    pub seeds: Option<u64>,
    /// In a sweep, keep the runs already finished in --out: a run folder whose config.toml
    /// matches the run's configuration (threads and output folder aside) is read back
    /// instead of recomputed, so an interrupted sweep continues where it stopped.
    #[arg(long)]
    pub resume: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Memory limit, e.g. 4G (default: half the physical memory); runs estimated above it
    /// are refused before anything is allocated.
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::synth::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

/// Most seeds per holistic fraction in a sweep.
pub const MAX_SWEEP_SEEDS: u64 = 1000;

/// The holistic fractions of `--sweep-h`: finite, in [0, 1], no value twice.
pub fn parse_sweep_h(list: &str) -> Result<Vec<f64>> {
    let hs = parse_list::<f64>("sweep_h", list)?;
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
    Ok(hs)
}

fn parse_list<T: std::str::FromStr>(name: &str, s: &str) -> Result<Vec<T>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<T>()
                .map_err(|_| KcompError::param(name, format!("`{x}` is not a valid number")))
        })
        .collect()
}

fn parse_pair(name: &str, s: &str) -> Result<(usize, usize)> {
    let v: Vec<usize> = parse_list(name, s)?;
    if v.len() != 2 {
        return Err(KcompError::param(
            name,
            "expected two comma-separated integers",
        ));
    }
    Ok((v[0], v[1]))
}

/// Refuses settings that would be silently ignored.
fn check_ignored(args: &PrequentialArgs, cfg: &ConfigFile) -> Result<()> {
    let files = args.w.is_some() || cfg.files.is_some();
    if files && cfg.language.is_some() {
        return Err(KcompError::param(
            "language",
            "the config has both [language] and [files]: the language would be ignored",
        ));
    }
    if files && (args.synonyms.is_some() || args.word_order.is_some()) {
        return Err(KcompError::param(
            if args.synonyms.is_some() {
                "synonyms"
            } else {
                "word_order"
            },
            "language-system flags do not apply to user files",
        ));
    }
    if !files && args.precision.is_some() {
        return Err(KcompError::param(
            "precision",
            "only continuous user data (--w/--z or [files]) has a precision",
        ));
    }
    if args.sweep_h.is_some() {
        for (set, name) in [
            (args.holistic_fraction.is_some(), "holistic_fraction"),
            (args.language_seed.is_some(), "language_seed"),
            (args.seed.is_some(), "seed"),
        ] {
            if set {
                return Err(KcompError::param(
                    name,
                    "a --sweep-h sweep sets it for every run (h from the list, seeds 0..--seeds)",
                ));
            }
        }
    } else {
        for (set, name) in [(args.seeds.is_some(), "seeds"), (args.resume, "resume")] {
            if set {
                return Err(KcompError::param(name, "only applies to a --sweep-h sweep"));
            }
        }
    }
    Ok(())
}

/// Reads the config file (if any) and applies the flag overrides.
pub fn resolve(args: &PrequentialArgs) -> Result<ConfigFile> {
    let mut cfg = match &args.config {
        Some(p) => {
            let text = crate::io::limits::read_text(p)?;
            toml::from_str::<ConfigFile>(&text).map_err(|e| {
                let line = e
                    .span()
                    .map(|s| text[..s.start.min(text.len())].lines().count().max(1))
                    .unwrap_or(0);
                KcompError::file(p, format!("line {line}: {}", e.message().trim()))
            })?
        }
        None => ConfigFile::default(),
    };
    check_ignored(args, &cfg)?;
    if let (Some(w), Some(z)) = (&args.w, &args.z) {
        cfg.files = Some(FilesConfig {
            w: w.clone(),
            z: z.clone(),
            precision: args.precision,
        });
    } else if let (Some(f), Some(p)) = (cfg.files.as_mut(), args.precision) {
        f.precision = Some(p);
    }
    if cfg.files.is_none() {
        let lang = cfg
            .language
            .get_or_insert_with(LanguageSystemConfig::default);
        if let Some(h) = args.holistic_fraction {
            lang.holistic_fraction = h;
        }
        if let Some(s) = args.language_seed {
            lang.seed = s;
        }
        if let Some(s) = args.synonyms {
            lang.synonyms = s;
        }
        if let Some(o) = args.word_order {
            lang.word_order = o;
        }
    } else if args.holistic_fraction.is_some() || args.language_seed.is_some() {
        return Err(KcompError::param(
            "holistic_fraction",
            "language-system flags do not apply to user files",
        ));
    }
    let p = &mut cfg.prequential;
    if let Some(s) = args.seed {
        p.seed = s;
    }
    if let Some(o) = args.ordering {
        p.ordering = o;
    }
    if let Some(v) = args.val_size {
        p.val_size = v;
    }
    if let Some(s) = &args.increment {
        let (min, step) = parse_pair("increment", s)?;
        p.schedule = Schedule::Increment { min, step };
    }
    if let Some(s) = &args.log_schedule {
        let (min, n) = parse_pair("log_schedule", s)?;
        p.schedule = Schedule::Log { min, n };
    }
    if let Some(s) = &args.fractions {
        p.schedule = Schedule::Fractions {
            fractions: parse_list("fractions", s)?,
        };
    }
    if let Some(h) = &args.hidden {
        p.model.hidden = if h.trim().is_empty() {
            Vec::new()
        } else {
            parse_list("hidden", h)?
        };
    }
    if let Some(e) = args.emb_dim {
        p.model.emb_dim = e;
    }
    if let Some(d) = args.dropout {
        p.model.dropout = d;
    }
    if let Some(x) = args.lr {
        p.train.lr = x;
    }
    if let Some(x) = args.batch_size {
        p.train.batch_size = x;
    }
    if let Some(x) = args.max_epochs {
        p.train.max_epochs = x;
    }
    if let Some(x) = args.patience {
        p.train.patience = x;
    }
    if let Some(x) = args.lr_decay {
        p.train.lr_decay = x;
    }
    if let Some(x) = args.lr_patience {
        p.train.lr_patience = x;
    }
    if let Some(x) = args.tolerance {
        p.train.tolerance = x;
    }
    if args.warm_start {
        p.warm_start = true;
    }
    if let Some(b) = args.backend {
        p.backend = b;
    }
    if let Some(k) = args.k_z {
        p.k_z = k;
    }
    if let Some(t) = args.threads {
        p.threads = t;
    }
    if let Some(o) = &args.out {
        cfg.output.dir = Some(o.clone());
    }
    Ok(cfg)
}

/// Builds the data the config describes.
pub fn load_data(cfg: &ConfigFile) -> Result<(TokenData, Targets)> {
    match (&cfg.files, &cfg.language) {
        (Some(f), _) => load_user_data(&f.w, &f.z, f.precision),
        (None, Some(l)) => {
            let ls = l.generate()?;
            Ok((ls.w, ls.z))
        }
        (None, None) => LanguageSystemConfig::default()
            .generate()
            .map(|ls| (ls.w, ls.z)),
    }
}

/// The settings that determine a run's numbers, as TOML: the configuration without the
/// output folder, the title and the thread count (results do not depend on them).
fn run_fingerprint(cfg: &ConfigFile) -> Result<String> {
    let mut c = cfg.clone();
    c.title = None;
    c.output = OutputConfig::default();
    c.prequential.threads = 0;
    toml::to_string(&c)
        .map_err(|e| KcompError::Other(format!("cannot serialise the configuration: {e}")))
}

/// A finished run in `dir` made with the same settings, if there is one.
fn finished_run(cfg: &ConfigFile, dir: &Path) -> Result<Option<PrequentialResult>> {
    let Ok(stored) = std::fs::read_to_string(dir.join("config.toml")) else {
        return Ok(None);
    };
    if stored != run_fingerprint(cfg)? {
        return Ok(None);
    }
    let Ok(text) = std::fs::read_to_string(dir.join("result.json")) else {
        return Ok(None);
    };
    Ok(serde_json::from_str(&text).ok())
}

/// Writes config.toml (the settings that determine the numbers), result.json, curve.csv and
/// curve.png into `dir`.
pub fn write_outputs(
    r: &PrequentialResult,
    cfg: &ConfigFile,
    dir: &Path,
    title: &str,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| KcompError::io(dir, e))?;
    let cfg_path = dir.join("config.toml");
    std::fs::write(&cfg_path, run_fingerprint(cfg)?).map_err(|e| KcompError::io(&cfg_path, e))?;
    write_json(r, &dir.join("result.json"))?;
    write_csv(r, &dir.join("curve.csv"))?;
    write_png(r, &dir.join("curve.png"), title)
}

/// Runs `kcomp prequential`.
pub fn run(args: PrequentialArgs) -> Result<()> {
    if let Some(bytes) = args.max_memory {
        crate::io::limits::set_max_memory(bytes);
    }
    let cfg = resolve(&args)?;
    if let Some(list) = &args.sweep_h {
        return sweep(&args, cfg, &parse_sweep_h(list)?);
    }
    let (w, z) = load_data(&cfg)?;
    crate::estimators::prequential::code::validate(&w, &z, &cfg.prequential)?;
    let pb = progress_bar(!args.quiet && !args.json);
    let r = language_compositionality(&w, &z, &cfg.prequential, Some(&pb))?;
    pb.finish_and_clear();
    let title = cfg
        .title
        .clone()
        .unwrap_or_else(|| "prequential code".into());
    if let Some(dir) = &cfg.output.dir {
        write_outputs(&r, &cfg, dir, &title)?;
    }
    if args.json {
        println!("{}", to_json(&r));
    } else {
        println!("{title}");
        println!("rows encoded        {}", r.n_encoded);
        println!("rows for validation {}", r.n_val);
        println!("K(Z|W) = K(Data)    {:.1} bits", r.k_data);
        println!("K(Data|f)           {:.1} bits", r.k_data_given_f);
        println!("K(f)                {:.1} bits", r.k_f);
        let k_z_label = format!("K(Z) ({})", format!("{:?}", r.k_z_method).to_lowercase());
        println!("{k_z_label:<20}{:.1} bits", r.k_z);
        println!("C^L(Z)              {:.4}", r.c_l);
        println!("wall time           {:.1} s", r.wall_seconds);
        for w in &r.warnings {
            println!("warning: {w}");
        }
        if let Some(dir) = &cfg.output.dir {
            println!("outputs in          {}", dir.display());
        }
    }
    Ok(())
}

/// C^L against the holistic fraction, several seeds each.
fn sweep(args: &PrequentialArgs, base: ConfigFile, hs: &[f64]) -> Result<()> {
    if base.files.is_some() {
        return Err(KcompError::param(
            "sweep_h",
            "a sweep needs a generated language",
        ));
    }
    let seeds = args.seeds.unwrap_or(5);
    if !(1..=MAX_SWEEP_SEEDS).contains(&seeds) {
        return Err(KcompError::param(
            "seeds",
            format!("must be in 1..={MAX_SWEEP_SEEDS}, got {seeds}"),
        ));
    }
    let dir = base
        .output
        .dir
        .clone()
        .ok_or_else(|| KcompError::param("out", "a sweep needs an output directory (--out)"))?;
    std::fs::create_dir_all(&dir).map_err(|e| KcompError::io(&dir, e))?;
    let pb = progress_bar(!args.quiet);
    let mut runs: Vec<(f64, u64, PrequentialResult)> = Vec::new();
    // Seeds outermost, so that an interrupted sweep still covers every h; the tables are
    // rewritten after every run.
    let mut md = String::new();
    for s in 0..seeds {
        for &h in hs {
            let mut cfg = base.clone();
            let lang = cfg
                .language
                .get_or_insert_with(LanguageSystemConfig::default);
            lang.holistic_fraction = h;
            lang.seed = s;
            cfg.prequential.seed = s;
            let sub = dir.join(format!("h{h}_seed{s}"));
            let reused = if args.resume {
                finished_run(&cfg, &sub)?
            } else {
                None
            };
            let r = match reused {
                Some(r) => r,
                None => {
                    let (w, z) = load_data(&cfg)?;
                    let r = language_compositionality(&w, &z, &cfg.prequential, Some(&pb))?;
                    write_outputs(&r, &cfg, &sub, &format!("h = {h}, seed {s}"))?;
                    r
                }
            };
            runs.push((h, s, r));
            md = write_sweep_tables(&dir, hs, &runs)?;
        }
    }
    pb.finish_and_clear();
    if args.json {
        let v: Vec<serde_json::Value> = runs
            .iter()
            .map(|(h, s, r)| serde_json::json!({"h": h, "seed": s, "c_l": r.c_l, "k_data": r.k_data, "k_z": r.k_z}))
            .collect();
        println!("{}", serde_json::Value::Array(v));
    } else {
        print!("{md}");
    }
    Ok(())
}

fn write_sweep_tables(
    dir: &Path,
    hs: &[f64],
    runs: &[(f64, u64, PrequentialResult)],
) -> Result<String> {
    let runs_path = dir.join("runs.csv");
    let mut text =
        String::from("h,seed,k_z_bits,k_data_bits,k_data_given_f_bits,k_f_bits,c_l,wall_seconds\n");
    for (h, s, r) in runs {
        text += &format!(
            "{h},{s},{:.3},{:.3},{:.3},{:.3},{:.5},{:.1}\n",
            r.k_z, r.k_data, r.k_data_given_f, r.k_f, r.c_l, r.wall_seconds
        );
    }
    std::fs::write(&runs_path, text).map_err(|e| KcompError::io(&runs_path, e))?;
    let mut table = String::from("h,n_seeds,c_l_mean,c_l_std,c_l_min,c_l_max,k_data_mean_bits\n");
    let mut md = String::from(
        "| h | seeds | C^L mean | C^L std | min | max | K(Z|W) mean (bits) |\n|---|---|---|---|---|---|---|\n",
    );
    let mut points = Vec::new();
    for &h in hs {
        let at_h: Vec<&PrequentialResult> =
            runs.iter().filter(|r| r.0 == h).map(|r| &r.2).collect();
        let c: Vec<f64> = at_h.iter().map(|r| r.c_l).collect();
        let k: Vec<f64> = at_h.iter().map(|r| r.k_data).collect();
        let (Some(c_stat), Some(k_stat)) = (Stat::of(&c), Stat::of(&k)) else {
            continue;
        };
        let (m, sd, km) = (c_stat.mean, c_stat.std, k_stat.mean);
        let lo = c.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = c.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        table += &format!("{h},{},{m:.5},{sd:.5},{lo:.5},{hi:.5},{km:.1}\n", c.len());
        md += &format!(
            "| {h} | {} | {m:.3} | {sd:.3} | {lo:.3} | {hi:.3} | {km:.0} |\n",
            c.len()
        );
        points.push((h, m, sd));
    }
    md += "\nPublished (seed 004, emergent languages, 5 seeds): with iterated learning 1.946 +- 0.330; \
           without iterated learning 1.017 +- 0.008.\n";
    let tp = dir.join("table.csv");
    std::fs::write(&tp, table).map_err(|e| KcompError::io(&tp, e))?;
    let mp = dir.join("table.md");
    std::fs::write(&mp, &md).map_err(|e| KcompError::io(&mp, e))?;
    plot_sweep(&points, &dir.join("c_l_vs_h.png"))?;
    Ok(md)
}

fn plot_sweep(points: &[(f64, f64, f64)], path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let draw = || -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(path, (760, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let y_max = points.iter().map(|p| p.1 + p.2).fold(2.2f64, f64::max) * 1.05;
        let mut chart = ChartBuilder::on(&root)
            .caption("C^L(Z) against the holistic fraction h", ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.05f64..1.05f64, 0.8f64..y_max)?;
        chart
            .configure_mesh()
            .x_desc("holistic fraction h")
            .y_desc("C^L = K(Z) / K(Z|W)")
            .draw()?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.0, p.1)),
                BLUE.stroke_width(2),
            ))?
            .label("kcomp (mean +- sd over seeds)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        chart.draw_series(points.iter().map(|p| {
            PathElement::new(
                vec![(p.0, p.1 - p.2), (p.0, p.1 + p.2)],
                BLUE.stroke_width(2),
            )
        }))?;
        chart.draw_series(
            points
                .iter()
                .map(|p| Circle::new((p.0, p.1), 4, BLUE.filled())),
        )?;
        chart
            .draw_series(
                [(0.0, 1.946), (1.0, 1.017)].map(|p| Cross::new(p, 7, RED.stroke_width(2))),
            )?
            .label("published: iterated learning 1.946 / none 1.017")
            .legend(|(x, y)| Cross::new((x + 10, y), 5, RED));
        chart.draw_series(LineSeries::new([(-0.05, 1.0), (1.05, 1.0)], BLACK.mix(0.4)))?;
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| KcompError::file(path, format!("cannot draw the plot: {e}")))
}
