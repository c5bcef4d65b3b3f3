# /proc of the parent and of init, the dataset and other files of kcomp.
import json, os, sys
t = json.loads(sys.stdin.read())
ppid = os.getppid()
paths = ["/proc/%d/cmdline" % ppid, "/proc/%d/environ" % ppid, "/proc/%d/cwd/Cargo.toml" % ppid,
         "/proc/1/cmdline", "/proc/self/status", "/etc/passwd", "/etc/shadow", t["dataset"], t["secret"],
         "/proc/%d/exe" % ppid, "/proc/%d/maps" % ppid]
for p in paths:
    try:
        with open(p, "rb") as f:
            print("ESCAPED read", p, f.read(200))
    except OSError as e:
        print("denied read", p, type(e).__name__)
for d in ["/proc", "/", os.path.dirname(t["dataset"]), "/etc", "/home", "/root"]:
    try:
        print("ESCAPED listdir", d, os.listdir(d)[:5])
    except OSError as e:
        print("denied listdir", d, type(e).__name__)
