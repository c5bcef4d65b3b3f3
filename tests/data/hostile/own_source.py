# Reading its own source: __file__, argv[0], the working directory, inspect, the stdin that
# carried it. The marker below is in a comment only (not in any code constant):
# SOURCE-MARKER-5d1e9a
import inspect, os, sys
marker = "SOURCE-" + "MARKER-" + "5d1e9a"
def attempt(name, f):
    try:
        r = f()
        print(("ESCAPED " if marker in str(r) else "denied ") + name, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
attempt("file", lambda: open(__file__).read())
attempt("argv0", lambda: open(sys.argv[0]).read())
attempt("cwd", lambda: [open(n, errors="replace").read() for n in os.listdir(".")])
attempt("inspect", lambda: inspect.getsource(sys.modules["__main__"]))
attempt("inspect_fn", lambda: inspect.getsource(attempt))
attempt("stdin", lambda: sys.stdin.read())
attempt("orig_argv", lambda: sys.orig_argv)
attempt("globals", lambda: [repr(v) for k, v in globals().items() if k != "marker"])
attempt("fd0", lambda: os.pread(0, 1 << 16, 0))
print("names", sorted(k for k in globals() if not k.startswith("__")), flush=True)
