# Channels between concurrent samples through the shared read-only view and the kernel
# file notifications, leases and locks on a stdlib file, legacy AIO and io_uring,
# the host's page cache, and the limits the kernel counts per uid. Each attempt prints
# `denied <what>` or `ESCAPED <what>`; `ok <what>` lines are ordinary uses that must work.
import ctypes, errno, fcntl, mmap, os, resource, signal, sys, threading

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
shared = os.__file__                       # a file of the view every sample reads
shared_dir = os.path.dirname(shared)


def attempt(name, f, refused=(errno.EPERM,)):
    """Denied only with the errno of the refusal (EPERM from seccomp): any other error
    means the call reached the kernel."""
    try:
        ctypes.set_errno(0)
        r = f()
        e = ctypes.get_errno() if isinstance(r, int) and r < 0 else None
    except OSError as err:
        e = err.errno
    except ValueError as err:
        # resource.setrlimit's own word for EPERM.
        assert "not allowed" in str(err), err
        e = errno.EPERM
    if e is None:
        print("ESCAPED", name, repr(r)[:40], flush=True)
    elif e in refused:
        print("denied", name, errno.errorcode.get(e, e), flush=True)
    else:
        print("ESCAPED", name, "reached the kernel:", errno.errorcode.get(e, e), flush=True)


def sys_(nr, *args):
    return lambda: libc.syscall(nr, *args)


# File notifications (inotify, fanotify, dnotify with its signal).
attempt("inotify_init", sys_(253))
attempt("inotify_init1", lambda: libc.inotify_init1(0))
attempt("inotify_add_watch", lambda: libc.inotify_add_watch(0, shared.encode(), 0xfff))
attempt("fanotify_init", sys_(300, 0, 0))
attempt("fanotify_mark", sys_(301, 0, 1, 0x20, -100, shared_dir.encode()))
dfd = os.open(shared_dir, os.O_RDONLY)
attempt("F_NOTIFY", lambda: fcntl.fcntl(dfd, 1026, 0x80000003))
attempt("F_SETSIG", lambda: fcntl.fcntl(dfd, 10, signal.SIGRTMIN))
attempt("F_GETSIG", lambda: fcntl.fcntl(dfd, 11))
attempt("F_SETOWN", lambda: fcntl.fcntl(dfd, 8, 1))
attempt("F_SETOWN_EX", sys_(72, dfd, 15, ctypes.c_char_p(b"\0" * 8)))

# Leases and locks on a file of the view.
fd = os.open(shared, os.O_RDONLY)
attempt("F_SETLEASE", lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))
attempt("F_GETLEASE", lambda: fcntl.fcntl(fd, 1025))
attempt("flock shared", lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))
attempt("flock exclusive", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
rd = bytearray(32)
rd[0] = fcntl.F_RDLCK
attempt("F_SETLK", lambda: fcntl.fcntl(fd, fcntl.F_SETLK, bytes(rd)))
attempt("F_SETLKW", lambda: fcntl.fcntl(fd, fcntl.F_SETLKW, bytes(rd)))
attempt("F_GETLK", lambda: fcntl.fcntl(fd, fcntl.F_GETLK, bytes(rd)))
attempt("F_OFD_SETLK", lambda: fcntl.fcntl(fd, 37, bytes(rd)))
attempt("F_OFD_SETLKW", lambda: fcntl.fcntl(fd, 38, bytes(rd)))
attempt("F_OFD_GETLK", lambda: fcntl.fcntl(fd, 36, bytes(rd)))
attempt("lockf", lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))

# Legacy AIO (machine-wide fs.aio-max-nr) and io_uring.
ctx = ctypes.c_ulong(0)
attempt("io_setup", sys_(206, 128, ctypes.byref(ctx)))
attempt("io_destroy", sys_(207, 0))
attempt("io_getevents", sys_(208, 0, 0, 0, None, None))
attempt("io_submit", sys_(209, 0, 0, None))
attempt("io_cancel", sys_(210, 0, None, None))
attempt("io_pgetevents", sys_(333, 0, 0, 0, None, None, None))
params = ctypes.create_string_buffer(120)
attempt("io_uring_setup", sys_(425, 8, params))
attempt("io_uring_enter", sys_(426, 0, 0, 0, 0, None, 0))
attempt("io_uring_register", sys_(427, 0, 0, None, 0))

# The host's page cache: residency queries, eviction, readahead.
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size, prot=mmap.PROT_READ)
vec = ctypes.create_string_buffer((size + 4095) // 4096)
# mincore needs the mapping's address: map it through libc so the address is known.
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
p = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
attempt("mincore", lambda: libc.mincore(ctypes.c_void_p(p), ctypes.c_size_t(size), vec))
attempt("cachestat", sys_(451, fd, ctypes.create_string_buffer(16), ctypes.create_string_buffer(40), 0))
attempt("posix_fadvise DONTNEED", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))
attempt("posix_fadvise WILLNEED", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED))
attempt("readahead", sys_(187, fd, 0, 4096))
attempt("madvise PAGEOUT", lambda: m.madvise(21))
attempt("madvise COLD", lambda: m.madvise(20))
attempt("madvise REMOVE", lambda: m.madvise(9))
attempt("madvise HWPOISON", sys_(28, ctypes.c_void_p(p), 4096, 100))
attempt("madvise SOFT_OFFLINE", sys_(28, ctypes.c_void_p(p), 4096, 101))
attempt("preadv2 RWF_NOWAIT", lambda: os.preadv(fd, [bytearray(64)], 0, os.RWF_NOWAIT))
attempt("pwritev2 RWF_NOWAIT", lambda: os.pwritev(1, [b""], -1, os.RWF_NOWAIT))

# Ordinary uses that stay allowed.
anon = mmap.mmap(-1, 1 << 20)
anon.write(b"x" * (1 << 20))
anon.madvise(mmap.MADV_DONTNEED)
print("ok madvise DONTNEED", flush=True)
m.madvise(mmap.MADV_DONTNEED)
print("ok madvise DONTNEED file", flush=True)
print("ok preadv2", os.preadv(fd, [bytearray(64)], 0), flush=True)
print("ok fcntl", fcntl.fcntl(fd, fcntl.F_GETFD) >= 0, fcntl.fcntl(fd, fcntl.F_GETFL) >= 0, flush=True)
t = threading.Thread(target=lambda: None)
t.start()
t.join()
print("ok thread", flush=True)
with open("/tmp/own.txt", "w") as f:
    f.write("mine")
print("ok own file", open("/tmp/own.txt").read(), flush=True)

# Limits the kernel counts per uid, set for the sample (soft, hard).
for name, want in (("SIGPENDING", (64, 64)), ("RTPRIO", (0, 0)), ("NICE", (0, 0)),
                   ("MSGQUEUE", (0, 0))):
    got = resource.getrlimit(getattr(resource, "RLIMIT_" + name))
    print(("denied" if got == want else "ESCAPED"), "rlimit", name, got, flush=True)
rt = resource.getrlimit(resource.RLIMIT_RTTIME)
print(("denied" if rt[1] != resource.RLIM_INFINITY else "ESCAPED"), "rlimit RTTIME", rt, flush=True)
attempt("raise SIGPENDING", lambda: resource.setrlimit(resource.RLIMIT_SIGPENDING, (1 << 20, 1 << 20)))
attempt("raise RTPRIO", lambda: resource.setrlimit(resource.RLIMIT_RTPRIO, (99, 99)))
attempt("raise priority", lambda: os.setpriority(os.PRIO_PROCESS, 0, -5), (errno.EACCES, errno.EPERM))

# Queued real-time signals stop at the sample's own limit.
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
queued = 0
try:
    for _ in range(100000):
        signal.pthread_kill(threading.get_ident(), signal.SIGRTMIN)
        queued += 1
except OSError as e:
    print("denied queue", errno.errorcode.get(e.errno, e.errno), flush=True)
print("queued", queued, flush=True)
