# Host metadata outside every Landlock rule: stat, readlink, xattrs, inotify, listing.
import ctypes, json, os, sys
t = json.loads(sys.stdin.read())
def attempt(name, f):
    try:
        r = f()
        print("ESCAPED", name, repr(r)[:60], flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
for p in (t["secret"], t["outside"], t["dataset"], "/root/.bashrc", "/work", "/home", "/etc/passwd",
          "/proc/1", "/proc/self/exe", "/sys/kernel", "/run", "/var", "/dev/shm"):
    attempt("stat " + p, lambda: os.stat(p))
    attempt("lstat " + p, lambda: os.lstat(p))
attempt("readlink", lambda: os.readlink("/proc/self/exe"))
attempt("getxattr", lambda: os.getxattr(t["secret"], "user.kcomp"))
attempt("listxattr", lambda: os.listxattr(t["outside"]))
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
w = libc.inotify_add_watch(fd, t["outside"].encode(), 0xfff) if fd >= 0 else -1
print(("denied" if w < 0 else "ESCAPED"), "inotify", flush=True)
# "/" itself is not listable (Landlock): probe the usual names.
names = ["bin", "boot", "dev", "etc", "home", "lib", "lib64", "mnt", "opt", "proc", "root",
         "run", "sbin", "srv", "sys", "tmp", "usr", "var", "work"]
print("ROOT", json.dumps([n for n in names if os.path.lexists("/" + n)]), flush=True)
