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

/// Every file-system right Landlock knows at [`LANDLOCK_ABI`]: granted on the sample's tmpfs.
pub fn rw_access_bits() -> u64 {
    AccessFs::from_all(LANDLOCK_ABI).bits()
}

/// Read-only (and execute) hierarchies: the interpreter, its prefixes (standard library,
/// lib-dynload, site-packages) and the system's shared libraries; nothing else.
pub fn read_only_paths(
    python: &Path,
    prefixes: &[String],
    import_paths: &[String],
) -> Vec<PathBuf> {
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
    let mut out: Vec<PathBuf> = v
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

/// System calls refused with EPERM: process creation and exec (handled by rules below),
/// signals to other processes, sessions, sockets, tracing, namespaces and mounts, kernel
/// keyrings, BPF, perf, io_uring (which bypasses seccomp), memfd (memory outside the caps).
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
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        libc::SYS_fork,
        libc::SYS_vfork,
        libc::SYS_iopl,
        libc::SYS_ioperm,
        libc::SYS_uselib,
    ]);
    v
}

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
    // execveat only as our own exec: the interpreter's descriptor, empty path.
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
