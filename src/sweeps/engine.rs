//! The one sweep engine: a list of independent jobs run on worker threads, results kept in
//! job order (so they do not depend on the thread count: every job seeds its own streams), each
//! result saved as it finishes and, with `resume`, read back instead of recomputed when the
//! saved settings match. The compare panel, `kcomp sweep`/`reproduce` and the prequential
//! h-sweep all run through it.
//!
//! With a [`Sharding`], an invocation runs one part of the plan instead (a shard or one job, as
//! a Slurm array task does), lists it ([`Part::Plan`]) or merges the saved results of every job
//! ([`Part::Merge`]) into the usual tables; the job indices run over every plan one invocation
//! gives the engine (a sweep of several configs is one plan).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{KcompError, Result};
use crate::progress::WorkBar;

/// A saved result as read back: missing (or saved with other settings), refused (saved with
/// the job's settings but not to be trusted: why), or found and verified.
#[derive(Debug)]
pub enum Lookup<R> {
    Missing,
    Refused(String),
    Found(R),
}

/// Where finished jobs are kept between invocations.
pub trait Store<J, R>: Sync {
    /// The saved result of `job`, verified ([`Lookup`]).
    fn lookup(&self, job: &J) -> Lookup<R>;
    /// A saved, verified result of `job` made with the same settings, if any.
    fn load(&self, job: &J) -> Option<R> {
        match self.lookup(job) {
            Lookup::Found(r) => Some(r),
            _ => None,
        }
    }
    /// Saves the result of `job`.
    fn save(&self, job: &J, result: &R) -> Result<()>;
    /// Where the result of `job` is saved (the job plan lists it).
    fn location(&self, job: &J) -> PathBuf;
}

/// What a saved result must satisfy to be trusted, beyond its digest: values in range and
/// the relations between them (C = K(Z)/K(Z|W) recomputed, ...). The error says which.
pub trait SavedResult {
    fn check_saved(&self) -> std::result::Result<(), String>;
}

impl<T: SavedResult> SavedResult for Vec<T> {
    fn check_saved(&self) -> std::result::Result<(), String> {
        self.iter().try_for_each(SavedResult::check_saved)
    }
}

impl SavedResult for u64 {
    fn check_saved(&self) -> std::result::Result<(), String> {
        Ok(())
    }
}

/// `name = value` must be finite (and, with `min`, at least `min`).
pub fn check_finite(name: &str, value: f64, min: Option<f64>) -> std::result::Result<(), String> {
    if !value.is_finite() || min.is_some_and(|m| value < m) {
        return Err(format!(
            "{name} = {value} is out of range{}",
            min.map(|m| format!(" (finite, at least {m})"))
                .unwrap_or_else(|| " (not finite)".into())
        ));
    }
    Ok(())
}

/// `name = got` must be exactly `want`, the value recomputed from the other saved values.
pub fn check_relation(
    name: &str,
    got: f64,
    want: f64,
    how: &str,
) -> std::result::Result<(), String> {
    if got.to_bits() != want.to_bits() {
        return Err(format!("{name} = {got} is not {how} = {want}"));
    }
    Ok(())
}

/// The SHA-256 (hex) binding `parts` together: a domain tag, then each part in a canonical
/// form (JSON with sorted object keys; the same text whatever the order of the fields on
/// disk). A saved result stores the digest of its settings and values; a result whose
/// digest does not match was edited or damaged after kcomp wrote it.
pub fn digest(tag: &str, parts: &[&serde_json::Value]) -> String {
    use sha2::{Digest, Sha256};
    fn canonical(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::Value::String(k.clone()).to_string());
                    out.push(':');
                    canonical(&m[k], out);
                }
                out.push('}');
            }
            serde_json::Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    canonical(x, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = format!("kcomp {tag} v1\n");
    for p in parts {
        canonical(p, &mut text);
        text.push('\n');
    }
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A JSON file per job holding `{settings, rows, sha256}`; a file is reused only when its
/// settings equal the job's, its digest matches its settings and rows, and the rows pass
/// their own checks ([`SavedResult`]).
pub struct JsonStore<P, S> {
    /// The file of a job.
    pub path: P,
    /// The settings that determine a job's result.
    pub settings: S,
}

#[derive(Serialize)]
struct Saved<'a> {
    settings: &'a serde_json::Value,
    rows: &'a serde_json::Value,
    sha256: String,
}

/// The digest tag of a [`JsonStore`] file.
const RESULT_TAG: &str = "saved result";

impl<J, R, P, S> Store<J, R> for JsonStore<P, S>
where
    R: Serialize + DeserializeOwned + SavedResult,
    P: Fn(&J) -> PathBuf + Sync,
    S: Fn(&J) -> serde_json::Value + Sync,
{
    fn lookup(&self, job: &J) -> Lookup<R> {
        // Only a regular file is read (a FIFO planted in the folder cannot block resume).
        let Ok(bytes) = crate::io::files::read_capped(
            &(self.path)(job),
            crate::io::limits::MAX_TEXT_FILE_BYTES,
        ) else {
            return Lookup::Missing;
        };
        let Ok(saved) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            return Lookup::Refused("is not a saved result (not JSON)".into());
        };
        if saved["settings"] != (self.settings)(job) {
            return Lookup::Missing;
        }
        let (settings, rows) = (&saved["settings"], &saved["rows"]);
        match saved["sha256"].as_str() {
            None => {
                return Lookup::Refused(
                    "has no digest (written by an older kcomp, or edited)".into(),
                );
            }
            Some(d) if d != digest(RESULT_TAG, &[settings, rows]) => {
                return Lookup::Refused(
                    "its digest does not match its settings and values (edited by hand or \
                     damaged)"
                        .into(),
                );
            }
            Some(_) => {}
        }
        let rows: R = match serde_json::from_value(rows.clone()) {
            Ok(r) => r,
            Err(e) => return Lookup::Refused(format!("its values do not read back: {e}")),
        };
        match rows.check_saved() {
            Ok(()) => Lookup::Found(rows),
            Err(why) => Lookup::Refused(why),
        }
    }

    fn save(&self, job: &J, result: &R) -> Result<()> {
        let path = (self.path)(job);
        let err = |e: serde_json::Error| KcompError::Other(format!("{}: {e}", path.display()));
        let settings = (self.settings)(job);
        let rows = serde_json::to_value(result).map_err(err)?;
        let saved = Saved {
            sha256: digest(RESULT_TAG, &[&settings, &rows]),
            settings: &settings,
            rows: &rows,
        };
        let text = serde_json::to_string_pretty(&saved).map_err(err)?;
        write_file(&path, text.as_bytes())
    }

    fn location(&self, job: &J) -> PathBuf {
        (self.path)(job)
    }
}

/// Writes a file atomically (a crash never leaves a truncated result that resume trusts),
/// creating its folder.
pub use crate::io::files::write_file;

/// How to run the jobs.
pub struct EngineOptions<'a> {
    /// Worker threads (0 = all cores; never more than the jobs).
    pub threads: usize,
    /// Reuse saved results whose settings match.
    pub resume: bool,
    /// Advanced once per finished job; its ETA by the jobs' expected work (`weights`).
    pub progress: &'a WorkBar,
    /// Expected work of each job of the plan given to [`run_jobs`] (same order; any unit),
    /// for an ETA by work; `None`: every job the same.
    pub weights: Option<&'a [f64]>,
    /// Run only a part of the plan, list it or merge it (`None`: run every job).
    pub sharding: Option<&'a Sharding>,
}

/// Which part of the plan an invocation handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Jobs `j` with `j % count == index`: each computed (or read back when already saved:
    /// a rerun continues) and saved; nothing summarised.
    Shard { index: usize, count: usize },
    /// Job `index` only, as a shard.
    Job(usize),
    /// Nothing computed: every result read back; one missing is an error naming it.
    Merge,
    /// Nothing computed: which jobs have a saved result, and where.
    Plan,
}

impl Part {
    fn selects(self, job: usize) -> bool {
        match self {
            Part::Shard { index, count } => job % count == index,
            Part::Job(index) => job == index,
            Part::Merge | Part::Plan => true,
        }
    }
}

/// One job of the plan as [`Part::Plan`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedJob {
    /// Index in the whole plan.
    pub job: usize,
    /// Where its result is saved.
    pub location: PathBuf,
    /// Whether a result with the job's settings is saved there.
    pub saved: bool,
}

/// What a sharded invocation did, over every plan it gave the engine.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Jobs in the whole plan.
    pub jobs: usize,
    /// Jobs of this part computed and saved.
    pub computed: usize,
    /// Jobs of this part read back (already saved).
    pub read_back: usize,
    /// The plan ([`Part::Plan`] only).
    pub plan: Vec<PlannedJob>,
    /// The run folder the command writes to (set by the sweep kinds).
    pub out: Option<PathBuf>,
}

/// A part of the plan to run, with what was done so far.
#[derive(Debug)]
pub struct Sharding {
    pub part: Part,
    tally: Mutex<Tally>,
}

impl Sharding {
    /// Checks the part (`count >= 1`, `index < count`).
    pub fn new(part: Part) -> Result<Sharding> {
        if let Part::Shard { index, count } = part
            && (count == 0 || index >= count)
        {
            return Err(KcompError::param(
                "shard",
                format!("{index}/{count}: need I/N with 0 <= I < N"),
            ));
        }
        Ok(Sharding {
            part,
            tally: Mutex::new(Tally::default()),
        })
    }

    /// Whether the tables are written (a merge), rather than only results saved or listed.
    pub fn summarises(&self) -> bool {
        self.part == Part::Merge
    }

    /// Records the run folder.
    pub fn set_out(&self, out: &Path) {
        self.lock().out.get_or_insert_with(|| out.to_path_buf());
    }

    /// What was done; errors when `--job` is beyond the plan.
    pub fn finish(&self) -> Result<Tally> {
        let tally = self.lock().clone();
        if let Part::Job(index) = self.part
            && index >= tally.jobs
        {
            return Err(KcompError::param(
                "job",
                format!(
                    "{index}: the plan has {} jobs (0..{})",
                    tally.jobs, tally.jobs
                ),
            ));
        }
        Ok(tally)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reserves `len` job indices; returns the first.
    fn begin(&self, len: usize) -> usize {
        let mut tally = self.lock();
        tally.jobs += len;
        tally.jobs - len
    }
}

impl Tally {
    /// One line: what a shard did, or the plan's state.
    pub fn describe(&self, part: Part) -> String {
        let out = self
            .out
            .as_deref()
            .map(|o| format!(" under {}", o.display()))
            .unwrap_or_default();
        match part {
            Part::Shard { index, count } => format!(
                "shard {index}/{count}: {} of {} jobs ({} computed, {} read back), saved{out}\n",
                self.computed + self.read_back,
                self.jobs,
                self.computed,
                self.read_back
            ),
            Part::Job(index) => format!(
                "job {index} of {}: {}, saved{out}\n",
                self.jobs,
                if self.computed > 0 {
                    "computed"
                } else {
                    "read back"
                }
            ),
            Part::Plan => {
                let missing = self.missing();
                format!(
                    "{} jobs, {} saved, {} missing{}{out}\n",
                    self.jobs,
                    self.jobs - missing.len(),
                    missing.len(),
                    if missing.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", index_list(&missing))
                    }
                )
            }
            Part::Merge => format!("merged {} saved jobs{out}\n", self.jobs),
        }
    }

    /// Jobs of the plan without a saved result.
    pub fn missing(&self) -> Vec<usize> {
        self.plan
            .iter()
            .filter(|p| !p.saved)
            .map(|p| p.job)
            .collect()
    }
}

/// What a part of the plan that writes no tables did, as the command prints it; with
/// [`Part::Plan`], also writes `plan.csv` (job, saved, file) into the run folder.
pub fn finish_part(sharding: &Sharding) -> Result<String> {
    let tally = sharding.finish()?;
    if sharding.part == Part::Plan
        && let Some(out) = &tally.out
    {
        crate::io::files::create_dir_all(out)?;
        #[derive(Serialize)]
        struct Row<'a> {
            job: usize,
            saved: bool,
            file: std::borrow::Cow<'a, str>,
        }
        crate::io::table::write_csv(
            &out.join("plan.csv"),
            tally.plan.iter().map(|p| Row {
                job: p.job,
                saved: p.saved,
                file: p.location.to_string_lossy(),
            }),
        )?;
    }
    Ok(tally.describe(sharding.part))
}

/// `0-3,7,9-10`: indices (sorted) as ranges, the form of Slurm's `--array`.
pub fn index_list(indices: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", indices[i], indices[j])
        } else {
            indices[i].to_string()
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The results in job order, and how many were read back.
#[derive(Debug)]
pub struct Finished<R> {
    pub results: Vec<R>,
    pub resumed: usize,
}

/// Checks a thread count (at most 4 x the cores); 0 means the current rayon pool's size
/// (all cores unless `--threads` or a caller's pool says otherwise).
pub fn check_threads(threads: usize) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > 4 * cores {
        return Err(KcompError::param(
            "threads",
            format!("{threads} is more than 4 x the {cores} cores"),
        ));
    }
    Ok(if threads == 0 {
        rayon::current_num_threads()
    } else {
        threads
    })
}

/// A value as a file-name part: letters, digits, `.` and `-` kept, anything else `_`.
pub fn safe_file_name(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Runs every job (`None` when `options.sharding` runs a part of the plan or lists it:
/// nothing to summarise). The first error (in job order) is returned after all workers stop.
pub fn run_jobs<J, R, F>(
    jobs: &[J],
    store: Option<&dyn Store<J, R>>,
    options: &EngineOptions,
    compute: F,
) -> Result<Option<Finished<R>>>
where
    J: Sync,
    R: Send,
    F: Fn(&J) -> Result<R> + Sync,
{
    let weight = |i: usize| {
        options
            .weights
            .and_then(|w| w.get(i))
            .copied()
            .unwrap_or(1.0)
    };
    let Some(sharding) = options.sharding else {
        let weights: Vec<f64> = (0..jobs.len()).map(weight).collect();
        return run_all(jobs, &weights, store, options, options.resume, compute).map(Some);
    };
    let offset = sharding.begin(jobs.len());
    let store = store.ok_or_else(|| {
        KcompError::Other("a sharded run needs an output folder for its results".into())
    })?;
    match sharding.part {
        Part::Merge => {
            let mut results = Vec::with_capacity(jobs.len());
            let mut missing = Vec::new();
            for (i, job) in jobs.iter().enumerate() {
                match store.lookup(job) {
                    Lookup::Found(r) => results.push(r),
                    Lookup::Missing => missing.push(i),
                    // Never merged, never silently recomputed: the user decides.
                    Lookup::Refused(why) => {
                        return Err(KcompError::file(
                            store.location(job),
                            format!(
                                "the saved result of job {} is refused: {why}; delete it and run \
                                 the job again (--job {})",
                                offset + i,
                                offset + i
                            ),
                        ));
                    }
                }
                options.progress.inc(1);
            }
            if let Some(&first) = missing.first() {
                let global: Vec<usize> = missing.iter().map(|i| offset + i).collect();
                return Err(KcompError::Other(format!(
                    "merge: {} of the plan's jobs have no saved result with their settings \
                     (jobs {}; the first belongs in {}): run them first (--job I, --shard I/N \
                     or `kcomp slurm resubmit`)",
                    missing.len(),
                    index_list(&global),
                    store.location(&jobs[first]).display()
                )));
            }
            let resumed = results.len();
            Ok(Some(Finished { results, resumed }))
        }
        Part::Plan => {
            let listed: Vec<PlannedJob> = jobs
                .iter()
                .enumerate()
                .map(|(i, job)| PlannedJob {
                    job: offset + i,
                    location: store.location(job),
                    saved: store.load(job).is_some(),
                })
                .collect();
            sharding.lock().plan.extend(listed);
            Ok(None)
        }
        part @ (Part::Shard { .. } | Part::Job(_)) => {
            let (selected, weights): (Vec<&J>, Vec<f64>) = jobs
                .iter()
                .enumerate()
                .filter(|(i, _)| part.selects(offset + i))
                .map(|(i, job)| (job, weight(i)))
                .unzip();
            // Always resume: a task rerun (a resubmission) skips the jobs it already saved.
            let finished = run_all(
                &selected,
                &weights,
                Some(&ByRef(store)),
                options,
                true,
                |job| compute(job),
            )?;
            let mut tally = sharding.lock();
            tally.read_back += finished.resumed;
            tally.computed += finished.results.len() - finished.resumed;
            Ok(None)
        }
    }
}

/// A store of `J` as a store of `&J` (a shard runs references to the selected jobs).
struct ByRef<'a, J, R>(&'a dyn Store<J, R>);

impl<J, R> Store<&J, R> for ByRef<'_, J, R> {
    fn lookup(&self, job: &&J) -> Lookup<R> {
        self.0.lookup(job)
    }
    fn save(&self, job: &&J, result: &R) -> Result<()> {
        self.0.save(job, result)
    }
    fn location(&self, job: &&J) -> PathBuf {
        self.0.location(job)
    }
}

fn run_all<J, R, F>(
    jobs: &[J],
    weights: &[f64],
    store: Option<&dyn Store<J, R>>,
    options: &EngineOptions,
    resume: bool,
    compute: F,
) -> Result<Finished<R>>
where
    J: Sync,
    R: Send,
    F: Fn(&J) -> Result<R> + Sync,
{
    let workers = check_threads(options.threads)?.min(jobs.len()).max(1);
    options.progress.add_work(weights.iter().sum());
    let run_one = |i: usize, job: &J| -> Result<(R, bool)> {
        let work = weights.get(i).copied().unwrap_or(1.0);
        if resume && let Some(result) = store.and_then(|s| s.load(job)) {
            // Read back in no time: out of the ETA's work, or it would look fast.
            options.progress.skip_item(work);
            return Ok((result, true));
        }
        let result = compute(job)?;
        if let Some(s) = store {
            s.save(job, &result)?;
        }
        options.progress.finish_item(work);
        Ok((result, false))
    };
    // Plain worker threads pulling jobs from a shared counter, not a rayon pool: a job's own
    // thread pool (prequential chunks) then blocks its caller instead of letting it steal
    // other jobs, so each job's measured wall time is its own.
    let next = AtomicUsize::new(0);
    // One slot per job: its result and whether it was read back.
    type Slot<R> = Mutex<Option<Result<(R, bool)>>>;
    let slots: Vec<Slot<R>> = (0..jobs.len()).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let outcome = run_one(i, job);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                }
            });
        }
    });
    let mut results = Vec::with_capacity(jobs.len());
    let mut resumed = 0;
    for slot in slots {
        let outcome = slot
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .unwrap_or_else(|| Err(KcompError::Other("a sweep worker stopped".into())));
        let (result, was_resumed) = outcome?;
        resumed += usize::from(was_resumed);
        results.push(result);
    }
    Ok(Finished { results, resumed })
}

/// The options every sweep kind takes to run a part of its plan (a Slurm array task runs
/// `--shard $SLURM_ARRAY_TASK_ID/N`) and to merge the parts.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ShardArgs {
    /// Run only shard I of N (jobs j with j mod N = I), saving each result where --resume
    /// reads it; jobs already saved are read back. No tables: --merge writes them.
    #[arg(long, value_name = "I/N", value_parser = parse_shard, help_heading = "Sharding")]
    pub shard: Option<(usize, usize)>,
    /// Run only job I of the plan (as a shard; see --plan for the jobs).
    #[arg(
        long,
        value_name = "I",
        conflicts_with = "shard",
        help_heading = "Sharding"
    )]
    pub job: Option<usize>,
    /// Write the tables and figures from the saved results of every job (none is
    /// computed; a missing job is an error naming it).
    #[arg(long, conflicts_with_all = ["shard", "job"], help_heading = "Sharding")]
    pub merge: bool,
    /// Write the job plan (plan.csv in the output folder: job, saved, file) and print how
    /// many jobs there are and which have no saved result; nothing is computed.
    #[arg(long, conflicts_with_all = ["shard", "job", "merge"], help_heading = "Sharding")]
    pub plan: bool,
}

impl ShardArgs {
    /// The part these options ask for (`None`: the whole plan, as usual).
    pub fn sharding(&self) -> Result<Option<Sharding>> {
        let part = match (self.shard, self.job, self.merge, self.plan) {
            (Some((index, count)), ..) => Part::Shard { index, count },
            (_, Some(index), ..) => Part::Job(index),
            (_, _, true, _) => Part::Merge,
            (_, _, _, true) => Part::Plan,
            _ => return Ok(None),
        };
        Sharding::new(part).map(Some)
    }
}

/// `I/N` with `0 <= I < N`.
pub fn parse_shard(text: &str) -> std::result::Result<(usize, usize), String> {
    let bad = || format!("`{text}`: expected I/N with 0 <= I < N, e.g. 3/8");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_job_order_and_resume_reads_back_matching_settings() {
        let dir = tempfile::tempdir().unwrap();
        let jobs: Vec<u64> = (0..20).collect();
        let salt = std::sync::atomic::AtomicU64::new(0);
        let store = JsonStore {
            path: |j: &u64| dir.path().join(format!("{j}.json")),
            settings: |j: &u64| serde_json::json!({ "job": j, "v": 1 }),
        };
        let compute = |j: &u64| -> Result<Vec<u64>> {
            salt.fetch_add(1, Ordering::Relaxed);
            Ok(vec![j * j])
        };
        let hidden = WorkBar::hidden();
        for threads in [1, 3] {
            let opts = EngineOptions {
                threads,
                resume: false,
                progress: &hidden,
                weights: None,
                sharding: None,
            };
            let done = run_jobs(&jobs, Some(&store), &opts, compute)
                .unwrap()
                .unwrap();
            assert_eq!(done.results[7], vec![49]);
            assert_eq!(done.resumed, 0);
        }
        assert_eq!(salt.load(Ordering::Relaxed), 40);
        let opts = EngineOptions {
            threads: 2,
            resume: true,
            progress: &hidden,
            weights: None,
            sharding: None,
        };
        let done = run_jobs(&jobs, Some(&store), &opts, compute)
            .unwrap()
            .unwrap();
        assert_eq!((done.resumed, salt.load(Ordering::Relaxed)), (20, 40));
        // Other settings: recomputed.
        let changed = JsonStore {
            path: |j: &u64| dir.path().join(format!("{j}.json")),
            settings: |j: &u64| serde_json::json!({ "job": j, "v": 2 }),
        };
        let done = run_jobs(&jobs, Some(&changed), &opts, compute)
            .unwrap()
            .unwrap();
        assert_eq!((done.resumed, salt.load(Ordering::Relaxed)), (0, 60));
    }

    #[test]
    fn the_first_error_in_job_order_is_returned() {
        let jobs: Vec<u64> = (0..10).collect();
        let hidden = WorkBar::hidden();
        let opts = EngineOptions {
            threads: 2,
            resume: false,
            progress: &hidden,
            weights: None,
            sharding: None,
        };
        let err = run_jobs::<u64, u64, _>(&jobs, None, &opts, |j| {
            if *j >= 4 {
                Err(KcompError::param("job", format!("{j}")))
            } else {
                Ok(*j)
            }
        })
        .unwrap_err();
        assert!(err.to_string().contains('4'), "{err}");
    }

    #[test]
    fn shards_and_merge_give_the_local_results_and_list_the_missing_jobs() {
        let dir = tempfile::tempdir().unwrap();
        // Two plans, as a sweep of two configs gives them: job indices run over both.
        let plans: [Vec<u64>; 2] = [(0..7).collect(), (100..105).collect()];
        let store = JsonStore {
            path: |j: &u64| dir.path().join(format!("{j}.json")),
            settings: |j: &u64| serde_json::json!({ "job": j }),
        };
        let hidden = WorkBar::hidden();
        let run = |part: Part| -> (Tally, Vec<Option<Finished<u64>>>) {
            let sharding = Sharding::new(part).unwrap();
            let opts = EngineOptions {
                threads: 2,
                resume: false,
                progress: &hidden,
                weights: None,
                sharding: Some(&sharding),
            };
            let out = plans
                .iter()
                .map(|p| run_jobs(p, Some(&store), &opts, |j| Ok(j * 3)).unwrap())
                .collect();
            (sharding.finish().unwrap(), out)
        };
        let (tally, out) = run(Part::Shard { index: 1, count: 3 });
        assert!(out.iter().all(Option::is_none));
        // Jobs 1, 4, 7, 10 of the 12.
        assert_eq!((tally.jobs, tally.computed, tally.read_back), (12, 4, 0));
        assert!(dir.path().join("100.json").exists() && dir.path().join("103.json").exists());
        let (tally, _) = run(Part::Plan);
        assert_eq!(tally.missing(), vec![0, 2, 3, 5, 6, 8, 9, 11]);
        assert_eq!(index_list(&tally.missing()), "0,2-3,5-6,8-9,11");
        let sharding = Sharding::new(Part::Merge).unwrap();
        let opts = EngineOptions {
            threads: 1,
            resume: false,
            progress: &hidden,
            weights: None,
            sharding: Some(&sharding),
        };
        let err = run_jobs(&plans[0], Some(&store), &opts, |j| Ok(*j))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("jobs 0,2-3,5-6") && err.contains("0.json"),
            "{err}"
        );
        // The other shards, one rerun (read back), then one job alone.
        run(Part::Shard { index: 0, count: 3 });
        let (tally, _) = run(Part::Shard { index: 0, count: 3 });
        assert_eq!((tally.computed, tally.read_back), (0, 4));
        run(Part::Shard { index: 2, count: 3 });
        let (tally, _) = run(Part::Job(11));
        assert_eq!((tally.computed, tally.read_back), (0, 1));
        let (_, merged) = run(Part::Merge);
        let merged: Vec<Vec<u64>> = merged.into_iter().map(|f| f.unwrap().results).collect();
        assert_eq!(merged[0], vec![0, 3, 6, 9, 12, 15, 18]);
        assert_eq!(merged[1], vec![300, 303, 306, 309, 312]);
        assert!(Sharding::new(Part::Shard { index: 3, count: 3 }).is_err());
        let beyond = Sharding::new(Part::Job(12)).unwrap();
        let opts = EngineOptions {
            sharding: Some(&beyond),
            ..opts
        };
        for p in &plans {
            run_jobs(p, Some(&store), &opts, |j| Ok(*j)).unwrap();
        }
        assert!(beyond.finish().unwrap_err().to_string().contains("12 jobs"));
    }
}
