# Raising its own limits, recreating the exec descriptor, reading and mapping memory tricks.
import os, resource
def attempt(name, f):
    try:
        r = f()
        print("ESCAPED", name, r, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
attempt("raise_nofile", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096)))
attempt("raise_as", lambda: resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2))
attempt("raise_cpu", lambda: resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY,) * 2))
attempt("dup_to_1000", lambda: os.dup2(0, 1000))
attempt("fd_1000", lambda: os.fstat(1000))
fds = []
try:
    while True:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print("denied fds", type(e).__name__, len(fds) < 64)
