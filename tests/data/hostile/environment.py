# Prints the environment it sees and tries the parent's.
import json, os, sys
print("ENV", json.dumps(sorted(os.environ)))
for k, v in os.environ.items():
    print("VAL", k, v)
try:
    print("ESCAPED", open("/proc/%d/environ" % os.getppid()).read()[:200])
except OSError as e:
    print("denied parent_environ", type(e).__name__)
