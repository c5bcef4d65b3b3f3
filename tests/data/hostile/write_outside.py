# Direct writes outside: the given folder, the host /tmp, /dev/shm, the working directory's parent.
import json, os, sys
t = json.loads(sys.stdin.read())
for p in [t["outside"] + "/direct_marker", "/tmp/" + t["tag"], "/dev/shm/" + t["tag"],
          "/var/tmp/" + t["tag"], "../" + t["tag"], os.path.expanduser("~/") + t["tag"]]:
    try:
        with open(p, "w") as f:
            f.write("ESCAPED")
        print("wrote", p, flush=True)
    except OSError as e:
        print("denied write", p, type(e).__name__, flush=True)
try:
    os.mkdir(t["outside"] + "/dir_marker")
    print("ESCAPED mkdir")
except OSError as e:
    print("denied mkdir", type(e).__name__)
