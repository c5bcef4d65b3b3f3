# Raw system calls through ctypes: fork, clone, execve, x32 fork, io_uring, unshare, mount,
# setsid, bpf, perf_event_open, keyctl, personality, memfd_create, process_vm_readv.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
calls = {
    "fork": (57,), "vfork": (58,), "clone_process": (56, 17, 0, 0, 0, 0),
    "execve_sh": (59, b"/bin/sh", None, None), "x32_fork": (0x40000000 | 57,),
    "io_uring_setup": (425, 8, ctypes.create_string_buffer(120)), "unshare_user": (272, 0x10000000),
    "mount": (165, b"none", b"/tmp", b"tmpfs", 0, None), "setsid": (112,), "setpgid": (109, 0, 0),
    "bpf": (321, 0, None, 0), "perf_event_open": (298, None, 0, -1, -1, 0), "keyctl": (250, 0, 0),
    "personality": (135, 0x0040000), "memfd_create": (319, b"x", 0), "ptrace_traceme": (101, 0),
    "process_vm_readv": (310, os.getppid(), None, 0, None, 0, 0), "pidfd_open_parent": (434, os.getppid(), 0),
    "socket_inet": (41, 2, 1, 0), "chroot": (161, b"/"), "setns": (308, 0, 0),
}
for name, args in calls.items():
    r = libc.syscall(*args)
    err = ctypes.get_errno()
    if r == 0 and name in ("fork", "vfork", "clone_process"):
        os._exit(0)  # a child, if it ever got here
    print(("denied" if r < 0 else "ESCAPED"), name, r, os.strerror(err) if r < 0 else "", flush=True)
