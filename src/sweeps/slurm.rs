//! Sweeps as Slurm job arrays: one `sbatch --array=0-(T-1)%P` script whose task `i` runs
//! shard `i/T` of the plan (`--shard $SLURM_ARRAY_TASK_ID/T`, every result saved where
//! `--resume` reads it), and a merge job (`--dependency=afterok:<array>`) that writes the usual
//! tables from the saved results (`--merge`). Everything lives in the run folder: the scripts
//! and `submission.json` in `OUT/slurm/`, one log per task in `OUT/slurm/logs/`.
//!
//! A failed, cancelled or timed-out task leaves its jobs without a saved result: [`tasks_of`]
//! maps the missing jobs back to their tasks, and a resubmission runs only those tasks (a task
//! reads back the jobs it had already saved).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::error::{KcompError, Result};

use super::engine::{index_list, safe_file_name, write_file};

/// Largest array Slurm accepts by default (`MaxArraySize = 1001`: indices 0..=1000).
pub const DEFAULT_MAX_TASKS: usize = 1000;
/// Most jobs in a plan (a sweep has at most 100,000 values, times its seeds).
pub const MAX_JOBS: usize = 100_000_000;
/// Most CPUs per task.
pub const MAX_CPUS_PER_TASK: usize = 10_000;
/// Most arrays one submission records (the first and every resubmission).
pub const MAX_SUBMISSIONS: usize = 10_000;

/// The `#SBATCH` settings and the environment of the tasks.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SlurmOptions {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--time` (e.g. `1:00:00`).
    pub time: Option<String>,
    /// `--mem` (e.g. `4G`).
    pub mem: Option<String>,
    /// `--cpus-per-task` (also the tasks' thread count).
    pub cpus_per_task: usize,
    /// Tasks running at once (`%P` of `--array`; `None`: no limit).
    pub parallelism: Option<usize>,
    /// Array size (each task runs one shard; default: one job per task, at most 1000).
    pub tasks: Option<usize>,
    /// Extra `#SBATCH` lines (e.g. `--gres=gpu:1`, `--account=lab`).
    pub sbatch_lines: Vec<String>,
    /// Shell lines run before kcomp in every task (e.g. `module load rust`).
    pub setup: Vec<String>,
}

/// A submitted (or written) array, saved as `OUT/slurm/submission.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Submission {
    /// The kcomp executable the scripts run.
    pub kcomp: PathBuf,
    /// The sweep's kcomp arguments (without the executable and the shard options).
    pub args: Vec<String>,
    /// Where the tasks run (the arguments' relative paths are relative to it).
    pub workdir: PathBuf,
    /// The run folder.
    pub out: PathBuf,
    /// Jobs in the plan.
    pub jobs: usize,
    /// Array tasks (task `i` runs shard `i/tasks`).
    pub tasks: usize,
    pub options: SlurmOptions,
    /// Slurm job ids of every array submitted, first to last.
    pub array_jobs: Vec<String>,
    /// Slurm job id of the latest merge job.
    pub merge_job: Option<String>,
}

/// Checks an option that goes into an `#SBATCH` line: letters, digits and `-_:.,+=@/[]`.
fn check_value(name: &str, value: &str) -> Result<()> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "-_:.,+=@/[]".contains(c);
    if value.is_empty() || !value.chars().all(ok) {
        return Err(KcompError::param(
            name,
            format!("{value:?}: use letters, digits and -_:.,+=@/[] only"),
        ));
    }
    Ok(())
}

/// A path for an `#SBATCH` line, in double quotes: sbatch reads these lines itself (no
/// shell), so a path with `"`, `\`, `%` (Slurm's file-name patterns) or a control character
/// cannot be written safely and is refused.
fn sbatch_path(what: &str, path: &Path) -> Result<String> {
    let text = path
        .to_str()
        .ok_or_else(|| KcompError::file(path, format!("{what}: the path is not UTF-8")))?;
    if let Some(c) = text
        .chars()
        .find(|c| matches!(c, '"' | '\\' | '%') || c.is_control())
    {
        return Err(KcompError::file(
            path,
            format!(
                "{what}: a path with {c:?} cannot go into an #SBATCH line; choose another folder"
            ),
        ));
    }
    Ok(format!("\"{text}\""))
}

/// A word for the shell, single-quoted when needed.
fn quote(word: &str) -> Result<String> {
    shlex::try_quote(word)
        .map(|q| q.into_owned())
        .map_err(|_| KcompError::param("args", format!("{word:?} holds a NUL byte")))
}

impl Submission {
    /// Checks the options and sizes the array.
    pub fn new(
        kcomp: PathBuf,
        args: Vec<String>,
        workdir: PathBuf,
        out: PathBuf,
        jobs: usize,
        options: SlurmOptions,
    ) -> Result<Submission> {
        let tasks = options.tasks.unwrap_or(jobs.min(DEFAULT_MAX_TASKS));
        let out = if out.is_absolute() {
            out
        } else {
            workdir.join(out)
        };
        let sub = Submission {
            kcomp,
            args,
            workdir,
            out,
            jobs,
            tasks,
            options,
            array_jobs: Vec::new(),
            merge_job: None,
        };
        sub.validate()
            .map_err(|(name, why)| KcompError::param(name, why))?;
        Ok(sub)
    }

    /// The options checked before the sweep is planned (planning writes the run folder's
    /// plan): everything [`Self::validate`] checks that does not need the plan's size.
    pub fn check_options(options: &SlurmOptions) -> Result<()> {
        if let Some(t) = options.tasks
            && !(1..=MAX_JOBS).contains(&t)
        {
            return Err(KcompError::param(
                "tasks",
                format!("{t}: must be in 1..=the plan's jobs"),
            ));
        }
        // The largest plan there can be: only the plan-independent checks can fail.
        let probe = Submission {
            kcomp: PathBuf::from("/kcomp"),
            args: Vec::new(),
            workdir: PathBuf::from("/"),
            out: PathBuf::from("/"),
            jobs: MAX_JOBS,
            tasks: options.tasks.unwrap_or(MAX_JOBS),
            options: options.clone(),
            array_jobs: Vec::new(),
            merge_job: None,
        };
        probe
            .validate()
            .map_err(|(name, why)| KcompError::param(name, why))
    }

    /// Every value that goes into a script, a path or a command line, checked: by [`Self::new`]
    /// on the options, by [`Self::load`] on a saved submission (which may have been edited).
    /// The error names the field.
    fn validate(&self) -> std::result::Result<(), (&'static str, String)> {
        let (jobs, tasks, options) = (self.jobs, self.tasks, &self.options);
        if jobs == 0 || jobs > MAX_JOBS {
            return Err(("jobs", format!("{jobs}: must be in 1..={MAX_JOBS}")));
        }
        for (name, value) in [
            ("partition", &options.partition),
            ("time", &options.time),
            ("mem", &options.mem),
        ] {
            if let Some(v) = value {
                check_value(name, v).map_err(|_| {
                    (
                        name,
                        format!("{v:?}: use letters, digits and -_:.,+=@/[] only"),
                    )
                })?;
            }
        }
        if !(1..=MAX_CPUS_PER_TASK).contains(&options.cpus_per_task) {
            return Err((
                "cpus-per-task",
                format!(
                    "{}: must be in 1..={MAX_CPUS_PER_TASK}",
                    options.cpus_per_task
                ),
            ));
        }
        if let Some(p) = options.parallelism
            && !(1..=tasks.max(1)).contains(&p)
        {
            return Err((
                "parallel",
                format!("{p}: must be in 1..={tasks} (the array has {tasks} tasks)"),
            ));
        }
        for line in &options.sbatch_lines {
            if !line.starts_with('-') || line.chars().any(char::is_control) {
                return Err((
                    "sbatch",
                    format!("{line:?}: one sbatch option per line, e.g. --gres=gpu:1"),
                ));
            }
        }
        if let Some(line) = options
            .setup
            .iter()
            .find(|l| l.contains(['\n', '\r', '\0']))
        {
            return Err(("setup", format!("{line:?}: one shell line per --setup")));
        }
        if tasks == 0 || tasks > jobs {
            return Err((
                "tasks",
                format!("{tasks}: must be in 1..={jobs} (the plan has {jobs} jobs)"),
            ));
        }
        // Job ids go into log paths and scancel's command line: Slurm's are decimal numbers.
        let id_ok =
            |id: &str| !id.is_empty() && id.len() <= 20 && id.bytes().all(|b| b.is_ascii_digit());
        if let Some(id) = self
            .array_jobs
            .iter()
            .chain(&self.merge_job)
            .find(|id| !id_ok(id))
        {
            return Err((
                "array_jobs",
                format!(
                    "{:?} is not a Slurm job id (digits only)",
                    crate::io::names::terminal(id)
                ),
            ));
        }
        if self.array_jobs.len() > MAX_SUBMISSIONS {
            return Err(("array_jobs", format!("more than {MAX_SUBMISSIONS} arrays")));
        }
        if !self.out.is_absolute() || !self.workdir.is_absolute() {
            return Err((
                "out",
                "the run and working folders must be absolute paths".into(),
            ));
        }
        Ok(())
    }

    /// `OUT/slurm`.
    pub fn dir(&self) -> PathBuf {
        self.out.join("slurm")
    }

    /// `OUT/slurm/array.sh` and `OUT/slurm/merge.sh`.
    pub fn script_paths(&self) -> (PathBuf, PathBuf) {
        (self.dir().join("array.sh"), self.dir().join("merge.sh"))
    }

    /// The log of array task `task` of array job `array_job`.
    pub fn task_log(&self, array_job: &str, task: usize) -> PathBuf {
        self.dir()
            .join("logs")
            .join(format!("task_{array_job}_{task}.log"))
    }

    fn header(&self, name: &str, log: &str) -> Result<String> {
        let o = &self.options;
        // The folder is checked; the file name is ours, with Slurm's patterns (%A, %a, %j).
        let logs = sbatch_path("run folder", &self.dir().join("logs"))?;
        let logs = logs.trim_end_matches('"');
        let mut text = format!(
            "#!/bin/bash\n#SBATCH --job-name={name}\n#SBATCH --output={logs}/{log}\"\n\
             #SBATCH --chdir={}\n#SBATCH --cpus-per-task={}\n",
            sbatch_path("working folder", &self.workdir)?,
            o.cpus_per_task,
        );
        for (key, value) in [
            ("partition", &o.partition),
            ("time", &o.time),
            ("mem", &o.mem),
        ] {
            if let Some(v) = value {
                text += &format!("#SBATCH --{key}={v}\n");
            }
        }
        for line in &o.sbatch_lines {
            text += &format!("#SBATCH {line}\n");
        }
        Ok(text)
    }

    fn body(&self, part: &str) -> Result<String> {
        let mut text = String::from("set -euo pipefail\n");
        for line in &self.options.setup {
            text += line;
            text.push('\n');
        }
        text += "export RAYON_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\nexec";
        let kcomp = self
            .kcomp
            .to_str()
            .ok_or_else(|| KcompError::file(&self.kcomp, "the kcomp path is not UTF-8"))?;
        for word in std::iter::once(kcomp).chain(self.args.iter().map(String::as_str)) {
            text.push(' ');
            text += &quote(word)?;
        }
        // clap refuses a flag given twice.
        if !self.args.iter().any(|a| a == "--quiet") {
            text += " --quiet";
        }
        text += " ";
        text += part;
        text.push('\n');
        Ok(text)
    }

    fn name(&self) -> String {
        let base = self
            .out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("kcomp-{}", safe_file_name(&base))
    }

    /// The array script and the merge script.
    pub fn scripts(&self) -> Result<(String, String)> {
        let name = self.name();
        let throttle = self
            .options
            .parallelism
            .map(|p| format!("%{p}"))
            .unwrap_or_default();
        let array = format!(
            "{}#SBATCH --array=0-{}{throttle}\n# Task i runs shard i/{} of the plan's {} jobs \
             (kcomp slurm submit).\n{}",
            self.header(&name, "task_%A_%a.log")?,
            self.tasks - 1,
            self.tasks,
            self.jobs,
            self.body(&format!(
                "--shard \"${{SLURM_ARRAY_TASK_ID}}/{}\"",
                self.tasks
            ))?,
        );
        let merge = format!(
            "{}# The tables from every task's saved results (kcomp slurm submit).\n{}",
            self.header(&format!("{name}-merge"), "merge_%j.log")?,
            self.body("--merge")?,
        );
        Ok((array, merge))
    }

    /// Writes the scripts and `submission.json` into `OUT/slurm/`.
    pub fn write(&self) -> Result<()> {
        let (array, merge) = self.scripts()?;
        let (array_path, merge_path) = self.script_paths();
        write_file(&array_path, array.as_bytes())?;
        write_file(&merge_path, merge.as_bytes())?;
        let logs = self.dir().join("logs");
        crate::io::files::create_dir_all(&logs)?;
        self.save()
    }

    /// Saves `submission.json`.
    pub fn save(&self) -> Result<()> {
        let path = self.dir().join("submission.json");
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| KcompError::Other(format!("{}: {e}", path.display())))?;
        write_file(&path, text.as_bytes())
    }

    /// Reads `OUT/slurm/submission.json` (`dir` is OUT or OUT/slurm) and checks it like a new
    /// submission (ids, sizes, options), and that it belongs to this run folder: a file
    /// edited or damaged by hand is refused before any value reaches a path or a command.
    pub fn load(dir: &Path) -> Result<Submission> {
        let slurm = if dir.join("slurm").join("submission.json").exists() {
            dir.join("slurm")
        } else {
            dir.to_path_buf()
        };
        let path = slurm.join("submission.json");
        let text = crate::io::limits::read_text(&path)?;
        let sub: Submission =
            serde_json::from_str(&text).map_err(|e| KcompError::file(&path, e.to_string()))?;
        sub.validate().map_err(|(name, why)| {
            KcompError::file(
                &path,
                format!("field `{name}`: {why} (the file was edited or damaged; submit again)"),
            )
        })?;
        let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same(&sub.dir(), &slurm) {
            return Err(KcompError::file(
                &path,
                format!(
                    "belongs to the run folder {}, not this one (moved or copied); submit again",
                    crate::io::names::terminal(&sub.out.display().to_string())
                ),
            ));
        }
        Ok(sub)
    }

    /// Submits the array (all tasks, or only `tasks`) and a merge job that waits for it; a
    /// previous merge job (left waiting by a failed task) is cancelled first. Returns the
    /// array's and the merge job's ids.
    pub fn submit(&mut self, tasks: Option<&[usize]>) -> Result<(String, String)> {
        let (array_path, merge_path) = self.script_paths();
        if let Some(old) = self.merge_job.take() {
            // Best effort: it may have run, failed or been cancelled already.
            let _ = Command::new("scancel").arg(&old).output();
        }
        let mut extra = Vec::new();
        if let Some(list) = tasks {
            let throttle = self
                .options
                .parallelism
                .map(|p| format!("%{p}"))
                .unwrap_or_default();
            extra.push(format!("--array={}{throttle}", index_list(list)));
        }
        let array = sbatch(&extra, &array_path)?;
        self.array_jobs.push(array.clone());
        self.save()?;
        let merge = sbatch(&[format!("--dependency=afterok:{array}")], &merge_path)?;
        self.merge_job = Some(merge.clone());
        self.save()?;
        Ok((array, merge))
    }
}

/// The tasks that run `jobs` (task `job % tasks`), sorted, each once.
pub fn tasks_of(jobs: &[usize], tasks: usize) -> Vec<usize> {
    let mut out: Vec<usize> = jobs.iter().map(|j| j % tasks.max(1)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `sbatch --parsable [extra] SCRIPT`; returns the job id.
fn sbatch(extra: &[String], script: &Path) -> Result<String> {
    let output = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .map_err(|e| KcompError::Other(format!("running sbatch: {e} (is Slurm installed?)")))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    // `--parsable` prints `id` or `id;cluster`.
    let id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if !output.status.success() || id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(KcompError::file(
            script,
            format!(
                "sbatch failed ({}): {}",
                output.status,
                stderr.trim().replace('\n', " ")
            ),
        ));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission(out: &str, options: SlurmOptions) -> Result<Submission> {
        Submission::new(
            "/opt/kcomp bin/kcomp".into(),
            vec![
                "sweep".into(),
                "a b's.toml".into(),
                "--out".into(),
                out.into(),
            ],
            "/work dir".into(),
            out.into(),
            70,
            options,
        )
    }

    #[test]
    fn scripts_quote_names_and_size_the_array() {
        let options = SlurmOptions {
            partition: Some("debug".into()),
            time: Some("0:10:00".into()),
            cpus_per_task: 2,
            parallelism: Some(4),
            tasks: Some(10),
            sbatch_lines: vec!["--gres=gpu:1".into()],
            setup: vec!["module load rust".into()],
            ..Default::default()
        };
        let s = submission("runs/$(rm x)", options.clone()).unwrap();
        let (array, merge) = s.scripts().unwrap();
        assert!(array.contains("#SBATCH --array=0-9%4\n"), "{array}");
        assert!(array.contains("#SBATCH --partition=debug\n#SBATCH --time=0:10:00\n"));
        assert!(array.contains("#SBATCH --gres=gpu:1\n#SBATCH --array=0-9%4\n"));
        assert!(array.contains("set -euo pipefail\nmodule load rust\n"));
        assert!(
            array.contains(
                "#SBATCH --output=\"/work dir/runs/$(rm x)/slurm/logs/task_%A_%a.log\"\n"
            )
        );
        assert!(
            array.contains("#SBATCH --job-name=kcomp-__rm_x_\n"),
            "{array}"
        );
        assert!(
            array.contains(
                "exec '/opt/kcomp bin/kcomp' sweep \"a b's.toml\" --out 'runs/$(rm x)' --quiet \
             --shard \"${SLURM_ARRAY_TASK_ID}/10\"\n"
            ),
            "{array}"
        );
        assert!(merge.contains("--quiet --merge\n") && !merge.contains("--array"));
        // Refused: values that would break an #SBATCH line, paths Slurm would rewrite.
        let bad = |o: SlurmOptions| submission("runs/x", o).unwrap_err().to_string();
        let with = |f: fn(&mut SlurmOptions)| {
            let mut o = options.clone();
            f(&mut o);
            o
        };
        assert!(bad(with(|o| o.time = Some("1 --x".into()))).contains("time"));
        assert!(bad(with(|o| o.tasks = Some(71))).contains("70 jobs"));
        assert!(bad(with(|o| o.sbatch_lines = vec!["--a\n--b".into()])).contains("sbatch"));
        let s = submission("runs/100%", options).unwrap();
        assert!(s.scripts().unwrap_err().to_string().contains("'%'"));
    }

    #[test]
    fn missing_jobs_map_to_their_tasks() {
        assert_eq!(tasks_of(&[3, 13, 23, 5], 10), vec![3, 5]);
        assert_eq!(tasks_of(&[69], 70), vec![69]);
        let s = submission(
            "out",
            SlurmOptions {
                cpus_per_task: 1,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.tasks, 70);
        assert_eq!(s.out, PathBuf::from("/work dir/out"));
    }
}
