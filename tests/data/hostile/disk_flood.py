# Tries to write 1.2 GB into its own directory.
import os
total = 0
block = b"\0" * (1 << 20)
try:
    with open("big.bin", "wb") as f:
        for _ in range(1200):
            f.write(block)
            f.flush()
            total += len(block)
    print("ESCAPED wrote", total)
except OSError as e:
    print("denied disk", type(e).__name__, "after", total)
# More files of 8 MiB each: the total is capped, not just one file.
n = 0
try:
    for i in range(200):
        with open("part%d.bin" % i, "wb") as f:
            f.write(b"\0" * (8 << 20))
        n += 1
    print("ESCAPED parts", n)
except OSError as e:
    print("denied parts", type(e).__name__, "after", n)
