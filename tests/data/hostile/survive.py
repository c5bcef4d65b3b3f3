# Tries to outlive the run: a new session, ignored signals, a non-daemon thread that never
# ends. Prints its pid so the test can check it is gone.
import os, signal, threading, time
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
# Clearing the parent-death signal (PR_SET_PDEATHSIG = 1) would survive kcomp's death.
r = libc.prctl(1, 0, 0, 0, 0)
print(("denied" if r < 0 else "ESCAPED"), "clear_pdeathsig", flush=True)
def forever():
    while True:
        time.sleep(0.1)
threading.Thread(target=forever).start()
print("main done", flush=True)
