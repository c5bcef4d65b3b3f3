//! `kcomp slurm`: a sweep as a Slurm job array (submit, status, resubmit). The scripts, their
//! checks and `sbatch` live in `sweeps::slurm`; this file parses, plans and prints.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::error::{KcompError, Result};
use crate::sweeps::engine::{Part, ShardArgs, Sharding, Tally, index_list};
use crate::sweeps::holistic::HSweep;
use crate::sweeps::paper::{reproduce, sweep_files};
use crate::sweeps::slurm::{SlurmOptions, Submission, tasks_of};

use super::{Cli, Command};

/// Run a sweep as a Slurm job array: `kcomp sweep`, `reproduce`, `compare CONFIG` or
/// `prequential --sweep-h`, given after `--`.
///
/// Array task i runs shard i/T of the sweep's plan (`--shard $SLURM_ARRAY_TASK_ID/T`), saving
/// every result where --resume reads it; a merge job (--dependency=afterok) then writes the
/// usual tables with --merge. Scripts, submission.json and one log per task go to OUT/slurm/.
///
/// Examples:
///   kcomp slurm submit --tasks 10 --parallel 4 --time 0:30:00 -- sweep configs/paper/lookup-length.toml --out runs/length
///   kcomp slurm status runs/length
///   kcomp slurm resubmit runs/length
#[derive(Debug, Args)]
pub struct SlurmArgs {
    #[command(subcommand)]
    pub command: SlurmCommand,
}

#[derive(Debug, Subcommand)]
pub enum SlurmCommand {
    /// Write the array and merge scripts into OUT/slurm/ and submit them (--dry-run: print).
    Submit(SubmitArgs),
    /// Which jobs of a submitted run have no saved result yet, and the tasks that run them.
    Status {
        /// The run folder (the sweep's --out).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Submit again only the tasks whose jobs have no saved result (failed, cancelled or
    /// timed out), and a new merge job.
    Resubmit {
        /// The run folder (the sweep's --out).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Print the sbatch commands instead of running them.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// Slurm partition (default: the cluster's default partition).
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit of each task, e.g. 1:00:00 (default: the partition's limit).
    #[arg(long)]
    pub time: Option<String>,
    /// Memory of each task, e.g. 4G (default: the partition's default).
    #[arg(long)]
    pub mem: Option<String>,
    /// CPUs of each task (also its thread count).
    #[arg(long, default_value_t = 1)]
    pub cpus_per_task: usize,
    /// Tasks running at once (the %P of --array; default: no limit).
    #[arg(long, value_name = "P")]
    pub parallel: Option<usize>,
    /// Array size: task i runs the jobs j with j mod T = i (default: one job per task, at
    /// most 1000 tasks).
    #[arg(long, value_name = "T")]
    pub tasks: Option<usize>,
    /// Extra #SBATCH option (repeatable), e.g. --sbatch=--gres=gpu:1.
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
    /// Shell line run before kcomp in each task (repeatable), e.g. --setup 'module load rust'.
    #[arg(long = "setup", value_name = "LINE", allow_hyphen_values = true)]
    pub setup: Vec<String>,
    /// The kcomp executable the tasks run (default: this one).
    #[arg(long, value_name = "PATH")]
    pub kcomp: Option<PathBuf>,
    /// Write and print the scripts; submit nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace a submission already in OUT/slurm/ (its array's job ids are then forgotten).
    #[arg(long)]
    pub force: bool,
    /// The sweep's kcomp arguments, after `--`.
    #[arg(last = true, required = true, value_name = "KCOMP ARGS")]
    pub args: Vec<String>,
}

/// Runs `kcomp slurm`.
pub fn run(args: SlurmArgs) -> anyhow::Result<()> {
    match args.command {
        SlurmCommand::Submit(a) => out!("{}", submit(a)?),
        SlurmCommand::Status { dir } => {
            let (sub, missing) = status(&dir)?;
            out!("{}", describe_status(&sub, &missing, &dir));
        }
        SlurmCommand::Resubmit { dir, dry_run } => out!("{}", resubmit(&dir, dry_run)?),
    }
    Ok(())
}

fn no_shard_options(shard: &ShardArgs) -> Result<()> {
    match shard.sharding()? {
        Some(_) => Err(KcompError::param(
            "args",
            "the array sets --shard and --merge itself: leave out --shard, --job, --merge, --plan",
        )),
        None => Ok(()),
    }
}

/// The plan of the sweep `args` describes (writes OUT/plan.csv; nothing computed).
fn plan(args: &[String]) -> Result<Tally> {
    let words = std::iter::once("kcomp").chain(args.iter().map(String::as_str));
    let cli = Cli::try_parse_from(words).map_err(|e| {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or("").trim().to_string();
        KcompError::param("args", format!("the sweep's arguments: {first}"))
    })?;
    let sharding = Sharding::new(Part::Plan)?;
    let s = Some(&sharding);
    match cli.command {
        Command::Sweep(a) => {
            no_shard_options(&a.run.shard)?;
            sweep_files(&a.configs, &a.out, a.run.resume, a.run.force, true, s)?;
        }
        Command::Reproduce(a) => {
            no_shard_options(&a.run.shard)?;
            reproduce(a.rng, &a.out, a.run.resume, a.run.force, true, s)?;
        }
        Command::Compare(a) if a.config.is_some() => {
            no_shard_options(&a.shard)?;
            let config = a.config.as_deref().unwrap_or(Path::new(""));
            crate::panel::run_panel_file(
                config,
                &a.set,
                a.out.as_deref(),
                crate::panel::PanelRunFlags {
                    threads: 0,
                    resume: a.resume,
                    force: a.force,
                    quiet: true,
                },
                s,
            )?;
        }
        Command::Prequential(a) if a.sweep_h.is_some() => {
            no_shard_options(&a.shard)?;
            let resolved = super::prequential::resolve_args(&a)?;
            let list = a.sweep_h.as_deref().unwrap_or("");
            let sweep = HSweep::new(resolved, list, a.seeds, a.resume, a.force, Some(sharding))?;
            sweep.run(false)?;
            let sharding = sweep
                .sharding()
                .ok_or_else(|| KcompError::Other("the sweep's plan".into()))?;
            return sharding.finish();
        }
        _ => {
            return Err(KcompError::param(
                "args",
                "kcomp slurm runs `sweep`, `reproduce`, `compare CONFIG` or `prequential --sweep-h`",
            ));
        }
    }
    sharding.finish()
}

fn submit(a: SubmitArgs) -> Result<String> {
    let workdir = std::env::current_dir().map_err(|e| KcompError::io(".", e))?;
    let kcomp = match a.kcomp {
        Some(p) => p,
        None => std::env::current_exe().map_err(|e| KcompError::io("kcomp", e))?,
    };
    let options = SlurmOptions {
        partition: a.partition,
        time: a.time,
        mem: a.mem,
        cpus_per_task: a.cpus_per_task,
        parallelism: a.parallel,
        tasks: a.tasks,
        sbatch_lines: a.sbatch,
        setup: a.setup,
    };
    // Before the plan, which writes the run folder.
    Submission::check_options(&options)?;
    let tally = plan(&a.args)?;
    let out = tally
        .out
        .clone()
        .ok_or_else(|| KcompError::param("args", "the sweep has no output folder (--out)"))?;
    let mut sub = Submission::new(kcomp, a.args, workdir, out, tally.jobs, options)?;
    // One submit or resubmit at a time per run folder; an earlier submission (with the job
    // ids `status` and `resubmit` need) is replaced only on request.
    let _lock = crate::io::files::lock_dir(&sub.dir())?;
    let saved = sub.dir().join("submission.json");
    if !a.force && std::fs::symlink_metadata(&saved).is_ok() {
        // A dry run's submission (no job submitted) may be replaced; one with job ids, or
        // one kcomp cannot read, only with --force.
        let submitted = crate::io::limits::read_text(&saved)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .map(|v| v["array_jobs"].as_array().is_none_or(|a| !a.is_empty()))
            .unwrap_or(true);
        if submitted {
            return Err(KcompError::file(
                &saved,
                "holds an earlier submission of this run (see `kcomp slurm status`); `kcomp \
                 slurm resubmit` runs its missing tasks, --force replaces it",
            ));
        }
    }
    sub.write()?;
    let (array_path, merge_path) = sub.script_paths();
    let mut text = format!(
        "plan: {} jobs ({} already saved) in {} array tasks; task i runs the jobs j with \
         j mod {} = i\n",
        sub.jobs,
        sub.jobs - tally.missing().len(),
        sub.tasks,
        sub.tasks
    );
    if a.dry_run {
        let (array, merge) = sub.scripts()?;
        let _ = write!(
            text,
            "# {}\n{array}\n# {} (sbatch --dependency=afterok:<array job>)\n{merge}\
             written, not submitted (--dry-run)\n",
            array_path.display(),
            merge_path.display()
        );
        return Ok(text);
    }
    let (array, merge) = sub.submit(None)?;
    let _ = write!(
        text,
        "submitted array job {array} ({}) and merge job {merge} (afterok:{array})\n\
         scripts: {}, {}\nlogs: {}\nstatus: kcomp slurm status {}\n",
        sub.options
            .parallelism
            .map(|p| format!("{} tasks, at most {p} at once", sub.tasks))
            .unwrap_or_else(|| format!("{} tasks", sub.tasks)),
        array_path.display(),
        merge_path.display(),
        sub.dir().join("logs").display(),
        sub.out.display()
    );
    Ok(text)
}

/// The saved submission of `dir` and the jobs without a saved result.
fn status(dir: &Path) -> Result<(Submission, Vec<usize>)> {
    let sub = Submission::load(dir)?;
    // The sweep's arguments are relative to the folder it was submitted from.
    std::env::set_current_dir(&sub.workdir).map_err(|e| KcompError::io(&sub.workdir, e))?;
    let tally = plan(&sub.args)?;
    if tally.jobs != sub.jobs {
        return Err(KcompError::file(
            sub.dir().join("submission.json"),
            format!(
                "the sweep now plans {} jobs, the submission {}: its config changed; submit it again",
                tally.jobs, sub.jobs
            ),
        ));
    }
    Ok((sub, tally.missing()))
}

fn describe_status(sub: &Submission, missing: &[usize], dir: &Path) -> String {
    let mut text = format!(
        "{} jobs in {} tasks (array jobs {}; merge job {}): {} saved, {} missing\n",
        sub.jobs,
        sub.tasks,
        if sub.array_jobs.is_empty() {
            "none".into()
        } else {
            sub.array_jobs.join(", ")
        },
        sub.merge_job.as_deref().unwrap_or("none"),
        sub.jobs - missing.len(),
        missing.len()
    );
    if missing.is_empty() {
        text += "complete: the merge job (or --merge) writes the tables\n";
        return text;
    }
    let tasks = tasks_of(missing, sub.tasks);
    let _ = writeln!(
        text,
        "missing jobs: {}\ntasks to run again: {}",
        index_list(missing),
        index_list(&tasks)
    );
    if let Some(last) = sub.array_jobs.last() {
        let _ = writeln!(
            text,
            "their logs: {}",
            sub.task_log(last, tasks[0])
                .display()
                .to_string()
                .replace(&format!("_{}.log", tasks[0]), "_<task>.log")
        );
    }
    let _ = writeln!(
        text,
        "resubmit them: kcomp slurm resubmit {}",
        dir.display()
    );
    text
}

fn resubmit(dir: &Path, dry_run: bool) -> Result<String> {
    let (mut sub, missing) = status(dir)?;
    // The submission is rewritten with the new job ids: one resubmit at a time.
    let _lock = crate::io::files::lock_dir(&sub.dir())?;
    let mut text = describe_status(&sub, &missing, dir);
    if missing.is_empty() {
        return Ok(text);
    }
    let tasks = tasks_of(&missing, sub.tasks);
    let (array_path, merge_path) = sub.script_paths();
    if dry_run {
        let _ = write!(
            text,
            "would run: sbatch --array={}{} {}\n           sbatch --dependency=afterok:<array job> {}\n",
            index_list(&tasks),
            sub.options
                .parallelism
                .map(|p| format!("%{p}"))
                .unwrap_or_default(),
            array_path.display(),
            merge_path.display()
        );
        return Ok(text);
    }
    let (array, merge) = sub.submit(Some(&tasks))?;
    let _ = writeln!(
        text,
        "submitted array job {array} (tasks {}) and merge job {merge} (afterok:{array})",
        index_list(&tasks)
    );
    Ok(text)
}
