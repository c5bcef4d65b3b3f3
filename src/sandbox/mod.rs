//! Running untrusted Python programs: a `python3 -I -S` subprocess in a fresh temporary
//! directory with a cleared environment, its own session, rlimits on CPU, address space, file
//! size, open files and processes, and a private network namespace when the kernel allows it.
//! It compiles the program once and forks one child per sample (server.py): the child gets
//! its own working directory and process group, stdin/stdout/stderr as files, and an audit
//! hook that denies process creation, sockets, ctypes and file access outside its directory;
//! the server kills the child's group at the wall-clock limit. Output is read capped and
//! decoded as lossy UTF-8.

use crate::error::{KcompError, Result};
use serde::Serialize;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SERVER: &str = include_str!("server.py");

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
    /// Samples of one program run at the same time (each may use `memory_bytes`).
    pub parallel: usize,
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
            parallel: 4,
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

/// Runs `code` with `stdin` as standard input under `cfg`.
pub fn run_python(code: &str, stdin: &str, cfg: &SandboxConfig) -> Result<RunOutput> {
    let mut runs = run_many(code, &[stdin.to_string()], cfg)?;
    Ok(runs.remove(0))
}

fn read_capped(path: &Path, cap: usize) -> (Vec<u8>, bool) {
    let Ok(f) = std::fs::File::open(path) else {
        return (Vec::new(), false);
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut buf = Vec::new();
    let _ = f.take(cap as u64).read_to_end(&mut buf);
    (buf, len > cap as u64)
}

/// Runs `code` once per input: one sandboxed server process compiles it and forks a confined
/// child per input (own directory and process group, stdin/stdout/stderr as files), so the
/// interpreter starts once per program instead of once per sample.
pub fn run_many(code: &str, inputs: &[String], cfg: &SandboxConfig) -> Result<Vec<RunOutput>> {
    let dir = tempfile::Builder::new()
        .prefix("kcomp-sandbox-")
        .tempdir()
        .map_err(|e| KcompError::Other(format!("cannot create a sandbox directory: {e}")))?;
    let root = dir.path();
    let write = |p: PathBuf, text: &[u8]| {
        std::fs::write(&p, text).map_err(|e| KcompError::file(&p, e.to_string()))
    };
    write(root.join("prog.py"), code.as_bytes())?;
    write(root.join("server.py"), SERVER.as_bytes())?;
    let mut samples = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let sub = root.join(format!("s{i}"));
        std::fs::create_dir(&sub).map_err(|e| KcompError::file(&sub, e.to_string()))?;
        write(sub.join("in.txt"), input.as_bytes())?;
        samples.push(sub.to_string_lossy().into_owned());
    }
    let jobs = serde_json::json!({
        "timeout": cfg.timeout.as_secs_f64(),
        "program": root.join("prog.py").to_string_lossy(),
        "paths": cfg.import_paths,
        "samples": samples,
        "parallel": cfg.parallel.max(1),
    });
    write(root.join("jobs.json"), jobs.to_string().as_bytes())?;
    let start = Instant::now();
    let server_err = std::fs::File::create(root.join("server.err"))
        .map_err(|e| KcompError::file(root, e.to_string()))?;
    let mut cmd = Command::new(&cfg.python);
    cmd.arg("-I")
        .arg("-S")
        .arg("server.py")
        .arg("jobs.json")
        .current_dir(root)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("HOME", root)
        .env("TMPDIR", root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(server_err));
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
            // Inherited by every forked child, each with its own CPU account.
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
    let failed = |msg: String| RunOutput {
        status: RunStatus::SpawnFailed,
        exit_code: None,
        stdout: String::new(),
        stderr: msg,
        elapsed: Duration::ZERO,
    };
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let msg = format!("cannot start {}: {e}", cfg.python.display());
            return Ok(inputs.iter().map(|_| failed(msg.clone())).collect());
        }
    };
    // The server enforces the per-sample limit; this bounds the server itself.
    let overall =
        (cfg.timeout + Duration::from_millis(500)) * inputs.len() as u32 + Duration::from_secs(10);
    let mut sleep = Duration::from_micros(200);
    loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => break,
            Ok(None) => {}
        }
        if start.elapsed() >= overall {
            kill_group(child.id());
            let _ = child.wait();
            break;
        }
        std::thread::sleep(sleep);
        sleep = (sleep * 2).min(Duration::from_millis(5));
    }
    let server_msg = std::fs::read_to_string(root.join("server.err")).unwrap_or_default();
    let mut out = Vec::with_capacity(inputs.len());
    for sub in &samples {
        let sub = Path::new(sub);
        let Ok(status) = std::fs::read_to_string(sub.join("status")) else {
            out.push(failed(format!(
                "sandbox server stopped early: {}",
                server_msg.trim()
            )));
            continue;
        };
        let mut parts = status.split_whitespace();
        let kind = parts.next().unwrap_or("");
        let second = parts.next().unwrap_or("");
        let (code_v, secs) = match kind {
            "exited" => (second.parse::<i32>().ok(), parts.next()),
            "signal" => (None, parts.next()),
            _ => (None, Some(second)),
        };
        let elapsed = Duration::from_secs_f64(secs.and_then(|s| s.parse().ok()).unwrap_or(0.0));
        let (stdout, over_out) = read_capped(&sub.join("out.txt"), cfg.output_bytes);
        let (stderr, _) = read_capped(&sub.join("err.txt"), cfg.output_bytes);
        let status = match kind {
            "timeout" => RunStatus::Timeout,
            "output_limit" => RunStatus::OutputLimit,
            _ if over_out => RunStatus::OutputLimit,
            _ => RunStatus::Exited,
        };
        out.push(RunOutput {
            status,
            exit_code: code_v,
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
            elapsed,
        });
    }
    Ok(out)
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
    let runs = run_many(code, inputs, cfg)?;
    Ok(runs
        .iter()
        .zip(golds)
        .map(|(out, gold)| SampleResult {
            correct: out.status == RunStatus::Exited && out.stdout.trim() == gold.trim(),
            status: out.status,
        })
        .collect())
}
