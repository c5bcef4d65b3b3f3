# Exec by every route: execveat on the interpreter's descriptor number with an absolute path
# (the path ignores the descriptor), execve of the interpreter itself, the dynamic loader.
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, f):
    try:
        r = f()
        if isinstance(r, int) and r < 0:
            raise OSError(ctypes.get_errno(), "failed")
        print("ESCAPED", name, r, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, ctypes.get_errno(), flush=True)
exe = sys.executable.encode() or b"/usr/bin/python3"
argv = (ctypes.c_char_p * 4)(exe, b"-c", b"print('ESCAPED exec ran')", None)
envp = (ctypes.c_char_p * 1)(None)
for path in (exe, b"/bin/sh", b"/usr/bin/git", b"/lib64/ld-linux-x86-64.so.2"):
    # execveat(1000, path, argv, envp, AT_EMPTY_PATH) = syscall 322
    attempt("execveat_1000_" + path.decode(), lambda: libc.syscall(322, 1000, path, argv, envp, 0x1000))
    attempt("execveat_cwd_" + path.decode(), lambda: libc.syscall(322, -100, path, argv, envp, 0))
    attempt("execve_" + path.decode(), lambda: libc.execve(path, argv, envp))
attempt("os_execv", lambda: os.execv(sys.executable, [sys.executable, "-c", "print('ESCAPED')"]))
fd = os.open(sys.executable, os.O_RDONLY) if os.path.exists(sys.executable) else -1
attempt("fexecve_own_fd", lambda: os.execve(fd, [sys.executable, "-c", "print('ESCAPED')"], {}))
print("still here", flush=True)
