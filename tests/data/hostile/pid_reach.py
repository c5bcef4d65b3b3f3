# Reaching other processes by pid: kcomp (its parent), a victim, init, everything of its uid.
# Each call goes through libc/syscall so the errno is seen; any success is an escape.
import ctypes, json, os, sys
t = json.loads(sys.stdin.read())
libc = ctypes.CDLL(None, use_errno=True)
print("ids", os.getpid(), os.getppid(), flush=True)
def attempt(name, f):
    try:
        r = f()
        if isinstance(r, int) and r < 0:
            raise OSError(ctypes.get_errno(), "failed")
        print("ESCAPED", name, r, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
class Rlim(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]
small = Rlim(1 << 20, 1 << 20)
RLIMIT_AS, RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_CPU = 9, 7, 1, 0
for who in ("kcomp", "victim"):
    pid = t[who]
    for res in (RLIMIT_AS, RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_CPU):
        attempt(f"prlimit_{who}_{res}", lambda: libc.prlimit64(pid, res, ctypes.byref(small), None))
    attempt(f"prlimit_read_{who}", lambda: libc.prlimit64(pid, RLIMIT_AS, None, ctypes.byref(Rlim())))
    attempt(f"setpriority_{who}", lambda: libc.setpriority(0, pid, 19))
    attempt(f"getpriority_{who}", lambda: libc.syscall(140, 0, pid))
    mask = ctypes.c_uint64(1)
    attempt(f"setaffinity_{who}", lambda: libc.sched_setaffinity(pid, 8, ctypes.byref(mask)))
    attempt(f"getaffinity_{who}", lambda: libc.sched_getaffinity(pid, 8, ctypes.byref(mask)))
    prio = ctypes.c_int(0)
    # SCHED_IDLE = 5
    attempt(f"setscheduler_{who}", lambda: libc.sched_setscheduler(pid, 5, ctypes.byref(prio)))
    attempt(f"setparam_{who}", lambda: libc.sched_setparam(pid, ctypes.byref(prio)))
    attempt(f"getscheduler_{who}", lambda: libc.sched_getscheduler(pid))
    # ioprio_set(IOPRIO_WHO_PROCESS, pid, IOPRIO_CLASS_IDLE << 13) = syscall 251
    attempt(f"ioprio_set_{who}", lambda: libc.syscall(251, 1, pid, 3 << 13))
    attempt(f"ioprio_get_{who}", lambda: libc.syscall(252, 1, pid))
    attempt(f"os_setpriority_{who}", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
# Whole groups: every process of its uid / process group (who = 0).
attempt("setpriority_user", lambda: libc.setpriority(2, 0, 19))
attempt("setpriority_pgrp", lambda: libc.setpriority(1, 0, 19))
attempt("ioprio_user", lambda: libc.syscall(251, 3, 0, 3 << 13))
# Its own limits can only be lowered, and only through pid 0.
attempt("raise_own_nofile", lambda: libc.prlimit64(0, RLIMIT_NOFILE, ctypes.byref(Rlim(4096, 4096)), None))
attempt("own_by_pid", lambda: libc.prlimit64(os.getpid(), RLIMIT_NOFILE, None, ctypes.byref(Rlim())))
r = libc.prlimit64(0, RLIMIT_NOFILE, None, ctypes.byref(Rlim()))
print("own_read", r, flush=True)
