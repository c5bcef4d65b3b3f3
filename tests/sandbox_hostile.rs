//! Hostile programs (tests/data/hostile/*.py) against the OS sandbox: each test asserts that
//! the attack was contained (no marker outside, no secret in the output, victims alive, no
//! surviving process) and the status the run got. Every fixture reads its targets as JSON
//! from stdin and prints `denied <what>` or `ESCAPED <what>` per attempt.

#[path = "common/hostile.rs"]
mod hostile;
use hostile::{assert_all_denied, fixture};
use kcomp::programs::sandbox::{RunOutput, RunStatus, SandboxConfig, run_many, run_python};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn cfg() -> SandboxConfig {
    SandboxConfig {
        timeout: Duration::from_millis(1500),
        ..SandboxConfig::default()
    }
}

/// Host-side targets: a folder outside the sandbox, a secret file, the dataset, a victim.
struct Targets {
    dir: tempfile::TempDir,
    secret: PathBuf,
    tag: String,
}

const SECRET: &str = "kcomp-secret-7f3a";

impl Targets {
    fn new() -> Targets {
        let dir = tempfile::Builder::new()
            .prefix("kcomp-hostile-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let secret = dir.path().join("secret.txt");
        std::fs::write(&secret, SECRET).unwrap();
        let tag = format!(
            "kcomp-hostile-{}-{}",
            std::process::id(),
            dir.path().file_name().unwrap().to_string_lossy()
        );
        Targets { dir, secret, tag }
    }
    fn dataset() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp/k=4_u=2_d=16_type=h.jsonl")
    }
    fn json(&self, extra: serde_json::Value) -> String {
        let mut v = serde_json::json!({
            "outside": self.dir.path(),
            "secret": self.secret,
            "dataset": Self::dataset(),
            "tag": self.tag,
        });
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        v.to_string()
    }
    /// Files in the outside folder other than the secret.
    fn markers(&self) -> Vec<String> {
        std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "secret.txt")
            .collect()
    }
}

fn run_fixture(name: &str, input: &str) -> RunOutput {
    run_python(&fixture(name), input, &cfg()).expect("sandbox available")
}

fn alive(pid: u32) -> bool {
    // Zombies count as gone.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

#[test]
fn fork_bomb_and_process_creation_are_refused() {
    let out = run_fixture("fork_bomb.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 5);
}

#[test]
fn exec_of_a_shell_is_refused() {
    let t = Targets::new();
    let out = run_fixture("exec_shell.py", &t.json(serde_json::json!({})));
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 5);
    assert!(t.markers().is_empty(), "{:?}", t.markers());
}

#[test]
fn memory_bomb_hits_the_address_space_limit() {
    // Filling 1 GiB can take more than the default 5 s on a loaded machine; this test is about
    // the address-space limit, not the clock, so the wall limit is generous.
    let config = SandboxConfig {
        timeout: Duration::from_secs(120),
        ..SandboxConfig::default()
    };
    let out = run_python(&fixture("memory_bomb.py"), "", &config).unwrap();
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 2);
    // 1 GiB of address space holds fewer than 16 chunks of 64 MiB.
    let grown: usize = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("denied grow MemoryError "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap();
    assert!(grown < 16, "{grown}");
}

#[test]
fn cpu_bomb_with_threads_times_out() {
    let out = run_fixture("cpu_threads.py", "");
    assert_eq!(out.status, RunStatus::Timeout);
    assert!(out.elapsed < Duration::from_secs(4), "{:?}", out.elapsed);
}

#[test]
fn stdout_flood_is_stopped_at_the_cap() {
    let out = run_fixture("stdout_flood.py", "");
    assert_eq!(out.status, RunStatus::OutputLimit);
    assert_eq!(out.stdout.len(), 1 << 20);
    assert!(out.elapsed < Duration::from_secs(4));
}

#[test]
fn stderr_flood_is_capped_and_stdout_still_judged() {
    let out = run_fixture("stderr_flood.py", "A C E G");
    assert_eq!(out.status, RunStatus::Exited);
    assert_eq!(out.stdout, "a c e g\n");
    assert_eq!(out.stderr.len(), 1 << 20);
}

#[test]
fn disk_flood_is_capped_in_total() {
    let out = run_fixture("disk_flood.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 2);
    // Neither one file nor many files get past the 16 MiB tmpfs.
    let after = |prefix: &str| -> u64 {
        let line = out.stdout.lines().find(|l| l.starts_with(prefix)).unwrap();
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    assert!(after("denied disk") <= 16 << 20);
    assert!(after("denied parts") <= 2);
}

#[test]
fn many_small_files_hit_the_inode_cap() {
    let out = run_fixture("many_files.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 1);
    let n: usize = out
        .stdout
        .trim()
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(n <= 256, "{n}");
}

#[test]
fn network_is_unreachable() {
    use std::io::Read;
    let t = Targets::new();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let port = tcp.local_addr().unwrap().port();
    let udp = std::net::UdpSocket::bind(("127.0.0.1", port)).unwrap();
    udp.set_nonblocking(true).unwrap();
    let unix_path = t.dir.path().join("sock");
    let unix = std::os::unix::net::UnixListener::bind(&unix_path).unwrap();
    unix.set_nonblocking(true).unwrap();
    let abstract_name = format!("{}-abstract", t.tag);
    let addr =
        <std::os::unix::net::SocketAddr as std::os::linux::net::SocketAddrExt>::from_abstract_name(
            abstract_name.as_bytes(),
        )
        .unwrap();
    let abs = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
    abs.set_nonblocking(true).unwrap();
    let input = t.json(serde_json::json!({
        "port": port, "unix": unix_path, "abstract": abstract_name,
    }));
    let out = run_fixture("network.py", &input);
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 7);
    assert!(tcp.accept().is_err());
    let mut buf = [0u8; 16];
    assert!(udp.recv(&mut buf).is_err());
    assert!(unix.accept().is_err());
    assert!(abs.accept().is_err());
    // The loopback of the host was not reached either way.
    if let Ok((mut s, _)) = tcp.accept() {
        let _ = s.read(&mut buf);
        panic!("connected");
    }
}

#[test]
fn environment_is_cleared() {
    let out = run_fixture("environment.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 1);
    let keys: Vec<String> = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("ENV "))
        .map(|j| serde_json::from_str(j).unwrap())
        .unwrap();
    for k in &keys {
        assert!(
            ["HOME", "LANG", "PATH", "TMPDIR", "LC_CTYPE"].contains(&k.as_str()),
            "{k} leaked"
        );
    }
    assert!(out.stdout.contains("VAL HOME /tmp"));
    assert!(!out.stdout.contains("CARGO"), "{}", out.stdout);
}

#[test]
fn signals_reach_nothing_outside() {
    let mut victim = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let t = Targets::new();
    let out = run_fixture(
        "signals.py",
        &t.json(serde_json::json!({ "victim": victim.id() })),
    );
    let still_running = victim.try_wait().unwrap().is_none();
    let _ = victim.kill();
    let _ = victim.wait();
    assert!(still_running, "the victim was killed: {}", out.stdout);
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 9);
    assert!(out.stdout.contains("survived"));
}

#[test]
fn proc_dataset_and_system_files_are_unreadable() {
    let t = Targets::new();
    let out = run_fixture("proc_and_dataset.py", &t.json(serde_json::json!({})));
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 15);
    assert!(!out.stdout.contains(SECRET));
    assert!(!out.stdout.contains("root:"));
    assert!(!out.stdout.contains("\"input\""));
}

#[test]
fn symlink_and_dir_fd_escapes_fail() {
    let t = Targets::new();
    let out = run_fixture("symlink_escape.py", &t.json(serde_json::json!({})));
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 10);
    assert!(t.markers().is_empty(), "{:?}", t.markers());
    assert_eq!(std::fs::read_to_string(&t.secret).unwrap(), SECRET);
}

#[test]
fn writes_outside_the_directory_land_nowhere() {
    let t = Targets::new();
    let out = run_fixture("write_outside.py", &t.json(serde_json::json!({})));
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert!(t.markers().is_empty(), "{:?}", t.markers());
    // The private /tmp absorbs what was written there; the host's stays clean.
    for host in ["/tmp", "/dev/shm", "/var/tmp"] {
        assert!(!Path::new(host).join(&t.tag).exists(), "{host}");
    }
    assert!(out.stdout.contains("denied mkdir"), "{}", out.stdout);
}

#[test]
fn samples_cannot_see_each_other_or_the_bookkeeping() {
    let inputs = ["A C E G", "B D F H", "A D E G"].map(String::from).to_vec();
    let outs = run_many(&fixture("sibling.py"), &inputs, &cfg()).unwrap();
    for (o, i) in outs.iter().zip(&inputs) {
        assert_eq!(o.status, RunStatus::Exited, "{}", o.stderr);
        assert_eq!(o.stdout.trim(), i.to_lowercase());
    }
}

#[test]
fn disabling_in_process_hooks_gains_nothing() {
    let t = Targets::new();
    let out = run_fixture("hook_and_gc.py", &t.json(serde_json::json!({})));
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert!(out.stdout.starts_with("hooks 0\n"), "{}", out.stdout);
    assert_all_denied(&out, 4);
    assert!(t.markers().is_empty(), "{:?}", t.markers());
    assert!(!out.stdout.contains(SECRET));
}

#[test]
fn raw_system_calls_are_filtered() {
    let out = run_fixture("ctypes_syscalls.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 21);
}

/// Processes whose name (`comm`) is `name`, among all of the host.
fn named(name: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| alive(e.file_name().to_string_lossy().parse().unwrap()))
        .filter(|e| std::fs::read_to_string(e.path().join("comm")).is_ok_and(|c| c.trim() == name))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn nothing_outlives_the_run() {
    // At most 15 bytes (the kernel's comm), unique to this run.
    let name = format!("ks{:x}", std::process::id() as u64 * 7919 % 0xfff_ffff);
    let out = run_fixture("survive.py", &name);
    assert_eq!(out.status, RunStatus::Timeout, "{}", out.stderr);
    assert_all_denied(&out, 4);
    assert!(out.stdout.contains("main done"));
    // Pid 1 of its own PID namespace.
    assert!(out.stdout.contains("pid 1\n"), "{}", out.stdout);
    // The relay is reaped and the sample killed with it; its kill is asynchronous, give
    // the kernel a moment (bounded, checked again and again, not a timing assertion).
    let mut left = named(&name);
    for _ in 0..100 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        left = named(&name);
    }
    assert!(left.is_empty(), "survivors: {left:?}");
}

#[test]
fn limits_cannot_be_raised() {
    let out = run_fixture("limits.py", "");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 6);
    assert!(
        out.stdout.contains("denied fds OSError True"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_segfault_is_a_crash() {
    let out = run_fixture("crash.py", "");
    assert_eq!(out.status, RunStatus::Crashed, "{}", out.stderr);
    assert!(out.stderr.contains("signal 11"), "{}", out.stderr);
}

#[test]
fn ordinary_programs_still_work() {
    let out = run_fixture("ordinary.py", "A C E G");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_eq!(out.stdout, "a c e g\n");
    assert_eq!(out.exit_code, Some(0));
}
