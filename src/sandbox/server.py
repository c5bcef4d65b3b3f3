# kcomp sandbox server: compiles the program once, then for each sample forks a child that
# moves into its own directory and process group, redirects stdin/stdout/stderr to files,
# installs the confining audit hook and runs the program. The server (trusted) enforces the
# wall-clock limit per sample and kills the child's whole process group.
import json
import os
import signal
import sys
import time


def readable_base(extra_paths):
    """Paths every child may read (stdlib, site-packages), resolved once in the server."""
    for p in extra_paths:
        if p not in sys.path:
            sys.path.append(p)
    base = ["/dev/null", "/dev/urandom", "/etc/localtime", "/usr/share/zoneinfo"]
    base += [os.path.realpath(p) for p in sys.path if p]
    base += [os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)]
    return tuple(set(base))


def confine(base):
    root = os.path.realpath(os.getcwd())
    readable = (root,) + base
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


def child(sample_dir, code, base):
    os.setpgid(0, 0)
    os.chdir(sample_dir)
    fd_in = os.open("in.txt", os.O_RDONLY)
    fd_out = os.open("out.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    fd_err = os.open("err.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd, target in ((fd_in, 0), (fd_out, 1), (fd_err, 2)):
        os.dup2(fd, target)
        os.close(fd)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    status = 0
    try:
        if isinstance(code, BaseException):
            raise code
        confine(base)
        exec(code, {"__name__": "__main__", "__file__": "prog.py", "__builtins__": __builtins__})
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(status & 0xFF)


def main():
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    timeout = float(jobs["timeout"])
    with open(jobs["program"], "rb") as f:
        source = f.read()
    try:
        code = compile(source, "prog.py", "exec")
    except BaseException as e:  # SyntaxError, ValueError (null bytes), RecursionError
        code = e
    parallel = max(1, int(jobs.get("parallel", 1)))
    base = readable_base(jobs["paths"])
    pending = list(jobs["samples"])
    running = {}  # pid -> (sample_dir, start)

    def finish(pid, sample_dir, start, result):
        try:
            os.killpg(pid, signal.SIGKILL)  # leftovers of the child's group
        except OSError:
            pass
        with open(os.path.join(sample_dir, "status"), "w") as f:
            f.write("%s %.6f\n" % (result, time.monotonic() - start))

    delay = 0.0002
    while pending or running:
        while pending and len(running) < parallel:
            sample_dir = pending.pop(0)
            sys.stdout.flush()
            sys.stderr.flush()
            start = time.monotonic()
            pid = os.fork()
            if pid == 0:
                child(sample_dir, code, base)
            try:
                os.setpgid(pid, pid)
            except OSError:
                pass
            running[pid] = (sample_dir, start)
        progressed = False
        for pid, (sample_dir, start) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                if os.WIFSIGNALED(status):
                    sig = os.WTERMSIG(status)
                    result = "output_limit" if sig == signal.SIGXFSZ else "signal %d" % sig
                else:
                    result = "exited %d" % os.WEXITSTATUS(status)
            elif time.monotonic() - start >= timeout:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
                os.waitpid(pid, 0)
                result = "timeout"
            else:
                continue
            del running[pid]
            finish(pid, sample_dir, start, result)
            progressed = True
        if progressed:
            delay = 0.0002
        else:
            time.sleep(delay)
            delay = min(delay * 2, 0.005)


main()
