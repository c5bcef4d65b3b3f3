# Tries to outlive the run: a new session, ignored signals, a non-daemon thread that never
# ends. Names itself with the tag from stdin so the test can look for it among all processes
# (its own pid is 1 in its PID namespace, which says nothing on the host).
import os, signal, sys, threading, time
tag = sys.stdin.read().strip()
print("pid", os.getpid(), flush=True)
for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGXCPU):
    signal.signal(sig, signal.SIG_IGN)
for name, f in (("setsid", os.setsid), ("setpgrp", os.setpgrp), ("daemon_fork", os.fork)):
    try:
        r = f()
        print("ESCAPED", name, r, flush=True)
    except OSError as e:
        print("denied", name, type(e).__name__, flush=True)
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
# PR_SET_NAME: the tag becomes /proc/<pid>/comm on the host.
libc.prctl(15, tag.encode(), 0, 0, 0)
# Clearing the parent-death signal (PR_SET_PDEATHSIG = 1) would survive kcomp's death.
r = libc.prctl(1, 0, 0, 0, 0)
print(("denied" if r < 0 else "ESCAPED"), "clear_pdeathsig", flush=True)
def forever():
    while True:
        time.sleep(0.1)
threading.Thread(target=forever).start()
print("main done", flush=True)
