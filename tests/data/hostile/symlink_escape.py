# Symlinks, dir_fd-relative opens, hard links and renames aimed outside the directory.
import json, os, sys
t = json.loads(sys.stdin.read())
def attempt(name, f):
    try:
        r = f()
        print("ESCAPED", name, repr(r)[:100], flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
os.symlink("/", "root")
os.symlink(t["outside"], "out")
os.symlink(t["secret"], "sec")
attempt("read_via_symlink", lambda: open("root/etc/passwd").read())
attempt("read_secret_link", lambda: open("sec").read())
attempt("write_via_symlink", lambda: open("out/symlink_marker", "w").write("ESCAPED"))
def dirfd_read():
    d = os.open("root", os.O_RDONLY | os.O_DIRECTORY)
    return os.read(os.open("etc/passwd", os.O_RDONLY, dir_fd=d), 100)
attempt("dirfd_read", dirfd_read)
def dirfd_write():
    d = os.open("out", os.O_RDONLY | os.O_DIRECTORY)
    return os.write(os.open("dirfd_marker", os.O_WRONLY | os.O_CREAT, dir_fd=d), b"ESCAPED")
attempt("dirfd_write", dirfd_write)
def dotdot():
    d = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    return os.read(os.open("../etc/passwd", os.O_RDONLY, dir_fd=d), 100)
attempt("dirfd_dotdot", dotdot)
attempt("hardlink_secret", lambda: os.link(t["secret"], "hard"))
attempt("rename_secret", lambda: os.rename(t["secret"], "stolen"))
attempt("remove_secret", lambda: os.remove(t["secret"]))
attempt("chmod_secret", lambda: os.chmod(t["secret"], 0o777))
