//! The sandbox's attack classes: what a sample could reach beyond itself before this round (other
//! processes by pid, kcomp's own limits, exec by absolute path, host unix sockets, System V
//! IPC, threads past RLIMIT_NPROC as root, host metadata, a self-raised signal read as a
//! timeout, its own source). Each fixture in tests/data/hostile/ prints `denied <what>` or
//! `ESCAPED <what>` per attempt; victims are checked from outside.

#[path = "common/hostile.rs"]
mod hostile;
use hostile::{assert_all_denied, fixture};
use kcomp::programs::sandbox::{RunOutput, RunStatus, SandboxConfig, run_many, run_python};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn cfg() -> SandboxConfig {
    SandboxConfig {
        timeout: Duration::from_secs(3),
        ..SandboxConfig::default()
    }
}

fn run_fixture(name: &str, input: &str) -> RunOutput {
    run_python(&fixture(name), input, &cfg()).expect("sandbox available")
}

/// A folder outside the sandbox with a secret in it.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("kcomp-reach-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "kcomp-secret-reach").unwrap();
    (dir, secret)
}

/// Everything a sample could change about a process, read from outside.
#[derive(Debug, PartialEq)]
struct Attributes {
    nice: i32,
    limits: String,
    affinity: Vec<u64>,
    policy: i32,
    ioprio: i64,
}

fn attributes(pid: i32) -> Attributes {
    // SAFETY: plain queries about a live process into local buffers.
    unsafe {
        *libc::__errno_location() = 0;
        let nice = libc::getpriority(libc::PRIO_PROCESS, pid as libc::id_t);
        let mut set = [0u64; 16];
        libc::sched_getaffinity(pid, std::mem::size_of_val(&set), set.as_mut_ptr().cast());
        Attributes {
            nice,
            limits: std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap(),
            affinity: set.to_vec(),
            policy: libc::sched_getscheduler(pid),
            ioprio: libc::syscall(libc::SYS_ioprio_get, 1, pid),
        }
    }
}

/// A capability-less victim: `sleep` as `nobody` when the tests run as root (the uid a
/// root kcomp's samples get too), else as ourselves.
fn victim() -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new("sleep");
    cmd.arg("60");
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        cmd.uid(65534).gid(65534);
    }
    cmd.spawn().unwrap()
}

#[test]
fn other_processes_and_kcomp_are_out_of_reach_by_pid() {
    let mut v = victim();
    let vpid = v.id() as i32;
    let me = std::process::id() as i32;
    let (before_v, before_me) = (attributes(vpid), attributes(me));
    let input = serde_json::json!({ "victim": vpid, "kcomp": me }).to_string();
    let outs = run_many(&fixture("pid_reach.py"), &[input.clone(), input], &cfg()).unwrap();
    let (after_v, after_me) = (attributes(vpid), attributes(me));
    let alive = v.try_wait().unwrap().is_none();
    let _ = v.kill();
    let _ = v.wait();
    for out in &outs {
        assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
        // Pid 1 of its own namespace; its parent is not in it.
        assert!(out.stdout.starts_with("ids 1 0\n"), "{}", out.stdout);
        assert_all_denied(out, 35);
        assert!(out.stdout.contains("own_read 0"), "{}", out.stdout);
    }
    assert!(alive);
    assert_eq!(before_v, after_v, "the victim was changed");
    assert_eq!(before_me, after_me, "kcomp was changed");
}

#[test]
fn no_exec_after_the_interpreter_starts() {
    let out = run_fixture("exec_paths.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 14);
    assert!(out.stdout.ends_with("still here\n"), "{}", out.stdout);
}

#[test]
fn host_unix_sockets_are_unreachable() {
    let (dir, _) = outside();
    let path = dir.path().join("dgram.sock");
    let sock = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
    sock.set_nonblocking(true).unwrap();
    let input = serde_json::json!({ "unix": path }).to_string();
    let out = run_fixture("unix_dgram.py", &input);
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 5);
    let mut buf = [0u8; 64];
    assert!(sock.recv(&mut buf).is_err(), "a datagram arrived");
}

#[test]
fn system_v_ipc_and_message_queues_are_refused() {
    let out = run_fixture("sysv_ipc.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 6);
}

#[test]
fn threads_stop_at_the_process_limit_even_as_root() {
    let out = run_fixture("threads.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    let started: usize = out
        .stdout
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", out.stdout));
    // RLIMIT_NPROC = 64 counts the relay and the main thread too.
    assert!(started < 64, "{started} threads started");
    assert!(out.stdout.contains("RuntimeError"), "{}", out.stdout);
}

#[test]
fn host_metadata_does_not_exist_in_the_view() {
    let (dir, secret) = outside();
    let dataset =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp/k=4_u=2_d=16_type=h.jsonl");
    let input = serde_json::json!({ "secret": secret, "outside": dir.path(), "dataset": dataset })
        .to_string();
    let out = run_fixture("metadata.py", &input);
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 30);
    let root: Vec<String> = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("ROOT "))
        .map(|j| serde_json::from_str(j).unwrap())
        .unwrap();
    // Only the interpreter's tree, the libraries, a few /etc files, /dev/null and /tmp.
    let c = cfg();
    let mut allowed: Vec<String> = ["dev", "etc", "lib", "lib64", "tmp", "usr"]
        .map(String::from)
        .to_vec();
    for p in std::iter::once(c.python.clone())
        .chain(c.prefixes.iter().chain(&c.import_paths).map(PathBuf::from))
    {
        for p in [p.clone(), std::fs::canonicalize(&p).unwrap_or(p)] {
            if let Some(std::path::Component::Normal(first)) = p.components().nth(1) {
                allowed.push(first.to_string_lossy().into_owned());
            }
        }
    }
    for name in &root {
        assert!(allowed.contains(name), "/{name} is visible: {root:?}");
    }
    assert!(
        !root
            .iter()
            .any(|n| n == "proc" || n == "work" || n == "home")
    );
}

#[test]
fn a_self_raised_signal_is_not_a_timeout_or_output_limit() {
    for what in ["xcpu", "xfsz"] {
        let out = run_fixture("self_signals.py", what);
        assert!(
            !matches!(out.status, RunStatus::Timeout | RunStatus::OutputLimit),
            "{what}: {:?} {}",
            out.status,
            out.stderr
        );
    }
    let out = run_fixture("self_signals.py", "bigfile");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert!(out.stdout.contains("denied bigfile 27"), "{}", out.stdout);
}

#[test]
fn the_program_cannot_read_its_own_source() {
    let out = run_fixture("own_source.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 9);
    // The bootstrap leaves nothing of its own behind in the program's namespace.
    assert!(
        out.stdout
            .contains("names ['attempt', 'inspect', 'marker', 'os', 'sys']"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_program_that_exits_without_reading_its_input_is_an_ordinary_exit() {
    // 1 MiB of input: the program is gone long before kcomp has written it all, so every
    // run meets a closed pipe (EPIPE), deterministically.
    let input = "A ".repeat(1 << 19);
    let inputs = vec![input; 24];
    let outs = run_many(&fixture("exit_at_once.py"), &inputs, &cfg()).unwrap();
    for o in outs {
        assert_eq!(o.status, RunStatus::Exited, "{}", o.stderr);
        assert_eq!(o.exit_code, Some(0));
    }
}
