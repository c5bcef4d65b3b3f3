# A hundred thousand small files and directories.
import os
n = 0
try:
    for i in range(100_000):
        os.mkdir("d%d" % i) if i % 2 else open("f%d" % i, "w").close()
        n += 1
    print("ESCAPED files", n)
except OSError as e:
    print("denied files", type(e).__name__, "after", n)
