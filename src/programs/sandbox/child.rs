//! The confinement a sample's child applies to itself between fork and exec. Only raw system
//! calls on data prepared by the parent run here (no allocation, no locks).
//!
//! Order: new session; user, mount, network and IPC namespaces (uid/gid maps to one
//! unprivileged id); parent-death signal; every inherited mount private and read-only; a
//! private tmpfs with size and inode caps mounted
//! on /tmp as the working directory, with the program written into it; descriptors closed on
//! exec; the interpreter's descriptor moved to [`EXEC_FD`]; rlimits; Landlock (plus the
//! tmpfs as the only writable hierarchy); seccomp; `execveat(EXEC_FD, "")`.

use super::policy::EXEC_FD;
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
    Program,
    Descriptors,
    Rlimits,
    Landlock,
    Seccomp,
    Exec,
}

impl Stage {
    pub const ALL: [Stage; 12] = [
        Stage::Session,
        Stage::Namespaces,
        Stage::IdMaps,
        Stage::ParentDeath,
        Stage::ReadOnly,
        Stage::Tmpfs,
        Stage::Program,
        Stage::Descriptors,
        Stage::Rlimits,
        Stage::Landlock,
        Stage::Seccomp,
        Stage::Exec,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            Stage::Session => "setsid",
            Stage::Namespaces => "unshare(user, mount, network, IPC namespaces)",
            Stage::IdMaps => "writing uid_map/gid_map",
            Stage::ParentDeath => "PR_SET_PDEATHSIG",
            Stage::ReadOnly => "remounting / read-only (mount_setattr)",
            Stage::Tmpfs => "mounting the private tmpfs",
            Stage::Program => "writing the program into the tmpfs",
            Stage::Descriptors => "preparing descriptors",
            Stage::Rlimits => "setrlimit",
            Stage::Landlock => "Landlock restrict_self",
            Stage::Seccomp => "installing the seccomp filter",
            Stage::Exec => "execveat of the interpreter",
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

/// Everything the child needs, prepared by the parent.
pub struct Plan {
    pub parent: libc::pid_t,
    pub uid_map: Vec<u8>,
    pub gid_map: Vec<u8>,
    pub tmpfs_options: CString,
    pub program: std::sync::Arc<Vec<u8>>,
    /// The interpreter, opened by the parent (close-on-exec).
    pub exe_fd: RawFd,
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

/// Writes `data` to `path` (a NUL-terminated literal), all of it.
unsafe fn write_file(path: &[u8], data: &[u8], flags: i32, stage: Stage) -> io::Result<()> {
    // SAFETY: path is NUL-terminated; data outlives the calls.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), flags | libc::O_CLOEXEC, 0o600);
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

/// Runs in the child after fork, before exec; never returns on success.
///
/// # Safety
/// Must only be called in a freshly forked child.
pub unsafe fn confine(plan: &Plan) -> io::Result<()> {
    // SAFETY: raw system calls on prepared, live buffers; we are the only thread here.
    unsafe {
        check(libc::setsid() as libc::c_long, Stage::Session)?;
        check(
            libc::unshare(
                libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWIPC,
            ) as libc::c_long,
            Stage::Namespaces,
        )?;
        write_file(
            b"/proc/self/setgroups\0",
            b"deny",
            libc::O_WRONLY,
            Stage::IdMaps,
        )?;
        write_file(
            b"/proc/self/uid_map\0",
            &plan.uid_map,
            libc::O_WRONLY,
            Stage::IdMaps,
        )?;
        write_file(
            b"/proc/self/gid_map\0",
            &plan.gid_map,
            libc::O_WRONLY,
            Stage::IdMaps,
        )?;
        // After unshare: gaining capabilities there would clear the setting.
        check(
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) as libc::c_long,
            Stage::ParentDeath,
        )?;
        if libc::getppid() != plan.parent {
            libc::_exit(1);
        }
        // The whole inherited tree becomes private and read-only for this process: no
        // chmod/chown/utime/xattr on host files (which Landlock does not cover).
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
                c"kcomp-sample".as_ptr(),
                c"/tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                plan.tmpfs_options.as_ptr().cast(),
            ) as libc::c_long,
            Stage::Tmpfs,
        )?;
        check(libc::chdir(c"/tmp".as_ptr()) as libc::c_long, Stage::Tmpfs)?;
        write_file(
            b"/tmp/prog.py\0",
            &plan.program,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
            Stage::Program,
        )?;
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
    limits: &[(libc::__rlimit_resource_t, u64, u64)],
) -> io::Result<()> {
    // SAFETY: raw system calls on live data.
    unsafe {
        check(libc::setsid() as libc::c_long, Stage::Session)?;
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
