#!/usr/bin/env python3
"""Summarises experiments/grammar-panel/results (run.sh) into results/panel.csv and
results/summary.md (stdlib only). Usage (repository root):
    python3 experiments/grammar-panel/summarise.py
    CELLS_CSV=FILE OUT=DIR python3 experiments/grammar-panel/summarise.py   # other cells
Ratios are prequential K(Z|W) / exact K(Z|W); C = K(Z) / K(Z|W) with the generator's exact
K(Z) for both; Kendall tau-b between prequential and exact C over the main panel's cells.
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RES = os.environ.get("OUT", os.path.join(HERE, "results"))


def tau_b(x, y):
    """Kendall's tau-b (ties in either variable corrected)."""
    n = len(x)
    conc = disc = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                conc += 1
            else:
                disc += 1
    den = ((conc + disc + tx) * (conc + disc + ty)) ** 0.5
    return (conc - disc) / den if den else float("nan")


def learner_summary(native):
    """(winner by share, best single learner by bits, tree status, tree note, tree bits)."""
    ls = native.get("learners", [])
    # Shares cover the whole K(Z|W) mixture, whose without-W code (marginal ...) is a component.
    ran = [l for l in ls if l.get("status") != "skipped"]
    top = max(ran, key=lambda l: l.get("share", 0.0)) if ran else None
    win = f'{top["name"]} ({100 * top["share"]:.0f} %)' if top else ""
    best = min(ran, key=lambda l: l["bits"])["name"] if ran else ""
    tree = next((l for l in ls if l["name"] == "tree" and not l.get("without_w")), None)
    if tree is None:
        return win, best, "absent", "", None
    return win, best, tree.get("status", ""), tree.get("note", ""), tree.get("bits")


def main():
    cells = list(csv.DictReader(open(os.environ.get("CELLS_CSV", os.path.join(HERE, "cells.csv")))))
    times = {}
    tpath = os.path.join(RES, "times.csv")
    if os.path.exists(tpath):
        for r in csv.DictReader(open(tpath)):
            times[r["cell"]] = r  # the last run of a cell counts
    rows = []
    for c in cells:
        d = os.path.join(RES, "cells", c["cell"])
        t = times.get(c["cell"])
        if t is None:
            continue
        row = dict(c, rc=t["rc"], wall_s=t["wall_s"], cpu_s="%.1f" % (float(t["user_cpu_s"]) + float(t["sys_cpu_s"])),
                   threads=t["threads"], error="")
        runs = os.path.join(d, "runs.csv")
        if not os.path.exists(runs):
            ep = os.path.join(d, "stderr.txt")
            err = open(ep, errors="replace").read().strip().splitlines() if os.path.exists(ep) else []
            row["error"] = (err[-1] if err else "no runs.csv")[:200]
            rows.append(row)
            continue
        by = {r["estimator"]: r for r in csv.DictReader(open(runs))}
        ex, pq = by.get("exact"), by.get("prequential")
        for name, r in (("exact", ex), ("prequential", pq)):
            if r is None or r["status"] != "ok":
                row["error"] += f"{name}: {r['status'] + ' ' + r['reason'] if r else 'missing'}; "
        if ex and pq and ex["status"] == pq["status"] == "ok":
            ke, kp = float(ex["k_z_given_w_bits"]), float(pq["k_z_given_w_bits"])
            native = json.loads(pq["native"])
            win, best, tst, tnote, tbits = learner_summary(native)
            row.update(exact_k_bits="%.0f" % ke, preq_k_bits="%.0f" % kp, ratio="%.3f" % (kp / ke),
                       exact_c="%.3f" % float(ex["c"]), preq_c="%.3f" % float(pq["c"]),
                       k_z_bits="%.0f" % float(ex["k_z_bits"]),
                       winner=win, best_learner=best, tree_status=tst, tree_note=tnote,
                       tree_ratio="" if tbits is None or tst == "skipped" else "%.3f" % (tbits / ke),
                       preq_s="%.1f" % float(pq["seconds"]))
        rows.append(row)
    fields = ["cell", "panel", "composition", "width", "depth", "samples", "seed", "exact_k_bits",
              "preq_k_bits", "ratio", "exact_c", "preq_c", "k_z_bits", "winner", "best_learner",
              "tree_status", "tree_ratio", "tree_note", "preq_s", "wall_s", "cpu_s", "threads", "rc",
              "error"]
    heads = {"exact_k_bits": "exact_k_z_given_w_bits", "preq_k_bits": "prequential_k_z_given_w_bits",
             "ratio": "ratio_prequential_over_exact", "exact_c": "exact_c", "preq_c": "prequential_c",
             "tree_ratio": "tree_learner_bits_over_exact", "preq_s": "prequential_estimator_s",
             "wall_s": "compare_wall_s", "cpu_s": "compare_cpu_s"}
    with open(os.path.join(RES, "panel.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow([heads.get(k, k) for k in fields])
        for r in rows:
            w.writerow([r.get(k, "") for k in fields])

    md = ["# Grammar panel through `kcomp compare` (exact and prequential)", ""]
    md.append(f"{len(rows)} of {len(cells)} cells run; figures from `results/panel.csv`. Ratio = "
              "prequential / exact K(Z|W); C = K(Z)/K(Z|W), exact K(Z) for both; winner = the "
              "learner with the largest share of the mixture; tree = the tree learner's own code "
              "over exact K(Z|W). s: compare's wall and CPU seconds (2 threads, shared machine, "
              "nice 5).")
    md.append("")
    for panel in dict.fromkeys(c["panel"] for c in cells):
        pr = [r for r in rows if r["panel"] == panel]
        if not pr:
            continue
        md.append(f"## {panel} panel")
        md.append("")
        md.append("| composition | width | depth | N | seed | exact K(Z\\|W) bits | prequential bits | ratio "
                  "| exact C | prequential C | winner | tree | wall s | CPU s |")
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in sorted(pr, key=lambda r: (r["composition"], int(r["depth"]), int(r["width"]), int(r["samples"]))):
            if "ratio" not in r:
                md.append(f"| {r['composition']} | {r['width']} | {r['depth']} | {r['samples']} | {r['seed']} "
                          f"| failed: {r['error']} | | | | | | | {r['wall_s']} | {r['cpu_s']} |")
                continue
            tree = r["tree_ratio"] or r["tree_status"]
            if r["tree_status"] not in ("ran", ""):
                tree = f"{r['tree_status']}"
            md.append(f"| {r['composition']} | {r['width']} | {r['depth']} | {r['samples']} | {r['seed']} "
                      f"| {r['exact_k_bits']} | {r['preq_k_bits']} | {r['ratio']} | {r['exact_c']} | {r['preq_c']} "
                      f"| {r['winner']} | {tree} | {r['wall_s']} | {r['cpu_s']} |")
        md.append("")
        ok = [r for r in pr if "ratio" in r]
        if ok:
            ratios = [float(r["ratio"]) for r in ok]
            hi = [r for r in ok if float(r["exact_c"]) >= 1.2]
            md.append(f"- within 2.0x: {sum(x <= 2.0 for x in ratios)} of {len(ok)}; within 1.5x: "
                      f"{sum(x <= 1.5 for x in ratios)} of {len(ok)}; ratio median "
                      f"{sorted(ratios)[len(ratios) // 2]:.2f}, range {min(ratios):.2f}-{max(ratios):.2f}")
            md.append(f"- prequential C > 1 where exact C >= 1.2: {sum(float(r['preq_c']) > 1 for r in hi)} of {len(hi)}")
            if len(ok) >= 3:
                t = tau_b([float(r["preq_c"]) for r in ok], [float(r["exact_c"]) for r in ok])
                md.append(f"- Kendall tau-b (prequential C vs exact C, all {len(ok)} cells): {t:.3f}")
                for n in sorted({r["samples"] for r in ok}, key=int):
                    sub = [r for r in ok if r["samples"] == n]
                    if len(sub) >= 3:
                        t = tau_b([float(r["preq_c"]) for r in sub], [float(r["exact_c"]) for r in sub])
                        md.append(f"  - N = {n} ({len(sub)} cells): {t:.3f}")
            wins = {}
            for r in ok:
                k = r["winner"].split(" (")[0]
                wins[k] = wins.get(k, 0) + 1
            md.append("- winner: " + ", ".join(f"{k} {v}" for k, v in sorted(wins.items(), key=lambda kv: -kv[1])))
            slow = [r for r in ok if r["samples"] == "4000" and float(r["wall_s"]) > 15]
            if any(r["samples"] == "4000" for r in ok):
                md.append(f"- N = 4,000 runs over 15 s wall: {len(slow)} of "
                          f"{sum(r['samples'] == '4000' for r in ok)}; over 15 s CPU: "
                          f"{sum(float(r['cpu_s']) > 15 for r in ok if r['samples'] == '4000')}")
        md.append("")
    md.append("## Failures and notes")
    md.append("")
    nf = 0
    for r in rows:
        issues = []
        if r["rc"] != "0" or r["error"]:
            issues.append(f"rc {r['rc']}: {r['error']}")
        if "ratio" in r:
            if r["tree_status"] != "ran":
                issues.append(f"tree {r['tree_status']}: {r['tree_note']}")
            elif r["tree_note"]:
                issues.append(f"tree note: {r['tree_note']}")
            if float(r["ratio"]) > 2.0:
                issues.append(f"ratio {r['ratio']} > 2.0 (winner {r['winner']}, tree {r['tree_ratio']}x)")
            if float(r["exact_c"]) >= 1.2 and float(r["preq_c"]) <= 1.0:
                issues.append(f"prequential C {r['preq_c']} <= 1 (exact {r['exact_c']})")
        if r["samples"] == "4000" and r.get("wall_s") and float(r["wall_s"]) > 15:
            issues.append(f"{r['wall_s']} s wall, {r['cpu_s']} s CPU at N = 4,000")
        if issues:
            nf += 1
            md.append(f"- {r['cell']}: " + "; ".join(issues))
    if not nf:
        md.append("- none")
    open(os.path.join(RES, "summary.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
