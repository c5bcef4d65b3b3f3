#!/usr/bin/env python3
"""Writes cells.csv: the panel's datasets (a fixed, seeded choice; stdlib only).

Main panel: every (composition, depth 1-3, width 1-5) once = 30 datasets; N (1,200 or 4,000,
15 each) and seed (0-2, 10 each) are shuffled with random.Random(34). Extra panel: widths 5
and 6 at depth 1 and widths 1-2 at depth 4, linear and tensor, N = 1,200 and 4,000, seed 0.
Run order (partial results stay useful): N = 1,200 main cells, N = 4,000 main, extra cells.
"""
import csv
import random
import sys

rng = random.Random(34)
combos = [(c, d, w) for c in ("linear", "tensor") for d in (1, 2, 3) for w in (1, 2, 3, 4, 5)]
ns = [1200] * 15 + [4000] * 15
seeds = [0, 1, 2] * 10
rng.shuffle(ns)
rng.shuffle(seeds)
main = [dict(panel="main", composition=c, depth=d, width=w, samples=n, seed=s)
        for (c, d, w), n, s in zip(combos, ns, seeds)]
extra = [dict(panel="extra", composition=c, depth=d, width=w, samples=n, seed=0)
         for n in (1200, 4000) for (d, w) in ((1, 5), (1, 6), (4, 1), (4, 2)) for c in ("linear", "tensor")]
order = [r for r in main if r["samples"] == 1200] + [r for r in main if r["samples"] == 4000] + extra
out = csv.DictWriter(sys.stdout, fieldnames=["cell", "panel", "composition", "width", "depth", "samples", "seed"], lineterminator="\n")
out.writeheader()
for r in order:
    r["cell"] = f'{r["composition"]}-w{r["width"]}-d{r["depth"]}-n{r["samples"]}-s{r["seed"]}'
    out.writerow(r)
