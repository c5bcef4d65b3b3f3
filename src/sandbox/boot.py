# kcomp sandbox boot: installs an audit hook that confines the program, then runs it.
import os
import sys


def _kcomp_install(extra_paths):
    root = os.path.realpath(os.getcwd())
    for p in extra_paths:
        if p not in sys.path:
            sys.path.append(p)
    readable = [root, "/dev/null", "/dev/urandom", "/etc/localtime", "/usr/share/zoneinfo"]
    readable += [os.path.realpath(p) for p in sys.path if p]
    readable += [os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)]
    readable = tuple(set(readable))
    realpath, fsdecode, sep = os.path.realpath, os.fsdecode, os.sep

    def inside(path, roots):
        try:
            p = realpath(fsdecode(path))
        except Exception:
            return False
        return any(p == r or p.startswith(r + sep) for r in roots)

    denied = frozenset({
        "os.system", "os.exec", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn",
        "subprocess.Popen", "os.kill", "os.killpg", "pty.spawn", "socket.connect",
        "socket.bind", "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
        "socket.sendto", "socket.sendmsg", "ctypes.dlopen", "ctypes.dlsym", "os.setuid",
        "os.chroot", "sys.addaudithook", "os.putenv", "os.unsetenv", "mmap.__new__",
        "resource.setrlimit", "signal.pthread_kill",
    })
    path_events = frozenset({
        "os.remove", "os.rmdir", "os.rename", "os.truncate", "os.chmod", "os.chown",
        "os.link", "os.symlink", "os.mkdir", "os.utime", "shutil.rmtree", "shutil.move",
        "shutil.copyfile", "os.chdir",
    })
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def hook(event, args):
        if event in denied:
            raise PermissionError("sandbox: " + event)
        if event == "open":
            path, mode, flags = args
            if path is None or isinstance(path, int):
                return
            writing = bool(flags & write_flags) or (
                isinstance(mode, str) and any(c in mode for c in "wax+")
            )
            if not inside(path, (root,) if writing else readable):
                raise PermissionError("sandbox: open outside the working directory")
        elif event in path_events:
            for a in args[:2]:
                if isinstance(a, (str, bytes, os.PathLike)) and not inside(a, (root,)):
                    raise PermissionError("sandbox: " + event)
        elif event in ("os.listdir", "os.scandir", "glob.glob"):
            a = args[0] if args else "."
            if isinstance(a, (str, bytes, os.PathLike)) and not inside(a or ".", readable):
                raise PermissionError("sandbox: " + event)
        elif event == "import" and args and args[0] in ("ctypes", "_ctypes", "_posixsubprocess"):
            raise PermissionError("sandbox: import " + args[0])

    sys.addaudithook(hook)


with open(sys.argv[1], "rb") as _f:
    _code = compile(_f.read(), sys.argv[1], "exec")
_kcomp_install(sys.argv[2:])
del _kcomp_install, _f
sys.argv = [sys.argv[1]]
exec(_code, {"__name__": "__main__", "__file__": sys.argv[0], "__builtins__": __builtins__})
