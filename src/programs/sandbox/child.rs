//! The confinement a sample's child applies to itself between fork and exec. Only raw system
//! calls on data prepared by the parent run here (no allocation, no locks).
//!
//! Order: new session; a mount namespace (inside a new user namespace unless kcomp is root);
//! every inherited mount private and read-only; the minimal view (a new root with only the
//! interpreter, its libraries and a private tmpfs with size and inode caps on /tmp) and
//! `pivot_root` into it; as root, a drop to an unprivileged uid; user (if not yet), network,
//! IPC and PID namespaces (uid/gid maps to one unprivileged id); parent-death signal; a fork
//! whose child is pid 1 of the new PID namespace while the parent relays its end ([`relay`]);
//! descriptors closed on exec; the interpreter's descriptor moved to [`EXEC_FD`] and the
//! status pipe to [`STATUS_FD`] (kept across exec for the bootstrap); rlimits;
//! Landlock (plus the tmpfs as the only writable hierarchy); seccomp;
//! `execveat(EXEC_FD, "")`.

use super::policy::{EXEC_FD, STATUS_FD};
use seccompiler::BpfProgram;
use std::ffi::{CString, c_char};
use std::io;
use std::os::fd::RawFd;

/// Setup steps, reported to the parent inside the error code (see [`encode`]).
#[derive(Debug, Clone, Copy)]
#[repr(i32)]
pub enum Stage {
    Session = 1,
    Namespaces,
    IdMaps,
    ParentDeath,
    ReadOnly,
    Tmpfs,
    View,
    DropIds,
    Descriptors,
    Rlimits,
    Landlock,
    Seccomp,
    Exec,
    PidNamespace,
}

impl Stage {
    pub const ALL: [Stage; 14] = [
        Stage::Session,
        Stage::Namespaces,
        Stage::IdMaps,
        Stage::ParentDeath,
        Stage::ReadOnly,
        Stage::Tmpfs,
        Stage::View,
        Stage::DropIds,
        Stage::Descriptors,
        Stage::Rlimits,
        Stage::Landlock,
        Stage::Seccomp,
        Stage::Exec,
        Stage::PidNamespace,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            Stage::Session => "setsid",
            Stage::Namespaces => "unshare(user, mount, network, IPC, PID namespaces)",
            Stage::IdMaps => "writing uid_map/gid_map",
            Stage::ParentDeath => "PR_SET_PDEATHSIG",
            Stage::ReadOnly => "remounting / read-only (mount_setattr)",
            Stage::Tmpfs => "mounting the private tmpfs",
            Stage::View => "building the minimal file-system view (bind mounts, pivot_root)",
            Stage::DropIds => "dropping to the unprivileged uid (kcomp runs as root)",
            Stage::Descriptors => "preparing descriptors",
            Stage::Rlimits => "setrlimit",
            Stage::Landlock => "Landlock restrict_self",
            Stage::Seccomp => "installing the seccomp filter",
            Stage::Exec => "execveat of the interpreter",
            Stage::PidNamespace => "forking into the PID namespace",
        }
    }
}

/// std only forwards an errno from a failed `pre_exec`: the stage rides in the thousands.
pub fn encode(stage: Stage, errno: i32) -> io::Error {
    io::Error::from_raw_os_error(stage as i32 * 1000 + errno.clamp(0, 999))
}

/// Splits an error from `spawn` into the stage (None: fork itself failed) and the errno.
pub fn decode(e: &io::Error) -> (Option<Stage>, io::Error) {
    match e.raw_os_error() {
        Some(code) if code >= 1000 => {
            let stage = Stage::ALL.get((code / 1000 - 1) as usize).copied();
            (stage, io::Error::from_raw_os_error(code % 1000))
        }
        _ => (None, io::Error::new(e.kind(), e.to_string())),
    }
}

/// Null-terminated pointer arrays kept next to the strings they point into.
pub struct CArgs {
    _strings: Vec<CString>,
    ptrs: Vec<*const c_char>,
}

// SAFETY: the pointers target the owned, never-mutated CStrings in `_strings`.
unsafe impl Send for CArgs {}
unsafe impl Sync for CArgs {}

impl CArgs {
    pub fn new(items: impl IntoIterator<Item = String>) -> io::Result<CArgs> {
        let strings = items
            .into_iter()
            .map(|s| CString::new(s).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e)))
            .collect::<io::Result<Vec<_>>>()?;
        let mut ptrs: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        Ok(CArgs {
            _strings: strings,
            ptrs,
        })
    }
    fn as_ptr(&self) -> *const *const c_char {
        self.ptrs.as_ptr()
    }
}

/// One step of building the minimal file-system view under [`STAGE`] (paths already
/// prefixed with it), prepared by the parent.
pub enum ViewStep {
    /// A directory (mount point or parent of one); an existing one is fine.
    Dir(CString),
    /// An empty file as the mount point of a bound file.
    File(CString),
    /// Bind-mount a host path (recursively; read-only as the whole inherited tree is).
    Bind { source: CString, target: CString },
    /// A symbolic link of the host (e.g. /lib64 -> usr/lib64), recreated as it is.
    Symlink { target: CString, link: CString },
}

/// Where the new root is assembled before `pivot_root` (any existing host directory).
pub const STAGE: &std::ffi::CStr = c"/tmp";

/// Everything the child needs, prepared by the parent.
pub struct Plan {
    pub parent: libc::pid_t,
    /// kcomp runs as root: the sample drops to this (uid, gid), its own host id (leased by
    /// `ids`), before its user namespace, so RLIMIT_NPROC applies (the kernel exempts uid 0),
    /// it holds no host capability and shares no per-uid count with anyone.
    pub drop_to: Option<(libc::uid_t, libc::gid_t)>,
    pub uid_map: Vec<u8>,
    pub gid_map: Vec<u8>,
    /// Options of the new root's own (tiny, then read-only) tmpfs.
    pub root_options: CString,
    /// Options of the sample's writable tmpfs (size and inode caps).
    pub tmpfs_options: CString,
    pub view: &'static [ViewStep],
    /// The interpreter, opened by the parent (close-on-exec).
    pub exe_fd: RawFd,
    /// The write end of the bootstrap's status pipe (close-on-exec; moved to [`STATUS_FD`]).
    pub status_fd: RawFd,
    pub argv: CArgs,
    pub envp: CArgs,
    /// A descriptor of this sample's Landlock ruleset (close-on-exec).
    pub ruleset_fd: RawFd,
    pub rw_access: u64,
    pub filters: &'static [BpfProgram],
    /// (resource, soft, hard).
    pub limits: Vec<(libc::__rlimit_resource_t, u64, u64)>,
}

fn last_errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn check(rc: libc::c_long, stage: Stage) -> io::Result<()> {
    if rc < 0 {
        Err(encode(stage, last_errno()))
    } else {
        Ok(())
    }
}

/// Writes `data` to `path` (NUL-terminated, relative to `dir`), all of it.
unsafe fn write_file(dir: RawFd, path: &[u8], data: &[u8], stage: Stage) -> io::Result<()> {
    // SAFETY: path is NUL-terminated; data outlives the calls.
    unsafe {
        let fd = libc::openat(dir, path.as_ptr().cast(), libc::O_WRONLY | libc::O_CLOEXEC);
        check(fd as libc::c_long, stage)?;
        let mut done = 0;
        while done < data.len() {
            let n = libc::write(fd, data[done..].as_ptr().cast(), data.len() - done);
            if n <= 0 {
                let e = last_errno();
                libc::close(fd);
                return Err(encode(stage, e));
            }
            done += n as usize;
        }
        check(libc::close(fd) as libc::c_long, stage)
    }
}

/// Denies setgroups and maps the one unprivileged id, through a descriptor of /proc/self.
unsafe fn write_maps(proc_self: RawFd, plan: &Plan) -> io::Result<()> {
    // SAFETY: NUL-terminated literals, live buffers.
    unsafe {
        write_file(proc_self, b"setgroups\0", b"deny", Stage::IdMaps)?;
        write_file(proc_self, b"uid_map\0", &plan.uid_map, Stage::IdMaps)?;
        write_file(proc_self, b"gid_map\0", &plan.gid_map, Stage::IdMaps)
    }
}

/// The `landlock_path_beneath_attr` of the kernel UAPI (packed).
#[repr(C, packed)]
struct PathBeneath {
    allowed_access: u64,
    parent_fd: i32,
}

/// `struct mount_attr` of the kernel UAPI.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;

/// Private, read-only inherited tree; a new root holding only the view and the sample's
/// tmpfs; `pivot_root` into it and the old root detached: host paths do not exist any more
/// (no stat, readlink, xattr or inotify on them), whatever Landlock covers.
unsafe fn build_view(plan: &Plan) -> io::Result<()> {
    // SAFETY: raw system calls on prepared NUL-terminated strings.
    unsafe {
        let attr = MountAttr {
            attr_set: MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
            attr_clr: 0,
            propagation: libc::MS_PRIVATE,
            userns_fd: 0,
        };
        check(
            libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                c"/".as_ptr(),
                libc::AT_RECURSIVE as libc::c_uint,
                &attr as *const MountAttr,
                std::mem::size_of::<MountAttr>(),
            ),
            Stage::ReadOnly,
        )?;
        check(
            libc::mount(
                c"kcomp-root".as_ptr(),
                STAGE.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID,
                plan.root_options.as_ptr().cast(),
            ) as libc::c_long,
            Stage::Tmpfs,
        )?;
        for step in plan.view {
            let rc = match step {
                ViewStep::Dir(p) => {
                    let rc = libc::mkdir(p.as_ptr(), 0o755);
                    if rc < 0 && last_errno() == libc::EEXIST {
                        0
                    } else {
                        rc
                    }
                }
                ViewStep::File(p) => {
                    let fd = libc::open(
                        p.as_ptr(),
                        libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                        0o644,
                    );
                    if fd >= 0 { libc::close(fd) } else { fd }
                }
                ViewStep::Bind { source, target } => libc::mount(
                    source.as_ptr(),
                    target.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ),
                ViewStep::Symlink { target, link } => libc::symlink(target.as_ptr(), link.as_ptr()),
            };
            check(rc as libc::c_long, Stage::View)?;
        }
        check(
            libc::mount(
                c"kcomp-sample".as_ptr(),
                c"/tmp/tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                plan.tmpfs_options.as_ptr().cast(),
            ) as libc::c_long,
            Stage::Tmpfs,
        )?;
        // The new root itself becomes read-only (only its /tmp is writable).
        check(
            libc::mount(
                std::ptr::null(),
                STAGE.as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID,
                std::ptr::null(),
            ) as libc::c_long,
            Stage::View,
        )?;
        check(libc::chdir(STAGE.as_ptr()) as libc::c_long, Stage::View)?;
        check(
            libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()),
            Stage::View,
        )?;
        check(
            libc::umount2(c".".as_ptr(), libc::MNT_DETACH) as libc::c_long,
            Stage::View,
        )?;
        check(libc::chdir(c"/tmp".as_ptr()) as libc::c_long, Stage::View)?;
    }
    Ok(())
}

/// Sets the parent-death signal and checks the parent did not die before it was set.
unsafe fn die_with_parent(parent_alive: impl Fn() -> bool) -> io::Result<()> {
    // SAFETY: prctl with constant arguments.
    unsafe {
        check(
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) as libc::c_long,
            Stage::ParentDeath,
        )?;
        if !parent_alive() {
            libc::_exit(1);
        }
    }
    Ok(())
}

/// The process between kcomp and the sample (outside the sample's PID namespace, whose
/// pid 1 the sample is): reaps it and ends the same way, so kcomp's `wait4` sees the
/// sample's exit code or signal and, through this reaping, its CPU time.
unsafe fn relay(child: libc::pid_t, life: RawFd) -> ! {
    // SAFETY: raw system calls; this process only waits and exits.
    unsafe {
        libc::syscall(
            libc::SYS_close_range,
            0u32,
            (life as u32).saturating_sub(1),
            0u32,
        );
        libc::syscall(libc::SYS_close_range, life as u32 + 1, u32::MAX, 0u32);
        let mut status = 0;
        loop {
            let r = libc::waitpid(child, &mut status, libc::__WALL);
            if r == child {
                break;
            }
            if r < 0 && last_errno() != libc::EINTR {
                libc::_exit(127);
            }
        }
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        let sig = libc::WTERMSIG(status);
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), sig);
        libc::_exit(128 + sig);
    }
}

/// Runs in the child after fork, before exec; never returns on success.
///
/// # Safety
/// Must only be called in a freshly forked child.
pub unsafe fn confine(plan: &Plan) -> io::Result<()> {
    // SAFETY: raw system calls on prepared, live buffers; we are the only thread here.
    unsafe {
        check(libc::setsid() as libc::c_long, Stage::Session)?;
        let proc_self = libc::open(
            c"/proc/self".as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        check(proc_self as libc::c_long, Stage::IdMaps)?;
        // The view is built with the mount rights of whoever we are: a root kcomp's own
        // (host paths under /root stay reachable while binding them), else those of a new
        // user namespace.
        let rest = libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWPID;
        if plan.drop_to.is_some() {
            check(
                libc::unshare(libc::CLONE_NEWNS) as libc::c_long,
                Stage::Namespaces,
            )?;
        } else {
            check(
                libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) as libc::c_long,
                Stage::Namespaces,
            )?;
            write_maps(proc_self, plan)?;
        }
        build_view(plan)?;
        if let Some((uid, gid)) = plan.drop_to {
            check(
                libc::setgroups(0, std::ptr::null()) as libc::c_long,
                Stage::DropIds,
            )?;
            check(
                libc::setresgid(gid, gid, gid) as libc::c_long,
                Stage::DropIds,
            )?;
            check(
                libc::setresuid(uid, uid, uid) as libc::c_long,
                Stage::DropIds,
            )?;
            // A uid change makes the process non-dumpable: /proc/self/uid_map would then
            // belong to root.
            check(
                libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) as libc::c_long,
                Stage::DropIds,
            )?;
            check(
                libc::unshare(libc::CLONE_NEWUSER | rest) as libc::c_long,
                Stage::Namespaces,
            )?;
            write_maps(proc_self, plan)?;
        } else {
            check(libc::unshare(rest) as libc::c_long, Stage::Namespaces)?;
        }
        libc::close(proc_self);
        // After the id changes, which clear the setting.
        die_with_parent(|| libc::getppid() == plan.parent)?;
        // The sample becomes pid 1 of the new PID namespace: no host pid is visible or
        // addressable, getppid() is 0. `life` tells it whether this relay still exists.
        let mut life = [0 as RawFd; 2];
        check(
            libc::pipe2(life.as_mut_ptr(), libc::O_CLOEXEC) as libc::c_long,
            Stage::PidNamespace,
        )?;
        let pid = libc::fork();
        check(pid as libc::c_long, Stage::PidNamespace)?;
        if pid > 0 {
            libc::close(life[0]);
            relay(pid, life[1]);
        }
        libc::close(life[1]);
        die_with_parent(|| {
            let mut p = libc::pollfd {
                fd: life[0],
                events: libc::POLLIN,
                revents: 0,
            };
            // The relay never writes: any event is its end.
            libc::poll(&mut p, 1, 0) == 0
        })?;
        libc::close(life[0]);
        check(
            libc::syscall(
                libc::SYS_close_range,
                3u32,
                u32::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            ),
            Stage::Descriptors,
        )?;
        check(
            libc::dup3(plan.exe_fd, EXEC_FD, libc::O_CLOEXEC) as libc::c_long,
            Stage::Descriptors,
        )?;
        // Kept across exec: the bootstrap's only channel to kcomp, closed before the program.
        check(
            libc::dup3(plan.status_fd, STATUS_FD, 0) as libc::c_long,
            Stage::Descriptors,
        )?;
        let tmp = libc::open(c"/tmp".as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        check(tmp as libc::c_long, Stage::Landlock)?;
        for &(res, soft, hard) in &plan.limits {
            let lim = libc::rlimit {
                rlim_cur: soft as libc::rlim_t,
                rlim_max: hard as libc::rlim_t,
            };
            check(libc::setrlimit(res, &lim) as libc::c_long, Stage::Rlimits)?;
        }
        let rule = PathBeneath {
            allowed_access: plan.rw_access,
            parent_fd: tmp,
        };
        const LANDLOCK_RULE_PATH_BENEATH: libc::c_long = 1;
        check(
            libc::syscall(
                libc::SYS_landlock_add_rule,
                plan.ruleset_fd,
                LANDLOCK_RULE_PATH_BENEATH,
                &rule as *const PathBeneath,
                0u32,
            ),
            Stage::Landlock,
        )?;
        check(
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) as libc::c_long,
            Stage::Landlock,
        )?;
        check(
            libc::syscall(libc::SYS_landlock_restrict_self, plan.ruleset_fd, 0u32),
            Stage::Landlock,
        )?;
        for f in plan.filters {
            if seccompiler::apply_filter(f).is_err() {
                return Err(encode(Stage::Seccomp, last_errno()));
            }
        }
        libc::syscall(
            libc::SYS_execveat,
            EXEC_FD,
            c"".as_ptr(),
            plan.argv.as_ptr(),
            plan.envp.as_ptr(),
            libc::AT_EMPTY_PATH,
        );
        Err(encode(Stage::Exec, last_errno()))
    }
}

/// The unsafe fallback (`--allow-unsandboxed`): session, parent-death signal, rlimits only.
///
/// # Safety
/// Must only be called in a freshly forked child.
pub unsafe fn rlimits_only(
    parent: libc::pid_t,
    status_fd: RawFd,
    limits: &[(libc::__rlimit_resource_t, u64, u64)],
) -> io::Result<()> {
    // SAFETY: raw system calls on live data.
    unsafe {
        check(libc::setsid() as libc::c_long, Stage::Session)?;
        check(
            libc::dup3(status_fd, STATUS_FD, 0) as libc::c_long,
            Stage::Descriptors,
        )?;
        check(
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) as libc::c_long,
            Stage::ParentDeath,
        )?;
        if libc::getppid() != parent {
            libc::_exit(1);
        }
        for &(res, soft, hard) in limits {
            let lim = libc::rlimit {
                rlim_cur: soft as libc::rlim_t,
                rlim_max: hard as libc::rlim_t,
            };
            check(libc::setrlimit(res, &lim) as libc::c_long, Stage::Rlimits)?;
        }
    }
    Ok(())
}
