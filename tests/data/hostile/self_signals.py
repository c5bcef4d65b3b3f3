# Lying about its status: raising SIGXCPU / SIGXFSZ itself, then a big file write.
import os, signal, sys, time
what = sys.stdin.read().strip()
time.sleep(0.05)
if what == "xcpu":
    signal.raise_signal(signal.SIGXCPU)
elif what == "xfsz":
    sys.stdout.write("x" * 20)
    sys.stdout.flush()
    signal.raise_signal(signal.SIGXFSZ)
elif what == "bigfile":
    try:
        with open("big", "wb") as f:
            f.write(b"\0" * (32 << 20))
        print("ESCAPED bigfile")
    except OSError as e:
        print("denied bigfile", e.errno)
print("after", what, flush=True)
