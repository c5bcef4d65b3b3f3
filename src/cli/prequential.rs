//! `kcomp prequential`: parses the command line and prints; the configuration, the run, the
//! sweep and its tables live in the library (estimators::prequential::run_config,
//! sweeps::holistic).

use std::path::PathBuf;

use clap::Args;

use crate::config::ShortcutArgs;
use crate::error::Result;
use crate::estimators::prequential::report::to_json;
use crate::estimators::prequential::run_config::{PrequentialFlags, Resolved, resolve};
use crate::io::limits::{configure, parse_max_memory};
use crate::sweeps::engine::ShardArgs;
use crate::sweeps::holistic::HSweep;

/// Prequential code length of Z given W and C^L(Z), from a TOML config (a generated language
/// system or user files); flags and `--set KEY=VALUE` override the config's keys.
///
/// Examples:
///   kcomp prequential --config configs/prequential/emergent.toml
///   kcomp prequential --config configs/prequential/emergent.toml --holistic-fraction 0.5 --out results/h0.5
///   kcomp prequential --w W.npy --z Z.npy --protocol reference --lr 0.003
///   kcomp prequential --config configs/prequential/emergent.toml --sweep-h 0,0.5,1 --seeds 3 --out results/sweep
///   kcomp prequential --w captions.txt --z Z.npy --precision 0.01 --out results/en
///   kcomp prequential --overlay results/en,results/de --figure results/overlay.png
#[derive(Debug, Clone, Args)]
#[command(verbatim_doc_comment)]
#[command(arg_required_else_help = true)]
pub struct PrequentialArgs {
    /// TOML configuration (e.g. configs/prequential/emergent.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Set any configuration key, e.g. language.n_vals=6 or (with --protocol reference)
    /// prequential.train.lr=0.003
    /// (repeatable; applied after the other flags).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    #[command(flatten)]
    pub flags: ShortcutArgs<PrequentialFlags>,
    /// Overwrite an output folder that holds a run with other settings.
    #[arg(long)]
    pub force: bool,
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
    /// In a sweep, read back the runs already finished in --out (a run folder whose
    /// config.toml matches) instead of recomputing them.
    #[arg(long)]
    pub resume: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Memory limit, e.g. 4G (default: half the physical memory); runs estimated above it
    /// are refused before anything is allocated.
    #[arg(long, value_name = "SIZE", value_parser = parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
    /// Overlay finished runs on one Z instead of running: their --out folders (each holding
    /// result.json), comma-separated; writes --figure (PNG, and SVG beside it): the bits per
    /// row of each chunk against the rows encoded, one line per run, log x, y zoomed to the data.
    #[arg(long, value_name = "DIR,DIR,...", value_delimiter = ',', requires = "figure", conflicts_with_all = ["sweep_h", "config"])]
    pub overlay: Option<Vec<PathBuf>>,
    /// Line labels of --overlay (default: the folders' names).
    #[arg(
        long,
        value_name = "NAME,NAME,...",
        value_delimiter = ',',
        requires = "overlay"
    )]
    pub labels: Option<Vec<String>>,
    /// The figure --overlay writes (.png; the .svg goes beside it).
    #[arg(long, value_name = "FILE.png", requires = "overlay")]
    pub figure: Option<PathBuf>,
    /// A --sweep-h sweep's plan in parts (runs are the jobs).
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// `kcomp prequential --overlay DIR,... --figure FILE.png`: finished runs on one figure.
fn overlay(dirs: &[PathBuf], labels: Option<&[String]>, figure: &std::path::Path) -> Result<()> {
    if let Some(l) = labels
        && l.len() != dirs.len()
    {
        return Err(crate::error::KcompError::param(
            "labels",
            format!("{} labels for {} runs", l.len(), dirs.len()),
        ));
    }
    let mut runs = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let path = dir.join("result.json");
        let text = crate::io::limits::read_text(&path)?;
        let r: crate::estimators::prequential::PrequentialResult = serde_json::from_str(&text)
            .map_err(|e| {
                crate::error::KcompError::file(&path, format!("not a prequential result ({e})"))
            })?;
        let label = match labels {
            Some(l) => l[i].clone(),
            None => dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| dir.display().to_string()),
        };
        runs.push((label, r));
    }
    let stem = figure.with_extension("");
    let written = crate::estimators::prequential::report::write_overlay(
        &runs,
        &stem,
        "Prequential code length per row, one line per W",
    )?;
    for p in written {
        outln!("wrote {}", p.display());
    }
    Ok(())
}

/// Resolves the configuration the arguments describe.
pub fn resolve_args(args: &PrequentialArgs) -> Result<Resolved> {
    resolve(args.config.as_deref(), &args.flags.given, &args.sets)
}

/// Runs `kcomp prequential`.
pub fn run(args: PrequentialArgs) -> Result<()> {
    if let (Some(dirs), Some(figure)) = (&args.overlay, &args.figure) {
        if let Some((shortcut, _)) = args.flags.given.first() {
            return Err(crate::error::KcompError::param(
                shortcut.flag,
                "does not apply to --overlay, which draws finished runs",
            ));
        }
        return overlay(dirs, args.labels.as_deref(), figure);
    }
    configure(None, args.max_memory)?;
    let resolved = resolve_args(&args)?;
    let sharding = args.shard.sharding()?;
    if let Some(list) = &args.sweep_h {
        let out = HSweep::new(
            resolved,
            list,
            args.seeds,
            args.resume,
            args.force,
            sharding,
        )?
        .run(!args.quiet)?;
        if out.json.is_null() {
            out!("{}", out.markdown);
            return Ok(());
        }
        match args.json {
            true => outln!("{}", out.json),
            false => out!("{}", out.markdown),
        }
        return Ok(());
    }
    if sharding.is_some() {
        return Err(crate::error::KcompError::param(
            "shard",
            "--shard, --job, --merge and --plan apply to a --sweep-h sweep",
        ));
    }
    let run = resolved.single_run(args.force, args.seeds, args.resume)?;
    if let Some(line) = &run.note {
        noteln!("{line}");
    }
    let r = run.run(!args.quiet && !args.json)?;
    match args.json {
        true => outln!("{}", to_json(&r)),
        false => out!("{}", run.render(&r)),
    }
    Ok(())
}
