# Signals to the parent, to everyone, to a victim process, by pid and pidfd.
import ctypes, json, os, signal, sys
t = json.loads(sys.stdin.read())
victim, ppid = t["victim"], os.getppid()
def attempt(name, f):
    try:
        r = f()
        if isinstance(r, int) and r < 0:
            raise OSError(ctypes.get_errno(), "failed")
        print("ESCAPED", name, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
attempt("kill_parent", lambda: os.kill(ppid, signal.SIGKILL))
attempt("kill_victim", lambda: os.kill(victim, signal.SIGKILL))
attempt("kill_all", lambda: os.kill(-1, signal.SIGKILL))
attempt("killpg_victim", lambda: os.killpg(os.getpgid(victim), signal.SIGKILL))
attempt("pidfd_victim", lambda: signal.pidfd_send_signal(os.pidfd_open(victim), signal.SIGKILL))
libc = ctypes.CDLL(None, use_errno=True)
attempt("tgkill_victim", lambda: libc.syscall(234, victim, victim, 9))
attempt("tgkill_parent", lambda: libc.syscall(234, ppid, ppid, 9))
attempt("sigqueue_victim", lambda: signal.sigqueue(victim, 9, 0) if hasattr(signal, "sigqueue") else libc.syscall(129, victim, 9, None))
attempt("ptrace_parent", lambda: libc.ptrace(16, ppid, None, None))
print("survived", flush=True)
