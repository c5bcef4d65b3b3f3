//! What a confined interpreter may do: the Landlock ruleset (files, TCP, signal and
//! abstract-socket scopes) and the seccomp filters, both built in the parent before fork.

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope, path_beneath_rules,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Landlock ABI required: 6 is the first with signal and abstract-unix-socket scopes.
pub const LANDLOCK_ABI: ABI = ABI::V6;

/// The descriptor (above the 64-descriptor limit, so the program cannot recreate it) through
/// which the child execs the interpreter; seccomp allows `execveat` on this one only.
pub const EXEC_FD: i32 = 1000;

/// The write end of the bootstrap's status pipe in the sample (above the descriptor limit,
/// like [`EXEC_FD`]): the bootstrap writes `ok` (or why it failed) there and closes it
/// before the program runs, so a program can neither write nor reopen it (no /proc in the
/// view) and cannot forge a failure of the sandbox.
pub const STATUS_FD: i32 = 1001;

/// Every file-system right Landlock knows at [`LANDLOCK_ABI`]: granted on the sample's tmpfs.
pub fn rw_access_bits() -> u64 {
    AccessFs::from_all(LANDLOCK_ABI).bits()
}

/// The paths a sample may read, as configured (before resolving links): the interpreter,
/// its prefixes (standard library, lib-dynload, site-packages) and the system's shared
/// libraries; nothing else.
pub fn wanted_paths(python: &Path, prefixes: &[String], import_paths: &[String]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = vec![python.to_path_buf()];
    v.extend(prefixes.iter().chain(import_paths).map(PathBuf::from));
    v.extend(
        [
            "/lib",
            "/lib64",
            "/usr/lib",
            "/usr/lib64",
            "/etc/ld.so.cache",
            "/etc/localtime",
            "/usr/share/zoneinfo",
        ]
        .map(PathBuf::from),
    );
    v
}

/// Read-only (and execute) hierarchies for Landlock: [`wanted_paths`] resolved.
pub fn read_only_paths(
    python: &Path,
    prefixes: &[String],
    import_paths: &[String],
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = wanted_paths(python, prefixes, import_paths)
        .into_iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A fresh ruleset (one per sample: the child adds its own tmpfs to it). Fails when the
/// kernel lacks any requested right (hard requirement, no silent downgrade).
pub fn ruleset(read_only: &[PathBuf]) -> Result<RulesetCreated, String> {
    let err = |e: landlock::RulesetError| format!("Landlock ABI {LANDLOCK_ABI:?}: {e}");
    let read: BitFlags<AccessFs> = AccessFs::from_read(LANDLOCK_ABI);
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(LANDLOCK_ABI))
        .map_err(err)?
        .handle_access(AccessNet::from_all(LANDLOCK_ABI))
        .map_err(err)?
        .scope(Scope::from_all(LANDLOCK_ABI))
        .map_err(err)?
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(read_only, read))
        .map_err(err)?
        .add_rules(path_beneath_rules(
            ["/dev/null"],
            AccessFs::ReadFile | AccessFs::WriteFile,
        ))
        .map_err(err)
}

/// Not in the `libc` crate for every target.
#[cfg(target_arch = "x86_64")]
const SYS_IO_PGETEVENTS: i64 = 333;
#[cfg(target_arch = "aarch64")]
const SYS_IO_PGETEVENTS: i64 = 292;
/// `cachestat` (Linux 6.5): the page-cache state of any readable file, like mincore.
const SYS_CACHESTAT: i64 = 451;

/// System calls refused with EPERM: process creation and exec (handled by rules below),
/// signals to other processes, sessions, sockets, tracing, namespaces and mounts, kernel
/// keyrings, BPF, perf, io_uring (which bypasses seccomp), memfd (memory outside the caps),
/// and the channels between concurrent samples through the shared read-only view or the
/// kernel (legacy AIO, inotify/fanotify, flock, the page cache).
fn denied() -> Vec<i64> {
    let mut v = vec![
        libc::SYS_execve,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_process_madvise,
        libc::SYS_kcmp,
        libc::SYS_kill,
        libc::SYS_tkill,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
        libc::SYS_pidfd_open,
        libc::SYS_pidfd_send_signal,
        libc::SYS_pidfd_getfd,
        libc::SYS_setsid,
        libc::SYS_setpgid,
        libc::SYS_socket,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_personality,
        libc::SYS_userfaultfd,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_memfd_create,
        libc::SYS_memfd_secret,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_fanotify_init,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_syslog,
        libc::SYS_vhangup,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_clock_adjtime,
        libc::SYS_adjtimex,
        libc::SYS_sethostname,
        libc::SYS_setdomainname,
        // No unix socket of any kind (socket() above): socketpair + sendto(path) reached
        // host datagram sockets.
        libc::SYS_socketpair,
        // No System V IPC: shm memory is outside RLIMIT_AS; no POSIX message queues either.
        libc::SYS_shmget,
        libc::SYS_shmat,
        libc::SYS_shmdt,
        libc::SYS_shmctl,
        libc::SYS_semget,
        libc::SYS_semop,
        libc::SYS_semtimedop,
        libc::SYS_semctl,
        libc::SYS_msgget,
        libc::SYS_msgsnd,
        libc::SYS_msgrcv,
        libc::SYS_msgctl,
        libc::SYS_mq_open,
        libc::SYS_mq_unlink,
        libc::SYS_mq_timedsend,
        libc::SYS_mq_timedreceive,
        libc::SYS_mq_notify,
        libc::SYS_mq_getsetattr,
        // Page migration of (possibly) other processes.
        libc::SYS_migrate_pages,
        libc::SYS_move_pages,
        libc::SYS_process_mrelease,
        // Legacy AIO: `io_setup` takes contexts from the machine-wide fs.aio-max-nr, which
        // a sample could exhaust for every process of the host.
        libc::SYS_io_setup,
        libc::SYS_io_destroy,
        libc::SYS_io_submit,
        libc::SYS_io_cancel,
        libc::SYS_io_getevents,
        SYS_IO_PGETEVENTS,
        // File notifications: a watch on a file of the shared view sees a sibling sample
        // (or the host) open it. fanotify_init is refused above.
        libc::SYS_inotify_init1,
        libc::SYS_inotify_add_watch,
        libc::SYS_inotify_rm_watch,
        libc::SYS_fanotify_mark,
        // flock on a file of the shared view is seen by every other sample (and the host);
        // a sample's own files need no lock (one process). fcntl locks: see below.
        libc::SYS_flock,
        // The host's page cache: mincore and cachestat tell whether a file of the view was
        // read recently (by the host or a sibling), fadvise(DONTNEED) evicts it, readahead
        // loads it on purpose. CPython and glibc use none of them.
        libc::SYS_mincore,
        SYS_CACHESTAT,
        libc::SYS_fadvise64,
        libc::SYS_readahead,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        libc::SYS_inotify_init,
        libc::SYS_fork,
        libc::SYS_vfork,
        libc::SYS_iopl,
        libc::SYS_ioperm,
        libc::SYS_uselib,
    ]);
    v
}

// fcntl commands (x86-64 and the generic table agree on these numbers).
const F_GETLK: u64 = 5;
const F_SETLK: u64 = 6;
const F_SETLKW: u64 = 7;
const F_SETOWN: u64 = 8;
const F_SETSIG: u64 = 10;
const F_GETSIG: u64 = 11;
const F_SETOWN_EX: u64 = 15;
const F_OFD_GETLK: u64 = 36;
const F_OFD_SETLK: u64 = 37;
const F_OFD_SETLKW: u64 = 38;
const F_SETLEASE: u64 = 1024;
const F_GETLEASE: u64 = 1025;
const F_NOTIFY: u64 = 1026;
// madvise advice.
const MADV_REMOVE: u64 = 9;
const MADV_COLD: u64 = 20;
const MADV_PAGEOUT: u64 = 21;
const MADV_HWPOISON: u64 = 100;
const MADV_SOFT_OFFLINE: u64 = 101;

/// The filters, installed in this order just before the exec.
pub fn seccomp_filters() -> Result<Vec<BpfProgram>, String> {
    let err = |e: seccompiler::BackendError| format!("seccomp: {e}");
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(err)?;
    let cond = |arg, len, op, val| SeccompCondition::new(arg, len, op, val).map_err(err);
    let rule = |c: SeccompCondition| SeccompRule::new(vec![c]).map_err(err);
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        denied().into_iter().map(|nr| (nr, Vec::new())).collect();
    // clone without CLONE_THREAD makes a process; threads stay allowed.
    let thread = libc::CLONE_THREAD as u64;
    rules.insert(
        libc::SYS_clone,
        vec![rule(cond(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(thread),
            0,
        )?)?],
    );
    // Clearing the parent-death signal would let a sleeping program outlive kcomp.
    rules.insert(
        libc::SYS_prctl,
        vec![rule(cond(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            libc::PR_SET_PDEATHSIG as u64,
        )?)?],
    );
    // Calls naming a process by pid act on the caller only (pid 0): no other process's
    // limits, priority, affinity, scheduling or I/O priority, even inside the namespace.
    let ne0 = |arg| -> Result<SeccompRule, String> {
        rule(cond(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, 0)?)
    };
    for nr in [
        libc::SYS_prlimit64,
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_getaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_getscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_getparam,
        libc::SYS_sched_setattr,
        libc::SYS_sched_getattr,
        libc::SYS_sched_rr_get_interval,
        libc::SYS_get_robust_list,
    ] {
        rules.insert(nr, vec![ne0(0)?]);
    }
    // (which, who): PRIO_PROCESS of pid 0 only (PRIO_PGRP/PRIO_USER with 0 mean a group).
    rules.insert(
        libc::SYS_setpriority,
        vec![
            rule(cond(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                libc::PRIO_PROCESS as u64,
            )?)?,
            ne0(1)?,
        ],
    );
    rules.insert(
        libc::SYS_getpriority,
        vec![
            rule(cond(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                libc::PRIO_PROCESS as u64,
            )?)?,
            ne0(1)?,
        ],
    );
    const IOPRIO_WHO_PROCESS: u64 = 1;
    for nr in [libc::SYS_ioprio_set, libc::SYS_ioprio_get] {
        rules.insert(
            nr,
            vec![
                rule(cond(
                    0,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::Ne,
                    IOPRIO_WHO_PROCESS,
                )?)?,
                ne0(1)?,
            ],
        );
    }
    // fcntl commands that make a channel between samples through a file of the shared view:
    // directory notifications and their signal (dnotify), leases, and record locks (POSIX
    // and open-file-description locks, also their queries, which see the host's and the
    // siblings' locks); SIGIO to an owner. CPython only uses F_GETFD/F_SETFD/F_GETFL/
    // F_SETFL/F_DUPFD_CLOEXEC, which stay allowed.
    rules.insert(
        libc::SYS_fcntl,
        [
            F_NOTIFY,
            F_SETSIG,
            F_GETSIG,
            F_SETLEASE,
            F_GETLEASE,
            F_GETLK,
            F_SETLK,
            F_SETLKW,
            F_OFD_GETLK,
            F_OFD_SETLK,
            F_OFD_SETLKW,
            F_SETOWN,
            F_SETOWN_EX,
        ]
        .into_iter()
        .map(|cmd| rule(cond(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, cmd)?))
        .collect::<Result<Vec<_>, String>>()?,
    );
    // madvise advice that reaches the page cache shared with the host and the other samples:
    // PAGEOUT and COLD reclaim or age a file's pages (an eviction another process can time),
    // REMOVE punches a hole in the backing file; the memory-failure injectors need
    // CAP_SYS_ADMIN anyway. MADV_DONTNEED stays: CPython's allocator and glibc's free() use it
    // on anonymous memory, and on a file mapping it only drops this process's own page-table
    // entries (the page cache keeps the pages), so it tells and changes nothing outside.
    rules.insert(
        libc::SYS_madvise,
        [
            MADV_REMOVE,
            MADV_COLD,
            MADV_PAGEOUT,
            MADV_HWPOISON,
            MADV_SOFT_OFFLINE,
        ]
        .into_iter()
        .map(|advice| rule(cond(2, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, advice)?))
        .collect::<Result<Vec<_>, String>>()?,
    );
    // preadv2/pwritev2 with RWF_NOWAIT fail with EAGAIN when the data is not in the page
    // cache: mincore by another name. Without the flag they are ordinary reads and writes.
    let nowait = libc::RWF_NOWAIT as u64;
    for nr in [libc::SYS_preadv2, libc::SYS_pwritev2] {
        rules.insert(
            nr,
            vec![rule(cond(
                5,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::MaskedEq(nowait),
                nowait,
            )?)?],
        );
    }
    // execveat only as our own exec: the interpreter's descriptor, empty path. An absolute
    // path would ignore the descriptor, so the bootstrap's first act is the filter of
    // [`exec_denial_filter`], which refuses every later exec.
    rules.insert(
        libc::SYS_execveat,
        vec![
            rule(cond(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                EXEC_FD as u64,
            )?)?,
            rule(cond(
                4,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                libc::AT_EMPTY_PATH as u64,
            )?)?,
        ],
    );
    let eperm = SeccompAction::Errno(libc::EPERM as u32);
    let main = SeccompFilter::new(rules, SeccompAction::Allow, eperm, arch).map_err(err)?;
    // clone3 passes its flags in memory seccomp cannot read: ENOSYS makes glibc use clone.
    let clone3 = SeccompFilter::new(
        [(libc::SYS_clone3, Vec::new())].into(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(err)?;
    let mut out: Vec<BpfProgram> = vec![
        main.try_into().map_err(err)?,
        clone3.try_into().map_err(err)?,
    ];
    #[cfg(target_arch = "x86_64")]
    out.push(x32_filter());
    Ok(out)
}

/// The x32 ABI reuses the x86-64 audit arch with bit 30 set in the syscall number, which the
/// rules above never match: refuse all of it.
#[cfg(target_arch = "x86_64")]
fn x32_filter() -> BpfProgram {
    use seccompiler::sock_filter;
    const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const JGE: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
    let s = |code, k| sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let j = |code, k, jt, jf| sock_filter { code, jt, jf, k };
    vec![
        s(LD_W_ABS, 4), // seccomp_data.arch
        j(JEQ, AUDIT_ARCH_X86_64, 0, 3),
        s(LD_W_ABS, 0), // seccomp_data.nr
        j(JGE, 0x4000_0000, 0, 1),
        s(RET, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        s(RET, libc::SECCOMP_RET_ALLOW),
    ]
}

/// The filter the bootstrap installs (from the interpreter, before it reads the program):
/// no execve/execveat at all. seccomp cannot tell our one `execveat` from a later one with
/// an absolute path (the path is a pointer it cannot read), so exec stays allowed only until
/// the interpreter runs, then no exec is left. Serialised as the kernel's `sock_filter`
/// array (8 bytes per instruction, native endianness).
pub fn exec_denial_filter() -> Result<Vec<u8>, String> {
    let err = |e: seccompiler::BackendError| format!("seccomp: {e}");
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(err)?;
    let f = SeccompFilter::new(
        [
            (libc::SYS_execve, Vec::new()),
            (libc::SYS_execveat, Vec::new()),
        ]
        .into(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(err)?;
    let prog: BpfProgram = f.try_into().map_err(err)?;
    let mut out = Vec::with_capacity(prog.len() * 8);
    for i in &prog {
        out.extend_from_slice(&i.code.to_ne_bytes());
        out.push(i.jt);
        out.push(i.jf);
        out.extend_from_slice(&i.k.to_ne_bytes());
    }
    Ok(out)
}

/// The new root's contents, as steps under [`super::child::STAGE`]: every path the sample
/// may read (canonical, nested ones dropped), the host's symbolic links on the way to them
/// (so /lib64/ld-linux*.so and the like still resolve), /dev/null and the mount point of
/// the sample's /tmp.
pub fn view_steps(originals: &[PathBuf]) -> Result<Vec<super::child::ViewStep>, String> {
    use super::child::{STAGE, ViewStep};
    use std::collections::BTreeSet;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let stage = Path::new(std::ffi::OsStr::from_bytes(STAGE.to_bytes()));
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes()).map_err(|e| format!("{}: {e}", p.display()))
    };
    let under = |p: &Path| stage.join(p.strip_prefix("/").unwrap_or(p));
    let mut binds: Vec<PathBuf> = Vec::new();
    let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
    for p in originals
        .iter()
        .map(PathBuf::as_path)
        .chain([Path::new("/dev/null")])
    {
        if !p.is_absolute() {
            continue;
        }
        // Symbolic links along the way, recreated in the view.
        let mut a = PathBuf::from("/");
        for comp in p.components().skip(1) {
            a.push(comp);
            if let Ok(t) = std::fs::read_link(&a) {
                links.push((a.clone(), t));
                match std::fs::canonicalize(&a) {
                    Ok(canon) => a = canon,
                    Err(_) => break,
                }
            }
        }
        if let Ok(canon) = std::fs::canonicalize(p) {
            binds.push(canon);
        }
    }
    binds.sort();
    binds.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for b in binds {
        if !kept.iter().any(|k| b.starts_with(k)) {
            kept.push(b);
        }
    }
    // A link inside a bound tree is already there.
    links.retain(|(l, _)| !kept.iter().any(|k| l.starts_with(k)));
    links.sort();
    links.dedup();
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    let add_parents = |p: &Path, dirs: &mut BTreeSet<PathBuf>| {
        for anc in p.ancestors().skip(1) {
            if anc != Path::new("/") {
                dirs.insert(anc.to_path_buf());
            }
        }
    };
    for b in &kept {
        add_parents(b, &mut dirs);
        if b.is_dir() {
            dirs.insert(b.clone());
        }
    }
    for (l, _) in &links {
        add_parents(l, &mut dirs);
    }
    dirs.insert(PathBuf::from("/tmp"));
    let mut steps = Vec::new();
    // BTreeSet order puts parents before children.
    for d in &dirs {
        steps.push(ViewStep::Dir(c(&under(d))?));
    }
    for b in &kept {
        if !b.is_dir() {
            steps.push(ViewStep::File(c(&under(b))?));
        }
        steps.push(ViewStep::Bind {
            source: c(b)?,
            target: c(&under(b))?,
        });
    }
    for (l, t) in &links {
        steps.push(ViewStep::Symlink {
            target: c(t)?,
            link: c(&under(l))?,
        });
    }
    Ok(steps)
}
