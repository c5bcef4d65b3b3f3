"""Before/after table of the tree learner in the default mixture (run_default_tree.sh).

Usage (repository root): python3 experiments/prequential-accuracy/summarise_default_tree.py [DIR]
"""

import csv
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "experiments/prequential-accuracy/results"
cells = {}
with open(f"{d}/default_tree.csv") as f:
    for r in csv.reader(f):
        if r[0] == "family":
            continue
        fam, setting, n, _seed, scheme = r[:5]
        k_data, ratio, wall, top = float(r[8]), float(r[9]), float(r[12]), r[13]
        base = scheme.removesuffix("+notree")
        side = "before" if scheme.endswith("+notree") else "after"
        cells.setdefault((fam, setting, n, base), {})[side] = (k_data, ratio, wall, top)
print("| family | setting | N | scheme | bits before | bits after | after - before | "
      "ratio to exact before -> after | wall s before -> after | top learner after |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (fam, setting, n, base), c in cells.items():
    if "before" not in c or "after" not in c:
        continue
    b, a = c["before"], c["after"]
    print(f"| {fam} | {setting} | {n} | {base} | {b[0]:,.1f} | {a[0]:,.1f} | {a[0] - b[0]:+,.1f} "
          f"| {b[1]:.3f} -> {a[1]:.3f} | {b[2]:.2f} -> {a[2]:.2f} | {a[3]} |")
print()
print("| runs (every N of the row) | CPU s before | CPU s after | wall s before | wall s after |")
print("|---|---|---|---|---|")
t = {}
with open(f"{d}/default_tree_time.csv") as f:
    for line in f:
        p = line.strip().split(",")
        if len(p) == 5:
            side = "before" if p[1].endswith("+notree") else "after"
            t.setdefault(p[0], {})[side] = (float(p[2]) + float(p[3]), float(p[4]))
for name, c in t.items():
    if "before" in c and "after" in c:
        print(f"| {name} | {c['before'][0]:.2f} | {c['after'][0]:.2f} | {c['before'][1]:.2f} "
              f"| {c['after'][1]:.2f} |")
