"""Table of results/grammar_tree.csv: per composition, width, depth and N, the prequential
K(Z|W) over the exact K(Z|W) with the tree learner in the mixture (online+fast) and without it
(+notree), prequential C beside exact C, and the wall seconds of the run; then Kendall's tau-b
between prequential C and exact C over every cell (each seed a cell), per composition and over
seed 0; cells run at several seeds get a table of the mean and range; where the CSV holds more
than one width at a depth other than 2, the width x depth grid per composition and N (seed 0:
ratio, prequential C / exact C) and how many of its cells are within 2.0x and 1.5x of exact.
Markdown on stdout."""
import csv, importlib.util, os, sys
from collections import defaultdict

# Kendall's tau-b: the grammar panel's summariser's (one implementation for both tables).
_spec = importlib.util.spec_from_file_location("grammar_panel_summarise", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "grammar-panel", "summarise.py"))
_panel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_panel)
tau_b = _panel.tau_b

PATH = (sys.argv[1] if len(sys.argv) > 1 else
        "experiments/prequential-accuracy/results/grammar_tree.csv")
rows = list(csv.DictReader(open(PATH)))
cells = defaultdict(dict)
for r in rows:
    words = r["setting"].split(" ")
    kv = dict(w.split("=") for w in words if "=" in w)
    comp = words[3] if len(words) >= 4 else "linear"
    key = (comp, int(kv.get("width", 3)), int(kv.get("depth", 2)), int(r["N"]), int(r["seed"]))
    # `online+fast+tree` and `online+fast` are the same mixture (the tree learner is a default).
    cells[key][r["scheme"].replace("online+fast+tree", "online+fast")] = r




print("| composition | width | depth | N | seed | exact K(Z\\|W) bits | ratio with tree | ratio without | "
      "exact C | prequential C | C without tree | s/run | top learner |")
print("|---" * 13 + "|")
pc, ec = [], []
for key in sorted(cells):
    c = cells[key]
    t, n = c.get("online+fast"), c.get("online+fast+notree")
    if t is None:
        continue
    exact = float(t["exact_encoded_bits"])
    exact_c = float(t["k_z_bits"]) / exact
    pc.append(float(t["c_l"]))
    ec.append(exact_c)
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | {exact:.0f} | "
          f"{float(t['ratio']):.2f} | {float(n['ratio']) if n else float('nan'):.2f} | "
          f"{exact_c:.2f} | {float(t['c_l']):.2f} | "
          f"{float(n['c_l']) if n else float('nan'):.2f} | {float(t['wall_seconds']):.0f} | "
          f"{t['best_learner']} |")
keys = [k for k in sorted(cells) if "online+fast" in cells[k]]
print(f"\nKendall tau-b (prequential C with the tree learner vs exact C, {len(pc)} cells): "
      f"{tau_b(pc, ec):.3f}")
for comp in ("linear", "tensor"):
    sel = [i for i, k in enumerate(keys) if k[0] == comp]
    if len(sel) > 1:
        print(f"  {comp} only ({len(sel)} cells): "
              f"{tau_b([pc[i] for i in sel], [ec[i] for i in sel]):.3f}")
seeds = sorted({k[4] for k in keys})
if len(seeds) > 1:
    sel = [i for i, k in enumerate(keys) if k[4] == 0]
    print(f"  seed 0 only ({len(sel)} cells): "
          f"{tau_b([pc[i] for i in sel], [ec[i] for i in sel]):.3f}")
    # Cells run at more than one seed: mean and range over the seeds.
    groups = defaultdict(list)
    for k in keys:
        groups[k[:4]].append(cells[k]["online+fast"])
    multi = {g: rs for g, rs in groups.items() if len(rs) > 1}
    if multi:
        print("\n| composition | width | depth | N | seeds | ratio mean (min-max) | "
              "prequential C mean (min-max) | exact C mean | s/run mean |")
        print("|---" * 9 + "|")
        for g in sorted(multi):
            rs = multi[g]
            ratio = [float(r["ratio"]) for r in rs]
            c = [float(r["c_l"]) for r in rs]
            ex = [float(r["k_z_bits"]) / float(r["exact_encoded_bits"]) for r in rs]
            sec = [float(r["wall_seconds"]) for r in rs]
            mean = lambda v: sum(v) / len(v)
            print(f"| {g[0]} | {g[1]} | {g[2]} | {g[3]} | {len(rs)} | {mean(ratio):.2f} "
                  f"({min(ratio):.2f}-{max(ratio):.2f}) | {mean(c):.2f} ({min(c):.2f}-{max(c):.2f}) "
                  f"| {mean(ex):.2f} | {mean(sec):.0f} |")

# The width x depth grid (seed 0), where it was run.
grid = {k: cells[k]["online+fast"] for k in keys if k[4] == 0}
if any(k[1] > 1 and k[2] != 2 for k in grid):
    widths = sorted({k[1] for k in grid})
    depths = sorted({k[2] for k in grid})
    print("\nWidth x depth grid, seed 0: ratio to the exact K(Z|W), prequential C / exact C "
          "(- not run)")
    for comp in ("linear", "tensor"):
        for n in sorted({k[3] for k in grid if k[0] == comp}):
            sel = {(k[1], k[2]): r for k, r in grid.items() if k[0] == comp and k[3] == n}
            ratios = [float(r["ratio"]) for r in sel.values()]
            print(f"\n{comp}, N = {n}: {sum(x <= 2.0 for x in ratios)} of {len(ratios)} within "
                  f"2.0x, {sum(x <= 1.5 for x in ratios)} within 1.5x\n")
            print("| depth \\ width | " + " | ".join(str(w) for w in widths) + " |")
            print("|---" * (len(widths) + 1) + "|")
            for dd in depths:
                out = []
                for w in widths:
                    r = sel.get((w, dd))
                    if r is None:
                        out.append("-")
                        continue
                    ex = float(r["k_z_bits"]) / float(r["exact_encoded_bits"])
                    out.append(f"{float(r['ratio']):.2f} ({float(r['c_l']):.2f} / {ex:.2f})")
                print(f"| {dd} | " + " | ".join(out) + " |")
