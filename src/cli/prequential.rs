//! `kcomp prequential`: parses the command line and prints; the configuration, the run, the
//! sweep and its tables live in the library (estimators::prequential::run_config,
//! sweeps::holistic).

use std::path::PathBuf;

use clap::Args;

use crate::config::Shortcut;
use crate::error::{KcompError, Result};
use crate::estimators::prequential::code::{progress_bar, validate};
use crate::estimators::prequential::report::to_json;
use crate::estimators::prequential::run_config::{
    Resolved, SHORTCUTS, check_overwrite, resolve, write_outputs,
};
use crate::estimators::prequential::{PrequentialResult, language_compositionality};
use crate::sweeps::holistic;

use super::flags::{ShortcutArgs, ShortcutTable};

/// The shortcut flags of `kcomp prequential`.
#[derive(Debug, Clone)]
pub struct PrequentialFlags;

impl ShortcutTable for PrequentialFlags {
    const TABLE: &'static [Shortcut] = SHORTCUTS;
}

/// Prequential code length of Z given W and C^L(Z), from a TOML config (a generated language
/// system or user files); flags and `--set KEY=VALUE` override the config's keys.
///
/// Examples:
///   kcomp prequential --config configs/prequential/emergent.toml
///   kcomp prequential --config configs/prequential/emergent.toml --holistic-fraction 0.5 --out results/h0.5
///   kcomp prequential --w W.npy --z Z.npy --set prequential.train.lr=0.003
///   kcomp prequential --config configs/prequential/emergent.toml --sweep-h 0,0.5,1 --seeds 3 --out results/sweep
#[derive(Debug, Clone, Args)]
#[command(arg_required_else_help = true)]
pub struct PrequentialArgs {
    /// TOML configuration (e.g. configs/prequential/emergent.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Set any configuration key, e.g. prequential.train.lr=0.003 or language.n_vals=6
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
    #[arg(long, value_name = "SIZE", value_parser = super::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

/// Resolves the configuration the arguments describe.
pub fn resolve_args(args: &PrequentialArgs) -> Result<Resolved> {
    resolve(args.config.as_deref(), &args.flags.given, &args.sets)
}

/// Runs `kcomp prequential`.
pub fn run(args: PrequentialArgs) -> Result<()> {
    if let Some(bytes) = args.max_memory {
        crate::io::limits::set_max_memory(bytes);
    }
    let mut resolved = resolve_args(&args)?;
    if let Some(list) = &args.sweep_h {
        return sweep(&args, resolved, list);
    }
    for (set, name) in [(args.seeds.is_some(), "seeds"), (args.resume, "resume")] {
        if set {
            return Err(KcompError::param(name, "only applies to a --sweep-h sweep"));
        }
    }
    let (w, z) = resolved.config.load_data()?;
    let val_size_note = resolved.settle_val_size(w.n);
    let cfg = resolved.config;
    validate(&w, &z, &cfg.prequential)?;
    if let Some(dir) = &cfg.output.dir {
        check_overwrite(&cfg, dir, args.force)?;
    }
    if let Some(line) = val_size_note {
        eprintln!("{line}");
    }
    let pb = progress_bar(!args.quiet && !args.json);
    let r = language_compositionality(&w, &z, &cfg.prequential, Some(&pb))?;
    pb.finish_and_clear();
    if let Some(dir) = &cfg.output.dir {
        write_outputs(&r, &cfg, dir)?;
    }
    if args.json {
        println!("{}", to_json(&r));
    } else {
        print_result(&r, &cfg.title());
        if let Some(dir) = &cfg.output.dir {
            println!("outputs in          {}", dir.display());
        }
    }
    Ok(())
}

fn print_result(r: &PrequentialResult, title: &str) {
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
}

/// C^L against the holistic fraction, several seeds each.
fn sweep(args: &PrequentialArgs, mut resolved: Resolved, list: &str) -> Result<()> {
    let hs = list
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .map_err(|_| KcompError::param("sweep_h", format!("`{x}` is not a valid number")))
        })
        .collect::<Result<Vec<f64>>>()?;
    let seeds = args.seeds.unwrap_or(5);
    holistic::check(&hs, seeds, &resolved.config, &resolved.overridden)?;
    let dir = resolved
        .config
        .output
        .dir
        .clone()
        .ok_or_else(|| KcompError::param("out", "a sweep needs an output directory (--out)"))?;
    // Every language of the sweep has the same size: V^A objects x repeats rows.
    let language = resolved.config.language.clone().unwrap_or_default();
    resolved.settle_val_size(language.validate()?.saturating_mul(language.repeats));
    let runs = holistic::plan(&resolved.config, &hs, seeds, &dir);
    if !args.resume {
        for run in &runs {
            check_overwrite(&run.config, &run.dir, args.force)?;
        }
    }
    let pb = progress_bar(!args.quiet);
    let results = holistic::run_sweep(&runs, &dir, args.resume, &pb)?;
    pb.finish_and_clear();
    let md = holistic::write_tables(&dir, &hs, &runs, &results)?;
    if args.json {
        let v: Vec<serde_json::Value> = runs
            .iter()
            .zip(&results)
            .map(|(run, r)| serde_json::json!({"h": run.h, "seed": run.seed, "c_l": r.c_l, "k_data": r.k_data, "k_z": r.k_z}))
            .collect();
        println!("{}", serde_json::Value::Array(v));
    } else {
        print!("{md}");
    }
    Ok(())
}
