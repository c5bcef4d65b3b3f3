//! Running untrusted Python programs (LLM answers) under an OS-enforced boundary.
//!
//! Each sample is one `python3 -I -S` process. Before the interpreter starts, the forked child
//! confines itself ([`child::confine`]; the whole design with its reasons: docs/sandbox.md):
//! - its own session and user, mount, network, IPC and PID namespaces: the program runs as
//!   an unprivileged id with no capabilities, no network interface but a down loopback, no
//!   view of other processes' System V IPC, and as pid 1 of its own PID namespace (a relay
//!   process outside it mirrors its end to kcomp's `wait4`), so no host pid, kcomp's
//!   included, can be named;
//! - when kcomp runs as root, a drop on the host to an unprivileged id of the sample's own
//!   ([`ids`]: no per-uid count is shared with another sample or a host user), so
//!   RLIMIT_NPROC applies (the kernel exempts uid 0) and no host capability survives;
//! - a minimal file-system view: a new read-only root with only the interpreter, its
//!   prefixes, the shared libraries, /dev/null and a private tmpfs on /tmp (size and inode
//!   caps = the total bytes and files an answer may write; its working directory), then
//!   `pivot_root`: host files do not exist for it (no stat, readlink, xattr, inotify);
//! - Landlock (ABI 6): read/execute only on the same paths, read-write only on that tmpfs,
//!   no TCP bind/connect, no signals or abstract unix sockets outside its own domain;
//! - seccomp ([`policy::seccomp_filters`]): no fork/vfork or clone without CLONE_THREAD
//!   (clone3 -> ENOSYS), exec only as our own `execveat` of the interpreter's descriptor
//!   (kept above the 64-descriptor limit and closed on exec), no socket()/socketpair(),
//!   SysV IPC, POSIX queues, ptrace, process_vm_*, kill/pidfd signals, setsid/setpgid,
//!   mount, unshare, keyctl, bpf, perf_event_open, personality, io_uring, memfd, clearing
//!   the parent-death signal or the x32 ABI; prlimit64, sched_*, setpriority/getpriority
//!   and ioprio_* only on itself (pid 0); no channel to a concurrent sample through the
//!   shared view or the kernel (legacy AIO, inotify/fanotify, dnotify, leases, file locks,
//!   mincore/cachestat/fadvise/readahead, madvise PAGEOUT/COLD/REMOVE, RWF_NOWAIT);
//! - rlimits: CPU, 1 GiB address space, file size, 64 descriptors, 64 threads, no core dumps,
//!   64 pending signals, no real-time or raised priority, no message-queue bytes;
//! - PR_SET_PDEATHSIG = SIGKILL (kcomp dying, Ctrl-C included, kills it), and the parent
//!   kills it at the wall-clock limit. No fork means nothing else to kill.
//!
//! The `-c` [`bootstrap`] first installs [`policy::exec_denial_filter`] (seccomp cannot read
//! the path of `execveat`, whose absolute path ignores the descriptor: once the interpreter
//! runs, no exec is left), then reads the program from stdin (length-prefixed, see
//! [`payload`]; the rest of stdin is the sample's input): the program is never a file it
//! could read back. It reports on a status pipe ([`policy::STATUS_FD`]) that it closes before
//! the program runs, so only kcomp and the bootstrap can say `sandbox_error`. stdout/stderr are read through pipes (stdout capped at `output_bytes`,
//! then the process is killed); the status comes from kcomp's own clock, byte count and
//! `wait4` rusage, which the program cannot touch. If Landlock, seccomp or the namespaces
//! are unavailable, [`ensure_available`] refuses, unless `allow_unsandboxed` (rlimits only,
//! unsafe) is set.

mod child;
pub mod ids;
pub mod policy;

use crate::datasets::string_grid::prompt::python_strip;
use crate::error::{KcompError, Result};
use serde::Serialize;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

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
    /// Total bytes the program may store in its directory (tmpfs size).
    pub disk_bytes: u64,
    /// Files and directories the program may create (tmpfs inodes).
    pub disk_files: u64,
    /// Open file descriptors.
    pub open_files: u64,
    /// Processes of the user (threads count; fork is refused by seccomp anyway).
    pub processes: u64,
    /// Bytes kept of stdout and of stderr; more stdout stops the program.
    pub output_bytes: usize,
    /// Extra import paths (site-packages), since `-S` skips the slow site module.
    pub import_paths: Vec<String>,
    /// The interpreter's prefixes (standard library), readable in the sandbox.
    pub prefixes: Vec<String>,
    /// Samples of one program run at the same time (each may use `memory_bytes`).
    pub parallel: usize,
    /// Run with rlimits only when the OS sandbox is unavailable (unsafe).
    pub allow_unsandboxed: bool,
}

struct PythonInfo {
    exe: PathBuf,
    prefixes: Vec<String>,
    site: Vec<String>,
}

static PYTHON: OnceLock<PythonInfo> = OnceLock::new();

/// Resolves the real interpreter behind `python3` (pyenv shims are slow), its prefixes and
/// site-packages directories, once per process. This runs no untrusted code.
fn resolve_python() -> &'static PythonInfo {
    PYTHON.get_or_init(|| {
        let exe = std::env::var("KCOMP_PYTHON").unwrap_or_else(|_| "python3".into());
        let out = Command::new(&exe)
            .args([
                "-c",
                "import sys, site; print(sys.executable); print(sys.prefix); print(sys.base_prefix); print('\\n'.join(site.getsitepackages()))",
            ])
            .stdin(Stdio::null())
            .output();
        match out {
            Ok(o) if o.status.success() => {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                let lines: Vec<String> = text.lines().map(str::to_string).collect();
                PythonInfo {
                    exe: lines.first().map_or_else(|| PathBuf::from(&exe), PathBuf::from),
                    prefixes: lines.iter().skip(1).take(2).cloned().collect(),
                    site: lines.iter().skip(3).cloned().collect(),
                }
            }
            _ => PythonInfo {
                exe: PathBuf::from(exe),
                prefixes: Vec::new(),
                site: Vec::new(),
            },
        }
    })
}

impl Default for SandboxConfig {
    fn default() -> Self {
        let py = resolve_python();
        SandboxConfig {
            python: py.exe.clone(),
            timeout: Duration::from_secs(5),
            memory_bytes: 1 << 30,
            file_bytes: 16 << 20,
            disk_bytes: 16 << 20,
            disk_files: 256,
            open_files: 64,
            processes: 64,
            output_bytes: 1 << 20,
            import_paths: py.site.clone(),
            prefixes: py.prefixes.clone(),
            parallel: 4,
            allow_unsandboxed: false,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Exited by itself (any exit code: the reference ignores it).
    Exited,
    /// Killed at the wall-clock or CPU limit.
    Timeout,
    /// Killed for writing more than the output cap.
    OutputLimit,
    /// Killed by a signal it caused (segfault, abort, ...).
    Crashed,
    /// The sandbox could not be set up for this run (reason in `stderr`).
    SandboxError,
}

/// Result of one run.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub status: RunStatus,
    pub exit_code: Option<i32>,
    /// Lossy UTF-8 stdout (at most `output_bytes`).
    pub stdout: String,
    /// Lossy UTF-8 stderr (at most `output_bytes`); the reason for `SandboxError`.
    pub stderr: String,
    pub elapsed: Duration,
}

/// Exit status of the bootstrap when it fails (what kcomp trusts is the status pipe).
const BOOTSTRAP_FAILED: i32 = 125;

/// The `-c` bootstrap. It first installs `exec_filter` (sandboxed runs: no exec from here
/// on), puts site-packages on the path, then reads the program from stdin (20 decimal digits
/// of length, then the bytes; the rest of stdin is the sample's input), reports `ok` on the
/// status pipe ([`policy::STATUS_FD`]) and closes it, and runs the program as `__main__`. A
/// failure before that is reported on the same pipe (`fail <why>`), never on stderr, so a
/// program cannot forge one: it runs after the pipe is closed. The program never exists as a
/// file: `__file__` and `sys.argv[0]` name `prog.py`, which is not there, and nothing left in
/// the namespace holds the source.
fn bootstrap(import_paths: &[String], exec_filter: Option<&[u8]>) -> String {
    let paths: Vec<String> = import_paths
        .iter()
        .map(|p| serde_json::to_string(p).unwrap_or_default())
        .collect();
    let fd = policy::STATUS_FD;
    let fail = |why: &str| format!("os.write({fd},b'fail {why}');os._exit({BOOTSTRAP_FAILED})");
    let filter = match exec_filter {
        // Only the C module `_ctypes`: the `ctypes` package costs about 10 ms more per
        // interpreter start (a third of a sample run). The filter is copied into a C array
        // (its address is fixed), `struct sock_fprog` is packed by hand (u16 length, 6 bytes
        // of padding, the pointer; a bytes argument passes as a pointer to its contents),
        // and prctl(PR_SET_SECCOMP = 22, SECCOMP_MODE_FILTER = 2, &prog) is called by address.
        Some(f) => format!(
            " import _ctypes as C\n\
             \x20f=bytes.fromhex('{}')\n\
             \x20class c(C._SimpleCData):_type_='c'\n\
             \x20b=(c*len(f)).from_buffer_copy(f);o=sys.byteorder\n\
             \x20p=(len(f)//8).to_bytes(2,o)+bytes(6)+C.addressof(b).to_bytes(8,o)\n\
             \x20if C.call_function(C.dlsym(C.dlopen(None,2),'prctl'),(22,2,p,0,0))!=0:{}\n",
            f.iter().map(|b| format!("{b:02x}")).collect::<String>(),
            fail("seccomp")
        ),
        None => String::new(),
    };
    format!(
        "import sys\n\
         def _kcomp():\n\
         \x20import os\n\
         {filter}\
         \x20sys.path+=[{}];sys.argv[:]=['prog.py']\n\
         \x20def r(n):\n\
         \x20\x20b=bytearray()\n\
         \x20\x20while len(b)<n:\n\
         \x20\x20\x20c=os.read(0,n-len(b))\n\
         \x20\x20\x20if not c:{}\n\
         \x20\x20\x20b+=c\n\
         \x20\x20return bytes(b)\n\
         \x20p=r(int(r(20)))\n\
         \x20os.write({fd},b'ok');os.close({fd})\n\
         \x20return compile(p,'prog.py','exec')\n\
         __file__='prog.py'\n\
         exec(globals().pop('_kcomp')())\n",
        paths.join(","),
        fail("short program"),
    )
}

/// What the sample's stdin carries: the program (length-prefixed for the bootstrap), then
/// its input.
fn payload(code: &[u8], input: &str) -> Vec<u8> {
    let mut v = format!("{:020}", code.len()).into_bytes();
    v.extend_from_slice(code);
    v.extend_from_slice(input.as_bytes());
    v
}

fn limits(cfg: &SandboxConfig) -> Vec<(libc::__rlimit_resource_t, u64, u64)> {
    let cpu = cfg.timeout.as_secs() + 1;
    vec![
        // SIGXCPU at the soft limit, SIGKILL one second later.
        (libc::RLIMIT_CPU, cpu, cpu + 1),
        (libc::RLIMIT_AS, cfg.memory_bytes, cfg.memory_bytes),
        (libc::RLIMIT_FSIZE, cfg.file_bytes, cfg.file_bytes),
        (libc::RLIMIT_NOFILE, cfg.open_files, cfg.open_files),
        (libc::RLIMIT_NPROC, cfg.processes, cfg.processes),
        (libc::RLIMIT_CORE, 0, 0),
        (libc::RLIMIT_MEMLOCK, 0, 0),
        // Queued signals (counted per uid): enough for a program's own timers and threads,
        // far below what could starve anything else.
        (libc::RLIMIT_SIGPENDING, SIGPENDING, SIGPENDING),
        // No real-time scheduling, no raised priority (nice may only go up), no POSIX
        // message queue bytes (mq_open is refused anyway).
        (libc::RLIMIT_RTPRIO, 0, 0),
        (libc::RLIMIT_NICE, 0, 0),
        (libc::RLIMIT_RTTIME, cpu * 1_000_000, (cpu + 1) * 1_000_000),
        (libc::RLIMIT_MSGQUEUE, 0, 0),
    ]
}

/// RLIMIT_SIGPENDING of a sample.
pub const SIGPENDING: u64 = 64;

/// Parts of the sandbox shared by every run: the interpreter's descriptor and the filters.
struct Shared {
    exe: OwnedFd,
    read_only: Vec<PathBuf>,
    view: Vec<child::ViewStep>,
    filters: Vec<seccompiler::BpfProgram>,
    /// The bootstrap, carrying the exec-denial filter.
    bootstrap: String,
}

static SHARED: OnceLock<std::result::Result<Shared, String>> = OnceLock::new();
static PROBE: OnceLock<std::result::Result<(), String>> = OnceLock::new();

fn shared(cfg: &SandboxConfig) -> std::result::Result<&'static Shared, String> {
    SHARED
        .get_or_init(|| {
            let exe = std::fs::File::open(&cfg.python)
                .map_err(|e| format!("cannot open {}: {e}", cfg.python.display()))?;
            let read_only = policy::read_only_paths(&cfg.python, &cfg.prefixes, &cfg.import_paths);
            let wanted = policy::wanted_paths(&cfg.python, &cfg.prefixes, &cfg.import_paths);
            let exec_filter = policy::exec_denial_filter()?;
            Ok(Shared {
                exe: exe.into(),
                read_only,
                view: policy::view_steps(&wanted)?,
                filters: policy::seccomp_filters()?,
                bootstrap: bootstrap(&cfg.import_paths, Some(&exec_filter)),
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Checks once per process that the full sandbox works here (Landlock ABI 6, seccomp, user
/// and mount namespaces, the interpreter starting inside it).
pub fn sandbox_status(cfg: &SandboxConfig) -> std::result::Result<(), String> {
    PROBE
        .get_or_init(|| {
            // Lets tests (and cautious users) exercise the refusal path; it can only refuse.
            if std::env::var_os("KCOMP_SANDBOX_UNAVAILABLE").is_some() {
                return Err("KCOMP_SANDBOX_UNAVAILABLE is set".into());
            }
            let probe = SandboxConfig {
                timeout: Duration::from_secs(10),
                ..cfg.clone()
            };
            let code = Arc::new(b"print('ok')".to_vec());
            let lease = host_id()?;
            let out = run_sandboxed(&code, "", &probe, lease.as_ref().map(|l| l.id))?;
            match (out.status, out.stdout.as_str()) {
                (RunStatus::Exited, "ok\n") => Ok(()),
                (RunStatus::SandboxError, _) => Err(out.stderr),
                _ => Err(format!(
                    "{} does not run inside the sandbox ({:?}): {}",
                    cfg.python.display(),
                    out.status,
                    out.stderr.lines().last().unwrap_or("")
                )),
            }
        })
        .clone()
}

/// Refuses (exit 2) to run untrusted code without the sandbox unless `allow_unsandboxed`.
pub fn ensure_available(cfg: &SandboxConfig) -> Result<()> {
    match sandbox_status(cfg) {
        Ok(()) => Ok(()),
        Err(_) if cfg.allow_unsandboxed => Ok(()),
        Err(e) => Err(KcompError::Other(format!(
            "refusing to run untrusted programs: the sandbox is unavailable ({e}); \
             --allow-unsandboxed runs them with rlimits only (unsafe)"
        ))),
    }
}

fn sandbox_error(reason: String) -> RunOutput {
    RunOutput {
        status: RunStatus::SandboxError,
        exit_code: None,
        stdout: String::new(),
        stderr: reason,
        elapsed: Duration::ZERO,
    }
}

fn spawn_error(e: &std::io::Error) -> String {
    let (stage, errno) = child::decode(e);
    match stage {
        Some(s) => format!("{} failed: {errno}", s.describe()),
        None => format!("cannot start the sandboxed process: {errno}"),
    }
}

fn base_command(cfg: &SandboxConfig, home: &str, boot: &str) -> Command {
    let mut cmd = Command::new(&cfg.python);
    cmd.args(["-I", "-S", "-c", boot])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("HOME", home)
        .env("TMPDIR", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// A root kcomp's samples run as a host id of their own ([`ids`]); `None` otherwise (an
/// unprivileged kcomp's samples are its own uid on the host, mapped into their user
/// namespace: docs/sandbox.md says what that shares).
fn host_id() -> std::result::Result<Option<ids::Lease>, String> {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        ids::lease().map(Some)
    } else {
        Ok(None)
    }
}

/// The bootstrap's status pipe: the read end (kcomp's, non-blocking) and the write end
/// (passed to the sample), both close-on-exec.
fn status_pipe() -> std::result::Result<(std::fs::File, OwnedFd), String> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills two descriptors we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!(
            "cannot create the status pipe: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    set_nonblocking(r.as_raw_fd());
    Ok((std::fs::File::from(r), w))
}

/// One run inside the full sandbox; `host_id`: the host uid and gid of a root kcomp's sample.
fn run_sandboxed(
    code: &Arc<Vec<u8>>,
    stdin: &str,
    cfg: &SandboxConfig,
    host_id: Option<u32>,
) -> std::result::Result<RunOutput, String> {
    let sh = shared(cfg)?;
    let ruleset = policy::ruleset(&sh.read_only)?;
    let ruleset_fd: Option<OwnedFd> = ruleset.into();
    let ruleset_fd = ruleset_fd.ok_or("Landlock is not supported by this kernel")?;
    // SAFETY: geteuid/getegid/getpid cannot fail.
    let (uid, gid, pid) = unsafe { (libc::geteuid(), libc::getegid(), libc::getpid()) };
    // As root, the sample runs as an unprivileged host id of its own: the kernel exempts
    // uid 0 from RLIMIT_NPROC, no host capability survives, and nothing counted per uid is
    // shared with another sample or host process.
    let drop_to = if uid == 0 {
        let id = host_id.ok_or("a root kcomp's sample needs a host id of its own")?;
        Some((id, id))
    } else {
        None
    };
    let (uid, gid) = drop_to.unwrap_or((uid, gid));
    let owner = match drop_to {
        Some((u, g)) => format!(",uid={u},gid={g}"),
        None => String::new(),
    };
    let argv = [
        cfg.python.to_string_lossy().into_owned(),
        "-I".into(),
        "-S".into(),
        "-c".into(),
        sh.bootstrap.clone(),
    ];
    let envp = [
        "PATH=/usr/bin:/bin",
        "LANG=C.UTF-8",
        "HOME=/tmp",
        "TMPDIR=/tmp",
    ]
    .map(String::from);
    let (status_r, status_w) = status_pipe()?;
    let plan = child::Plan {
        parent: pid,
        drop_to,
        // One unprivileged id inside (not 0: exec then drops every capability).
        uid_map: format!("1000 {uid} 1\n").into_bytes(),
        gid_map: format!("1000 {gid} 1\n").into_bytes(),
        root_options: c"size=1m,nr_inodes=4096,mode=755".into(),
        tmpfs_options: std::ffi::CString::new(format!(
            "size={},nr_inodes={},mode=700{owner}",
            cfg.disk_bytes.max(4096),
            cfg.disk_files.max(2)
        ))
        .map_err(|e| e.to_string())?,
        view: &sh.view,
        exe_fd: sh.exe.as_raw_fd(),
        status_fd: status_w.as_raw_fd(),
        argv: child::CArgs::new(argv).map_err(|e| format!("program arguments: {e}"))?,
        envp: child::CArgs::new(envp).map_err(|e| e.to_string())?,
        ruleset_fd: ruleset_fd.as_raw_fd(),
        rw_access: policy::rw_access_bits(),
        filters: &sh.filters,
        limits: limits(cfg),
    };
    let mut cmd = base_command(cfg, "/tmp", &sh.bootstrap);
    // SAFETY: `confine` only makes raw system calls on the prepared plan.
    unsafe {
        cmd.pre_exec(move || child::confine(&plan));
    }
    let start = Instant::now();
    let spawned = cmd.spawn();
    drop(ruleset_fd);
    // Only the sample may hold the write end: its end is then the pipe's end.
    drop(status_w);
    match spawned {
        Ok(c) => Ok(supervise(c, &payload(code, stdin), cfg, start, status_r)),
        Err(e) => Ok(sandbox_error(spawn_error(&e))),
    }
}

/// One run with rlimits only, in a temporary directory (`--allow-unsandboxed`).
fn run_unsandboxed(code: &[u8], stdin: &str, cfg: &SandboxConfig) -> RunOutput {
    let dir = match tempfile::Builder::new()
        .prefix("kcomp-unsandboxed-")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => return sandbox_error(format!("cannot create a directory: {e}")),
    };
    let home = dir.path().to_string_lossy().into_owned();
    let mut cmd = base_command(cfg, &home, &bootstrap(&cfg.import_paths, None));
    cmd.current_dir(dir.path());
    let lim = limits(cfg);
    // SAFETY: getpid cannot fail.
    let parent = unsafe { libc::getpid() };
    let (status_r, status_w) = match status_pipe() {
        Ok(p) => p,
        Err(e) => return sandbox_error(e),
    };
    let status_fd = status_w.as_raw_fd();
    // SAFETY: `rlimits_only` only makes raw system calls.
    unsafe {
        cmd.pre_exec(move || child::rlimits_only(parent, status_fd, &lim));
    }
    let start = Instant::now();
    let spawned = cmd.spawn();
    drop(status_w);
    match spawned {
        Ok(c) => supervise(c, &payload(code, stdin), cfg, start, status_r),
        Err(e) => sandbox_error(spawn_error(&e)),
    }
}

/// What the bootstrap reported on its status pipe.
enum Boot {
    /// It read the program and handed over to it.
    Ran,
    /// It failed before the program ran (kcomp's own reason text).
    Failed(String),
    /// Nothing: the interpreter ended before the bootstrap reported.
    Silent,
}

fn boot_report(mut status: std::fs::File) -> Boot {
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    while got.len() < 256 {
        match status.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // WouldBlock: a sibling's fork still holds a copy of the write end; what the
            // sample wrote is already in the pipe.
            Err(_) => break,
        }
    }
    if got == b"ok" {
        Boot::Ran
    } else if let Some(why) = got.strip_prefix(b"fail ") {
        Boot::Failed(crate::io::names::terminal(&String::from_utf8_lossy(why)).into_owned())
    } else {
        Boot::Silent
    }
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
    }
}

/// Feeds stdin, collects output until exit, the output cap or the wall-clock limit, kills
/// and reaps the process.
fn supervise(
    mut child: Child,
    input: &[u8],
    cfg: &SandboxConfig,
    start: Instant,
    status_pipe: std::fs::File,
) -> RunOutput {
    let pid = child.id() as libc::pid_t;
    let file = |fd: Option<OwnedFd>| fd.map(std::fs::File::from);
    let mut stdin = file(child.stdin.take().map(OwnedFd::from));
    let mut stdout = file(child.stdout.take().map(OwnedFd::from));
    let mut stderr = file(child.stderr.take().map(OwnedFd::from));
    // SAFETY: pidfd_open on our own unreaped child.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as RawFd;
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd) });
    for fd in [
        stdin.as_ref().map(|s| s.as_raw_fd()),
        stdout.as_ref().map(|s| s.as_raw_fd()),
        stderr.as_ref().map(|s| s.as_raw_fd()),
    ]
    .into_iter()
    .flatten()
    {
        set_nonblocking(fd);
    }
    let cap = cfg.output_bytes;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut written = 0usize;
    let mut exited = false;
    let mut status = 0i32;
    // SAFETY: rusage is plain data.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut killed: Option<RunStatus> = None;
    let deadline = start + cfg.timeout;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        if let Some(w) = stdin.as_mut() {
            match w.write(&input[written..]) {
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => written = input.len(),
            }
            if written >= input.len() {
                stdin = None; // closes the pipe: EOF for the program
            }
        }
        for (pipe, sink, is_out) in [
            (&mut stdout, &mut out, true),
            (&mut stderr, &mut err, false),
        ] {
            let Some(r) = pipe.as_mut() else { continue };
            // Bounded, so a flood faster than we read cannot keep us past the deadline.
            for _ in 0..64 {
                match r.read(&mut buf) {
                    Ok(0) => {
                        *pipe = None;
                        break;
                    }
                    Ok(n) => {
                        let keep = n.min((cap + 1).saturating_sub(sink.len()));
                        sink.extend_from_slice(&buf[..keep]);
                        if is_out && sink.len() > cap {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            if is_out && sink.len() > cap && killed.is_none() {
                killed = Some(RunStatus::OutputLimit);
            }
        }
        if killed.is_some() {
            break;
        }
        if !exited {
            // SAFETY: reaping our own child; status and usage are ours.
            exited = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) } == pid;
        }
        if exited && stdout.is_none() && stderr.is_none() {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            killed = Some(RunStatus::Timeout);
            break;
        }
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(4);
        let mut add = |fd: Option<RawFd>, events| {
            if let Some(fd) = fd {
                fds.push(libc::pollfd {
                    fd,
                    events,
                    revents: 0,
                });
            }
        };
        add(stdin.as_ref().map(|s| s.as_raw_fd()), libc::POLLOUT);
        add(stdout.as_ref().map(|s| s.as_raw_fd()), libc::POLLIN);
        add(stderr.as_ref().map(|s| s.as_raw_fd()), libc::POLLIN);
        if !exited {
            add(pidfd.as_ref().map(|p| p.as_raw_fd()), libc::POLLIN);
        }
        // Without a pidfd (old kernels) the exit is noticed by polling every 5 ms.
        let wait = (deadline - now).min(if pidfd.is_some() || exited {
            Duration::from_secs(3600)
        } else {
            Duration::from_millis(5)
        });
        let ms = wait.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: poll on a live array of descriptors we own.
        unsafe {
            libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms);
        }
    }
    if killed.is_some() && !exited {
        // SAFETY: the child is ours and not yet reaped, so the pid is still its own.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    drop((stdin, stdout, stderr));
    if !exited {
        // SAFETY: waiting for our own (killed or exited) child.
        unsafe {
            libc::wait4(pid, &mut status, 0, &mut usage);
        }
    }
    // Reaped above; dropping a `Child` never waits.
    drop(child);
    let elapsed = start.elapsed();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let cpu = secs(usage.ru_utime) + secs(usage.ru_stime);
    let (status, exit_code) = if let Some(k) = killed {
        // kcomp's own wall clock or byte count.
        (k, None)
    } else {
        match boot_report(status_pipe) {
            Boot::Failed(why) => return sandbox_error(format!("the bootstrap failed: {why}")),
            Boot::Silent => {
                // The program never ran: what is on stderr is the interpreter's own.
                let how = if libc::WIFEXITED(status) {
                    format!("exit status {}", libc::WEXITSTATUS(status))
                } else {
                    format!("signal {}", libc::WTERMSIG(status))
                };
                let text = String::from_utf8_lossy(&err);
                let last = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                return sandbox_error(format!(
                    "the interpreter ended before running the program ({how}){}{}",
                    if last.is_empty() { "" } else { ": " },
                    crate::io::names::terminal(last)
                ));
            }
            Boot::Ran if libc::WIFEXITED(status) => {
                (RunStatus::Exited, Some(libc::WEXITSTATUS(status)))
            }
            Boot::Ran => {
                let sig = libc::WTERMSIG(status);
                // The CPU limit's SIGKILL, as kcomp's own accounting (wait4's rusage)
                // confirms; a signal the program raised itself (SIGXCPU, SIGXFSZ, ...) is a
                // crash.
                let cpu_limit = (cfg.timeout.as_secs() + 1) as f64;
                let st =
                    if (sig == libc::SIGKILL || sig == libc::SIGXCPU) && cpu + 0.02 >= cpu_limit {
                        RunStatus::Timeout
                    } else {
                        err.extend_from_slice(format!("\nkilled by signal {sig}\n").as_bytes());
                        RunStatus::Crashed
                    };
                (st, None)
            }
        }
    };
    out.truncate(cap);
    err.truncate(cap);
    RunOutput {
        status,
        exit_code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        elapsed,
    }
}

fn run_one(
    code: &Arc<Vec<u8>>,
    stdin: &str,
    cfg: &SandboxConfig,
    sandboxed: bool,
    host_id: Option<u32>,
) -> RunOutput {
    if sandboxed {
        run_sandboxed(code, stdin, cfg, host_id).unwrap_or_else(sandbox_error)
    } else {
        run_unsandboxed(code, stdin, cfg)
    }
}

/// Runs `code` with `stdin` as standard input under `cfg`.
pub fn run_python(code: &str, stdin: &str, cfg: &SandboxConfig) -> Result<RunOutput> {
    let mut runs = run_many(code, &[stdin.to_string()], cfg)?;
    Ok(runs.remove(0))
}

/// Runs `code` once per input, `cfg.parallel` processes at a time, each in its own sandbox.
/// Errors only when the sandbox is unavailable and `allow_unsandboxed` is not set.
pub fn run_many(code: &str, inputs: &[String], cfg: &SandboxConfig) -> Result<Vec<RunOutput>> {
    ensure_available(cfg)?;
    let sandboxed = sandbox_status(cfg).is_ok();
    let code = Arc::new(code.as_bytes().to_vec());
    let code = &code;
    let next = AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<RunOutput>>> =
        inputs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let workers = cfg.parallel.clamp(1, inputs.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                // One host id per worker, for the samples it runs one after another.
                let lease = if sandboxed { host_id() } else { Ok(None) };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(input) = inputs.get(i) else { break };
                    let out = match &lease {
                        Ok(l) => run_one(code, input, cfg, sandboxed, l.as_ref().map(|l| l.id)),
                        Err(e) => sandbox_error(e.clone()),
                    };
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(out);
                    }
                }
            });
        }
    });
    Ok(slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| sandbox_error("run lost".into()))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::child::{Stage, decode, encode};

    #[test]
    fn stage_and_errno_survive_the_spawn_error() {
        for stage in Stage::ALL {
            let (s, e) = decode(&encode(stage, libc::EPERM));
            assert_eq!(s.map(|s| s as i32), Some(stage as i32));
            assert_eq!(e.raw_os_error(), Some(libc::EPERM));
        }
        let (s, e) = decode(&std::io::Error::from_raw_os_error(libc::EAGAIN));
        assert!(s.is_none());
        assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
    }

    #[test]
    fn seccomp_filters_compile() {
        let f = super::policy::seccomp_filters().unwrap();
        assert!(f.len() >= 2 && f.iter().all(|p| !p.is_empty()));
    }
}

/// Per-sample outcome of checking a program on a dataset record.
#[derive(Debug, Clone, Serialize)]
pub struct SampleResult {
    pub correct: bool,
    pub status: RunStatus,
    /// Why the sandbox failed (`SandboxError` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Runs `code` on every (input, gold) pair in parallel; a sample is correct iff
/// `stdout.strip() == gold.strip()` with Python's `str.strip()` (stderr and exit code
/// ignored), as the reference does.
pub fn check_program(
    code: &str,
    inputs: &[String],
    golds: &[String],
    cfg: &SandboxConfig,
) -> Result<Vec<SampleResult>> {
    let runs = run_many(code, inputs, cfg)?;
    Ok(runs
        .into_iter()
        .zip(golds)
        .map(|(out, gold)| SampleResult {
            correct: out.status == RunStatus::Exited
                && python_strip(&out.stdout) == python_strip(gold),
            status: out.status,
            error: (out.status == RunStatus::SandboxError).then_some(out.stderr),
        })
        .collect())
}
