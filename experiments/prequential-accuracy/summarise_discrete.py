"""Tables of results/discrete_*.csv: per family and setting, prequential / exact K(Z|W) at each
N (mean over seeds, worst seed in brackets), mean wall seconds per run, and the worst ratio
against the accuracy bound (2.0 where exact >= 100 bits, 3.0 below). Markdown on stdout."""
import csv, glob, sys
from collections import defaultdict

PATTERN = (sys.argv[1] if len(sys.argv) > 1 else
           "experiments/prequential-accuracy/results/discrete_*.csv")
for path in sorted(glob.glob(PATTERN)):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        continue
    cells = defaultdict(list)
    ns = sorted({int(r["N"]) for r in rows})
    for r in rows:
        cells[(r["setting"], int(r["N"]))].append(r)
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    print(f"\n### {path.split('/')[-1]}\n")
    print("| setting | " + " | ".join(f"N~{n}" for n in ns) + " | worst ratio (bound) | s/run |")
    print("|---" * (len(ns) + 3) + "|")
    for s in settings:
        out, worst, secs = [], 0.0, []
        for n in ns:
            rs = cells.get((s, n), [])
            if not rs:
                out.append("-")
                continue
            ratios = [float(r["ratio"]) for r in rs]
            exact = float(rs[0]["exact_bits"])
            bound = 2.0 if exact >= 100 else 3.0
            worst = max(worst, max(ratios) / bound)
            secs += [float(r["wall_seconds"]) for r in rs]
            out.append(f"{sum(ratios)/len(ratios):.2f} ({max(ratios):.2f}; exact {exact:.0f})")
        flag = "" if worst <= 1 else " **over**"
        print(f"| {s} | " + " | ".join(out) + f" | {worst:.2f} of bound{flag} | "
              f"{sum(secs)/max(len(secs),1):.2f} |")

# C = K(Z) / K(Z|W) strictly decreasing in h (language and grid families): per (N, seed), every
# step of h where the prequential K(Z|W) does not grow.
for path in sorted(glob.glob(PATTERN)):
    rows = [r for r in csv.DictReader(open(path)) if r["setting"].startswith("h=")]
    if not rows:
        continue
    by = defaultdict(dict)
    for r in rows:
        by[(int(r["N"]), r["seed"])][float(r["setting"][2:])] = float(r["k_data_bits"])
    bad = []
    for (n, seed), ks in sorted(by.items()):
        hs = sorted(ks)
        bad += [f"N={n} seed {seed}: h {a} -> {b} ({ks[a]:.1f} -> {ks[b]:.1f} bits)"
                for a, b in zip(hs, hs[1:]) if ks[b] <= ks[a]]
    name = path.split("/")[-1]
    print(f"\nC strictly decreasing in h, {name}: "
          + ("every N and seed" if not bad else f"{len(bad)} of {sum(len(k) - 1 for k in by.values())} steps not: " + "; ".join(bad)))
