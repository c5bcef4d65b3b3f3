//! The one sweep engine: a list of independent jobs run on worker threads, results kept in
//! job order (so they do not depend on the thread count: every job seeds its own streams), each
//! result saved as it finishes and, with `resume`, read back instead of recomputed when the
//! saved settings match. The compare panel, `kcomp sweep`/`reproduce` and the prequential
//! h-sweep all run through it.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{KcompError, Result};
use crate::estimators::interface::Progress;

/// Where finished jobs are kept between invocations.
pub trait Store<J, R>: Sync {
    /// A saved result of `job` made with the same settings, if any.
    fn load(&self, job: &J) -> Option<R>;
    /// Saves the result of `job`.
    fn save(&self, job: &J, result: &R) -> Result<()>;
}

/// A JSON file per job holding `{settings, rows}`; a file is reused only when its settings
/// equal the job's.
pub struct JsonStore<P, S> {
    /// The file of a job.
    pub path: P,
    /// The settings that determine a job's result.
    pub settings: S,
}

#[derive(Serialize, serde::Deserialize)]
struct Saved<R> {
    settings: serde_json::Value,
    rows: R,
}

impl<J, R, P, S> Store<J, R> for JsonStore<P, S>
where
    R: Serialize + DeserializeOwned,
    P: Fn(&J) -> PathBuf + Sync,
    S: Fn(&J) -> serde_json::Value + Sync,
{
    fn load(&self, job: &J) -> Option<R> {
        // Only a regular file is read (a FIFO planted in the folder cannot block resume).
        let bytes = crate::io::files::read_capped(
            &(self.path)(job),
            crate::io::limits::MAX_TEXT_FILE_BYTES,
        )
        .ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let saved: Saved<R> = serde_json::from_str(&text).ok()?;
        (saved.settings == (self.settings)(job)).then_some(saved.rows)
    }

    fn save(&self, job: &J, result: &R) -> Result<()> {
        let path = (self.path)(job);
        let saved = Saved {
            settings: (self.settings)(job),
            rows: result,
        };
        let text = serde_json::to_string_pretty(&saved)
            .map_err(|e| KcompError::Other(format!("{}: {e}", path.display())))?;
        write_file(&path, text.as_bytes())
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
    /// Advanced once per finished job.
    pub progress: &'a Progress,
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

/// Runs every job. The first error (in job order) is returned after all workers stop.
pub fn run_jobs<J, R, F>(
    jobs: &[J],
    store: Option<&dyn Store<J, R>>,
    options: &EngineOptions,
    compute: F,
) -> Result<Finished<R>>
where
    J: Sync,
    R: Send,
    F: Fn(&J) -> Result<R> + Sync,
{
    let workers = check_threads(options.threads)?.min(jobs.len()).max(1);
    let run_one = |job: &J| -> Result<(R, bool)> {
        if options.resume
            && let Some(result) = store.and_then(|s| s.load(job))
        {
            options.progress.inc(1);
            return Ok((result, true));
        }
        let result = compute(job)?;
        if let Some(s) = store {
            s.save(job, &result)?;
        }
        options.progress.inc(1);
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
                    let outcome = run_one(job);
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
        let hidden = Progress::hidden();
        for threads in [1, 3] {
            let opts = EngineOptions {
                threads,
                resume: false,
                progress: &hidden,
            };
            let done = run_jobs(&jobs, Some(&store), &opts, compute).unwrap();
            assert_eq!(done.results[7], vec![49]);
            assert_eq!(done.resumed, 0);
        }
        assert_eq!(salt.load(Ordering::Relaxed), 40);
        let opts = EngineOptions {
            threads: 2,
            resume: true,
            progress: &hidden,
        };
        let done = run_jobs(&jobs, Some(&store), &opts, compute).unwrap();
        assert_eq!((done.resumed, salt.load(Ordering::Relaxed)), (20, 40));
        // Other settings: recomputed.
        let changed = JsonStore {
            path: |j: &u64| dir.path().join(format!("{j}.json")),
            settings: |j: &u64| serde_json::json!({ "job": j, "v": 2 }),
        };
        let done = run_jobs(&jobs, Some(&changed), &opts, compute).unwrap();
        assert_eq!((done.resumed, salt.load(Ordering::Relaxed)), (0, 60));
    }

    #[test]
    fn the_first_error_in_job_order_is_returned() {
        let jobs: Vec<u64> = (0..10).collect();
        let hidden = Progress::hidden();
        let opts = EngineOptions {
            threads: 2,
            resume: false,
            progress: &hidden,
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
}
