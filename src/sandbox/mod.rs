//! Running untrusted Python programs: a `python3` subprocess in a fresh temporary working
//! directory with a cleared environment, its own session (process group), rlimits on CPU,
//! address space, file size, open files and processes, a private network namespace when the
//! kernel allows it, an audit hook that confines files, processes and sockets (boot.py), a
//! wall-clock timeout that kills the whole group, and capped stdout/stderr read on their own
//! threads. Output is decoded as lossy UTF-8.

use crate::error::{KcompError, Result};
use serde::Serialize;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const BOOT: &str = include_str!("boot.py");

/// Limits of one run.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// The interpreter (resolved once from `python3` on PATH, or `KCOMP_PYTHON`).
    pub python: PathBuf,
    /// Wall-clock limit; the published evaluator uses 5 s.
    pub timeout: Duration,
    /// Address-space limit in bytes.
    pub memory_bytes: u64,
    /// Largest file the program may write, in bytes.
    pub file_bytes: u64,
    /// Open file descriptors.
    pub open_files: u64,
    /// Processes of the user (not enforced for root; the audit hook denies fork anyway).
    pub processes: u64,
    /// Bytes kept of stdout and of stderr; more output stops the program.
    pub output_bytes: usize,
    /// Extra import paths (site-packages), since `-S` skips the slow site module.
    pub import_paths: Vec<String>,
}

static PYTHON: OnceLock<(PathBuf, Vec<String>)> = OnceLock::new();

/// Resolves the real interpreter behind `python3` (pyenv shims are slow) and its
/// site-packages directories, once per process.
fn resolve_python() -> (PathBuf, Vec<String>) {
    PYTHON
        .get_or_init(|| {
            let exe = std::env::var("KCOMP_PYTHON").unwrap_or_else(|_| "python3".into());
            let out = Command::new(&exe)
                .args([
                    "-c",
                    "import sys, site; print(sys.executable); print('\\n'.join(site.getsitepackages()))",
                ])
                .stdin(Stdio::null())
                .output();
            match out {
                Ok(o) if o.status.success() => {
                    let text = String::from_utf8_lossy(&o.stdout).into_owned();
                    let mut lines = text.lines();
                    let path = lines.next().map_or_else(|| PathBuf::from(&exe), PathBuf::from);
                    (path, lines.map(str::to_string).collect())
                }
                _ => (PathBuf::from(exe), Vec::new()),
            }
        })
        .clone()
}

impl Default for SandboxConfig {
    fn default() -> Self {
        let (python, import_paths) = resolve_python();
        SandboxConfig {
            python,
            timeout: Duration::from_secs(5),
            memory_bytes: 1 << 30,
            file_bytes: 16 << 20,
            open_files: 64,
            processes: 64,
            output_bytes: 1 << 20,
            import_paths,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Exited by itself (any exit code: the reference ignores it).
    Exited,
    /// Killed at the wall-clock limit.
    Timeout,
    /// Killed for writing more than the output cap.
    OutputLimit,
    /// Could not be started.
    SpawnFailed,
}

/// Result of one run.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub status: RunStatus,
    pub exit_code: Option<i32>,
    /// Lossy UTF-8 stdout (at most `output_bytes`).
    pub stdout: String,
    /// Lossy UTF-8 stderr (at most `output_bytes`).
    pub stderr: String,
    pub elapsed: Duration,
}

fn set_limit(resource: libc::__rlimit_resource_t, value: u64) {
    let lim = libc::rlimit {
        rlim_cur: value as libc::rlim_t,
        rlim_max: value as libc::rlim_t,
    };
    // SAFETY: setrlimit only reads the struct; failure leaves the old limit, acceptable.
    unsafe {
        libc::setrlimit(resource, &lim);
    }
}

fn kill_group(pid: u32) {
    // SAFETY: signalling our child's process group (pgid == child pid after setsid).
    for _ in 0..3 {
        let r = unsafe { libc::killpg(pid as libc::pid_t, libc::SIGKILL) };
        if r != 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Reads a pipe to its end keeping at most `cap` bytes; sets `over` when more came.
fn spawn_reader<R: Read + Send + 'static>(
    mut r: R,
    cap: usize,
    over: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 16384];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    if n > room {
                        over.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            }
        }
        kept
    })
}

/// Runs `code` with `stdin` as standard input under `cfg`.
pub fn run_python(code: &str, stdin: &str, cfg: &SandboxConfig) -> Result<RunOutput> {
    let dir = tempfile::Builder::new()
        .prefix("kcomp-sandbox-")
        .tempdir()
        .map_err(|e| KcompError::Other(format!("cannot create a sandbox directory: {e}")))?;
    let prog = dir.path().join("prog.py");
    let boot = dir.path().join("boot.py");
    std::fs::write(&prog, code).map_err(|e| KcompError::file(&prog, e.to_string()))?;
    std::fs::write(&boot, BOOT).map_err(|e| KcompError::file(&boot, e.to_string()))?;
    Ok(run_in(dir.path(), stdin, cfg))
}

fn run_in(dir: &Path, stdin: &str, cfg: &SandboxConfig) -> RunOutput {
    let start = Instant::now();
    let mut cmd = Command::new(&cfg.python);
    cmd.arg("-I")
        .arg("-S")
        .arg("boot.py")
        .arg("prog.py")
        .args(&cfg.import_paths)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("HOME", dir)
        .env("TMPDIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (mem, fsize, nofile, nproc) = (
        cfg.memory_bytes,
        cfg.file_bytes,
        cfg.open_files,
        cfg.processes,
    );
    let cpu = cfg.timeout.as_secs() + 1;
    // SAFETY: only async-signal-safe calls (setsid, setrlimit, unshare) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            set_limit(libc::RLIMIT_CPU, cpu);
            set_limit(libc::RLIMIT_AS, mem);
            set_limit(libc::RLIMIT_FSIZE, fsize);
            set_limit(libc::RLIMIT_NOFILE, nofile);
            set_limit(libc::RLIMIT_NPROC, nproc);
            set_limit(libc::RLIMIT_CORE, 0);
            // Best effort: a private network namespace has no route anywhere.
            libc::unshare(libc::CLONE_NEWNET);
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return RunOutput {
                status: RunStatus::SpawnFailed,
                exit_code: None,
                stdout: String::new(),
                stderr: format!("cannot start {}: {e}", cfg.python.display()),
                elapsed: start.elapsed(),
            };
        }
    };
    let pid = child.id();
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let out_t = spawn_reader(
        child.stdout.take().expect("piped"),
        cfg.output_bytes,
        over.clone(),
    );
    let err_t = spawn_reader(
        child.stderr.take().expect("piped"),
        cfg.output_bytes,
        over.clone(),
    );
    if let Some(mut sin) = child.stdin.take() {
        let input = stdin.as_bytes().to_vec();
        // A program that never reads must not block us: write on a thread.
        std::thread::spawn(move || {
            let _ = sin.write_all(&input);
        });
    }
    let mut status = RunStatus::Exited;
    let mut exit_code = None;
    let mut sleep = Duration::from_micros(200);
    loop {
        match child.try_wait() {
            Ok(Some(st)) => {
                exit_code = st.code();
                break;
            }
            Ok(None) => {}
            Err(_) => break,
        }
        if over.load(std::sync::atomic::Ordering::Relaxed) {
            status = RunStatus::OutputLimit;
            kill_group(pid);
            let _ = child.wait();
            break;
        }
        if start.elapsed() >= cfg.timeout {
            status = RunStatus::Timeout;
            kill_group(pid);
            let _ = child.wait();
            break;
        }
        std::thread::sleep(sleep);
        sleep = (sleep * 2).min(Duration::from_millis(5));
    }
    // Leftover grandchildren would keep the pipes open.
    kill_group(pid);
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    if status == RunStatus::Exited && over.load(std::sync::atomic::Ordering::Relaxed) {
        status = RunStatus::OutputLimit;
    }
    RunOutput {
        status,
        exit_code,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        elapsed: start.elapsed(),
    }
}

/// Per-sample outcome of checking a program on a dataset record.
#[derive(Debug, Clone, Serialize)]
pub struct SampleResult {
    pub correct: bool,
    pub status: RunStatus,
}

/// Runs `code` on every (input, gold) pair in parallel; a sample is correct iff
/// `stdout.strip() == gold.strip()` (stderr and exit code ignored), as the reference does.
pub fn check_program(
    code: &str,
    inputs: &[String],
    golds: &[String],
    cfg: &SandboxConfig,
) -> Result<Vec<SampleResult>> {
    use rayon::prelude::*;
    let dir = tempfile::Builder::new()
        .prefix("kcomp-sandbox-")
        .tempdir()
        .map_err(|e| KcompError::Other(format!("cannot create a sandbox directory: {e}")))?;
    let boot = dir.path().join("boot.py");
    std::fs::write(&boot, BOOT).map_err(|e| KcompError::file(&boot, e.to_string()))?;
    let results = inputs
        .par_iter()
        .zip(golds.par_iter())
        .enumerate()
        .map(|(i, (input, gold))| {
            // One working directory per sample so runs cannot see each other's files.
            let sub = dir.path().join(format!("s{i}"));
            std::fs::create_dir(&sub).map_err(|e| KcompError::file(&sub, e.to_string()))?;
            std::fs::write(sub.join("prog.py"), code)
                .map_err(|e| KcompError::file(&sub, e.to_string()))?;
            std::fs::write(sub.join("boot.py"), BOOT)
                .map_err(|e| KcompError::file(&sub, e.to_string()))?;
            let out = run_in(&sub, input, cfg);
            Ok(SampleResult {
                correct: out.status == RunStatus::Exited && out.stdout.trim() == gold.trim(),
                status: out.status,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(results)
}
