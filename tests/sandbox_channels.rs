//! Channels between concurrent samples and shared kernel limits. File
//! notifications, leases and locks on files of the shared read-only view, legacy AIO and
//! io_uring, the host's page cache (mincore, cachestat, fadvise, readahead, madvise PAGEOUT/
//! COLD/REMOVE, RWF_NOWAIT) are refused by seccomp; the limits the kernel counts per uid are
//! set for the sample; a root kcomp's concurrent samples run as host ids of their own (never
//! `nobody`, never one another's). Victims and ids are checked from outside.

#[path = "common/hostile.rs"]
mod hostile;
use hostile::{assert_all_denied, fixture};
use kcomp::programs::sandbox::{RunStatus, SIGPENDING, SandboxConfig, run_many, run_python};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn cfg() -> SandboxConfig {
    SandboxConfig {
        timeout: Duration::from_secs(5),
        ..SandboxConfig::default()
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn notifications_locks_aio_and_the_page_cache_are_refused() {
    let out = run_python(&fixture("channels.py"), "", &cfg()).expect("sandbox available");
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    // 10 notification calls, 11 leases and locks, 9 AIO/io_uring, 12 page-cache calls,
    // 5 limits, 3 raises, the queue's end.
    assert_all_denied(&out, 51);
    for ok in [
        "ok madvise DONTNEED\n",
        "ok madvise DONTNEED file\n",
        "ok preadv2 64\n",
        "ok fcntl True True\n",
        "ok thread\n",
        "ok own file mine\n",
    ] {
        assert!(
            out.stdout.contains(ok),
            "{ok}{}\n{}",
            out.stdout,
            out.stderr
        );
    }
    // Real-time signals queue up to the sample's own RLIMIT_SIGPENDING, then EAGAIN.
    let queued: u64 = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("queued "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert_eq!(queued, SIGPENDING, "{}", out.stdout);
    assert!(out.stdout.contains("denied queue EAGAIN"), "{}", out.stdout);
}

/// A lock the host holds on a file of the view is invisible to a sample (F_GETLK and
/// F_OFD_GETLK are refused), and a sample cannot take one the host would see.
#[test]
fn locks_on_view_files_are_no_channel_to_the_host() {
    use std::os::fd::AsRawFd;
    let c = cfg();
    let stdlib = c
        .prefixes
        .iter()
        .map(|p| std::path::Path::new(p).join("lib"))
        .find_map(|lib| {
            std::fs::read_dir(&lib).ok()?.flatten().find_map(|e| {
                let os = e.path().join("os.py");
                os.is_file().then_some(os)
            })
        })
        .expect("the interpreter's os.py");
    let held = std::fs::File::open(&stdlib).unwrap();
    // SAFETY: flock on a descriptor we own.
    assert_eq!(
        unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) },
        0
    );
    let program = "import fcntl, os, struct\n\
        fd = os.open(os.__file__, os.O_RDONLY)\n\
        for name, cmd in (('F_GETLK', fcntl.F_GETLK), ('F_OFD_GETLK', 36)):\n\
        \x20   try:\n\
        \x20       fcntl.fcntl(fd, cmd, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0) + bytes(4))\n\
        \x20       print('ESCAPED', name)\n\
        \x20   except OSError as e:\n\
        \x20       print('denied', name, e.errno)\n\
        try:\n\
        \x20   fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n\
        \x20   print('ESCAPED flock')\n\
        except OSError as e:\n\
        \x20   print('denied flock', e.errno)\n";
    let out = run_python(program, "", &c).unwrap();
    assert_eq!(out.status, RunStatus::Exited, "{}", out.stderr);
    assert_all_denied(&out, 3);
    assert_eq!(out.stdout.matches(" 1\n").count(), 3, "{}", out.stdout);
    drop(held);
}

/// Every process that is a child of this test process and lives in another user namespace
/// (a sample's relay, past its drop of ids): pid -> host uid.
fn relays() -> BTreeMap<u32, u32> {
    let me = std::process::id();
    let my_ns = std::fs::read_link("/proc/self/ns/user").unwrap();
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        let field = |name: &str| -> Option<u32> {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
        };
        if field("PPid:") != Some(me) {
            continue;
        }
        match std::fs::read_link(format!("/proc/{pid}/ns/user")) {
            Ok(ns) if ns != my_ns => {}
            _ => continue,
        }
        if let Some(uid) = field("Uid:") {
            found.insert(pid, uid);
        }
    }
    found
}

#[test]
fn concurrent_samples_of_a_root_kcomp_run_as_host_ids_of_their_own() {
    if !is_root() {
        eprintln!("SKIPPED: the per-sample host ids apply when kcomp runs as root");
        return;
    }
    // Four samples at once (the default parallelism), each alive until its wall-clock limit.
    let c = SandboxConfig {
        timeout: Duration::from_secs(4),
        ..SandboxConfig::default()
    };
    let inputs = vec![String::new(); 4];
    let seen = std::sync::Mutex::new(BTreeMap::<u32, u32>::new());
    let clashes = std::sync::Mutex::new(Vec::<String>::new());
    let done = std::sync::atomic::AtomicBool::new(false);
    let outs = std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            while !done.load(std::sync::atomic::Ordering::Relaxed)
                && start.elapsed() < Duration::from_secs(60)
            {
                let now = relays();
                let mut uids: Vec<u32> = now.values().copied().collect();
                uids.sort();
                if uids.windows(2).any(|w| w[0] == w[1]) {
                    clashes.lock().unwrap().push(format!("{now:?}"));
                }
                seen.lock().unwrap().extend(now);
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let outs = run_many("import time\ntime.sleep(30)\n", &inputs, &c).unwrap();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        outs
    });
    for o in &outs {
        assert_eq!(o.status, RunStatus::Timeout, "{}", o.stderr);
    }
    let seen = seen.into_inner().unwrap();
    assert!(
        clashes.lock().unwrap().is_empty(),
        "two live samples shared a host uid: {:?}",
        clashes.lock().unwrap()
    );
    assert!(seen.len() >= 4, "saw {seen:?}");
    for (pid, uid) in &seen {
        assert!(
            *uid != 0 && *uid != 65534 && *uid >= 1000,
            "sample relay {pid} runs as host uid {uid}"
        );
    }
}

/// A host process running as `nobody` keeps its own per-uid budget while samples flood
/// theirs: it can still queue real-time signals to itself.
#[test]
fn the_hosts_nobody_keeps_its_signal_budget() {
    if !is_root() {
        eprintln!("SKIPPED: the host's `nobody` is only shared by a root kcomp's samples");
        return;
    }
    let program = "import signal, threading, time\n\
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])\n\
        n = 0\n\
        try:\n\
        \x20   while n < 100000:\n\
        \x20       signal.pthread_kill(threading.get_ident(), signal.SIGRTMIN)\n\
        \x20       n += 1\n\
        except OSError:\n\
        \x20   pass\n\
        print(n, flush=True)\n\
        time.sleep(float(input()))\n";
    // The host's `nobody`: a forked process with 40 signals of budget queues real-time
    // signals to itself (blocked, so they stay pending) and reports how many it could.
    let victim = |budget: u64| -> u64 {
        let mut fds = [0; 2];
        // SAFETY: a pipe, then a fork whose child makes only async-signal-safe system calls
        // and exits.
        unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                let lim = libc::rlimit {
                    rlim_cur: budget,
                    rlim_max: budget,
                };
                if libc::setresgid(65534, 65534, 65534) != 0
                    || libc::setresuid(65534, 65534, 65534) != 0
                    || libc::setrlimit(libc::RLIMIT_SIGPENDING, &lim) != 0
                {
                    libc::_exit(1);
                }
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, libc::SIGRTMIN());
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
                let (me, tid) = (libc::getpid(), libc::syscall(libc::SYS_gettid));
                let mut n: u64 = 0;
                while n < 100_000 && libc::syscall(libc::SYS_tgkill, me, tid, libc::SIGRTMIN()) == 0
                {
                    n += 1;
                }
                libc::write(fds[1], (&n as *const u64).cast(), 8);
                libc::_exit(0);
            }
            libc::close(fds[1]);
            let mut n: u64 = u64::MAX;
            libc::read(fds[0], (&mut n as *mut u64).cast(), 8);
            libc::close(fds[0]);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            n
        }
    };
    // Eight samples queue signals up to their own limit and hold them pending for 3 s; the
    // host's `nobody` asks for its own 40 while they do (once the samples' relays are seen).
    let c = SandboxConfig {
        timeout: Duration::from_secs(10),
        parallel: 8,
        ..SandboxConfig::default()
    };
    let (outs, during) = std::thread::scope(|s| {
        let samples = s.spawn(|| {
            run_many(
                &program.replace("float(input())", "3"),
                &vec![String::new(); 8],
                &c,
            )
            .unwrap()
        });
        let start = Instant::now();
        while relays().len() < 8 && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(500));
        let during = victim(40);
        (samples.join().unwrap(), during)
    });
    for o in &outs {
        assert_eq!(o.status, RunStatus::Exited, "{}", o.stderr);
        assert_eq!(o.stdout.trim(), SIGPENDING.to_string(), "{}", o.stderr);
    }
    assert_eq!(during, 40);
}
