"""Before (the committed results/*.csv) vs after (the CSVs of DIR) per block: runs, better/same/worse by
K(Z|W) bits, worst ratio per family setting; only (family, setting, N, seed, scheme) in both."""
import csv, sys, glob, os, collections
new_dir = sys.argv[1]
old_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
for f in sorted(glob.glob(new_dir + "/discrete_*.csv")):
    old = os.path.join(old_dir, os.path.basename(f))
    rows = list(csv.DictReader(open(f)))
    if not os.path.exists(old):
        mx = max(float(r["ratio"]) for r in rows)
        print(f"{os.path.basename(f)}: {len(rows)} runs, no before; worst ratio {mx:.3f}"); continue
    key = lambda r: (r["family"], r["setting"], r["N"], r["seed"], r["scheme"])
    o = {key(r): r for r in csv.DictReader(open(old))}
    worse = []; better = same = n = 0
    wo = collections.defaultdict(float); wn = collections.defaultdict(float)
    so = sn = 0.0
    for r in rows:
        k = key(r)
        if k not in o: continue
        n += 1
        a, b = float(o[k]["k_data_bits"]), float(r["k_data_bits"])
        so += float(o[k]["wall_seconds"]); sn += float(r["wall_seconds"])
        fam = r["setting"]
        wo[fam] = max(wo[fam], float(o[k]["ratio"])); wn[fam] = max(wn[fam], float(r["ratio"]))
        if b > a + 0.05: worse.append((b - a, k, a, b))
        elif b < a - 0.05: better += 1
        else: same += 1
    worse.sort(reverse=True)
    wmax_o, wmax_n = max(wo.values()), max(wn.values())
    print(f"{os.path.basename(f)}: {n} runs, shorter {better}, same {same}, longer {len(worse)}; "
          f"worst ratio {wmax_o:.3f} -> {wmax_n:.3f}; wall {so:.1f} s -> {sn:.1f} s"
          + ("; longest: " + "; ".join(f"{k[1]} N={k[2]} s={k[3]} {a:.1f}->{b:.1f} (+{d:.2f})" for d, k, a, b in worse[:3]) if worse else ""))
    for fam in wo:
        if round(wn[fam], 2) > round(wo[fam], 2):
            print(f"   worst ratio {fam}: {wo[fam]:.3f} -> {wn[fam]:.3f}")
