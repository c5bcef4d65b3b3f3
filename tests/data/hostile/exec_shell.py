# exec of /bin/sh in every spelling, writing a marker outside if it runs.
import json, os, sys
t = json.loads(sys.stdin.read())
cmd = "echo ESCAPED > %s/exec_marker" % t["outside"]
def attempt(name, f):
    try:
        f()
        print("ESCAPED", name, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
attempt("system", lambda: os.system(cmd) == 0 or (_ for _ in ()).throw(OSError("failed")))
attempt("popen", lambda: os.popen(cmd).read() or (_ for _ in ()).throw(OSError("failed")))
attempt("execv", lambda: os.execv("/bin/sh", ["sh", "-c", cmd]))
attempt("execv_python", lambda: os.execv(sys.executable, ["python3", "-c", "print('ESCAPED')"]))
attempt("fexecve", lambda: os.execve(os.open("/bin/sh", os.O_RDONLY), ["sh", "-c", cmd], {}))
