"""Multi30K through kcomp: C^L of English, German, French and Czech captions with one Z (the
all-MiniLM-L6-v2 embedding of the English caption), two controls, and a NumPy baseline.

  python prepare.py --source REPO      # once: data/train.*.txt and data/Z.npy (see prepare.py)
  python run.py                        # N = 1,000, 5,000, 29,000; seeds 0, 1, 2; everything
  python run.py --sizes 1000,5000 --seeds 0 --no-baseline     # a quicker look

Every run is saved as it finishes under results/<UTC time>/runs/ (``--resume DIR`` continues an
interrupted run folder); at the end results.csv (one row per run), table.md (mean and sd over the
seeds) and overlay_N<n>.png (kcomp's curves of every W on one Z, seed 0) are written beside them.
W is the caption through kcomp's text reader (``kcomp.prequential`` on the list of sentences,
tokeniser ``words``); rows are coded in a seeded order (kcomp's ``seed``; the baseline permutes
them with the same seed). Controls: the English captions shuffled across rows (a W unrelated to
Z), and a holistic language (one id per distinct English caption).
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

import kcomp

HERE = Path(__file__).resolve().parent
LANGS = ("en", "de", "fr", "cs")
NAMES = {"en": "English", "de": "German", "fr": "French", "cs": "Czech",
         "shuffled": "English, shuffled rows", "holistic": "holistic (one id per sentence)"}


def languages(data: Path, n: int, seed: int) -> dict[str, object]:
    """W of every language and control for the first ``n`` rows."""
    text = {l: (data / f"train.{l}.txt").read_text(encoding="utf-8").splitlines()[:n] for l in LANGS}
    en = text["en"]
    perm = np.random.default_rng(10_000 + seed).permutation(n)
    ids: dict[str, int] = {}
    holistic = [[ids.setdefault(s, len(ids))] for s in en]
    return {**text, "shuffled": [en[i] for i in perm], "holistic": holistic}


def baseline_w(w: object) -> tuple[np.ndarray, int | None]:
    t = kcomp.tokenise(w)
    return t.ids, t.pad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--sizes", default="1000,5000,29000")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--which", default="en,de,fr,cs,shuffled,holistic")
    ap.add_argument("--precision", type=float, default=0.01)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-topsim", action="store_true")
    ap.add_argument("--resume", type=Path, help="a results/<time> folder to continue")
    ap.add_argument("--tables-only", type=Path, help="rewrite the tables and figures of a folder")
    args = ap.parse_args()
    if args.tables_only:
        return write_outputs(args.tables_only)
    sizes = [int(s) for s in args.sizes.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    which = args.which.split(",")
    z_all = np.load(args.data / "Z.npy").astype(np.float64)
    out = args.resume or HERE / "results" / datetime.now(timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    (out / "runs").mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    meta = {"started": datetime.now(timezone.utc).isoformat(), "kcomp": kcomp.__version__,
            "commit": commit, "args": vars(args) | {"data": str(args.data), "resume": str(args.resume)},
            "machine": f"{platform.node()} {platform.machine()}, {__import__('os').cpu_count()} cores"}
    (out / "meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    for n in sizes:
        z = z_all[:n]
        for seed in seeds:
            ws = languages(args.data, n, seed)
            for name in which:
                for method in ["kcomp"] + ([] if args.no_baseline else ["baseline"]):
                    path = out / "runs" / f"N{n}_seed{seed}_{name}_{method}.json"
                    if path.exists():
                        rec = json.loads(path.read_text())
                    else:
                        t0 = time.time()
                        if method == "kcomp":
                            r = kcomp.prequential(ws[name], z, precision=args.precision, seed=seed)
                            rec = {"k_z_bits": r.k_z, "k_z_given_w_bits": r.k_data, "c": r.c_l,
                                   "k_z_method": r.k_z_method, "learners": r.raw.get("learners"),
                                   "w_input": r.w_input, "result": r.raw}
                        else:
                            w, pad = baseline_w(ws[name])
                            order = np.random.default_rng(seed).permutation(n)
                            import baseline
                            kz = baseline.code_length(None, z[order], args.precision)
                            kw = baseline.code_length(w[order], z[order], args.precision, pad=pad)
                            rec = {"k_z_bits": kz, "k_z_given_w_bits": kw, "c": kz / kw}
                        rec |= {"n": n, "seed": seed, "w": name, "method": method,
                                "seconds": round(time.time() - t0, 2)}
                        path.write_text(json.dumps(rec, default=str) + "\n")
                    print(f"N={n} seed={seed} {name:9s} {method:8s} C={rec['c']:.4f} "
                          f"K(Z|W)={rec['k_z_given_w_bits']:.0f} {rec['seconds']:.0f}s", flush=True)
        if not args.no_topsim and n <= 5000:
            for name in [w for w in which if w in LANGS]:
                path = out / "runs" / f"N{n}_topsim_{name}.json"
                if not path.exists():
                    ws = languages(args.data, n, seeds[0])
                    t = kcomp.topsim_normalised_edit(ws[name], z, precision=args.precision,
                                                     z_distance="cosine", correlation="spearman")
                    path.write_text(json.dumps({"n": n, "w": name, "topsim": t}) + "\n")
    write_outputs(out)


def write_outputs(out: Path) -> None:
    """results.csv, table.md and the overlays from every run saved in ``out`` (also those of
    earlier invocations with ``--resume``)."""
    keys = ("n", "seed", "w", "method", "k_z_bits", "k_z_given_w_bits", "c", "seconds")
    recs = [json.loads(p.read_text()) for p in sorted((out / "runs").glob("N*_seed*.json"))]
    rows = [{k: r[k] for k in keys} for r in recs]
    curves: dict[int, list] = {}
    for n in sorted({r["n"] for r in recs}):
        first = min(r["seed"] for r in recs if r["n"] == n)
        for w in NAMES:
            for r in recs:
                if (r["n"], r["seed"], r["w"], r["method"]) == (n, first, w, "kcomp"):
                    curves.setdefault(n, []).append((NAMES[w], r["result"]))
    with open(out / "results.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    topsim = {}
    for p in (out / "runs").glob("N*_topsim_*.json"):
        r = json.loads(p.read_text())
        topsim[(r["n"], r["w"])] = r["topsim"]
    lines = ["| N | W | kcomp K(Z) bits | kcomp K(Z\\|W) bits | kcomp C^L | baseline K(Z) bits | "
             "baseline K(Z\\|W) bits | baseline C^L | topsim (norm. edit, cosine, Spearman) | "
             "kcomp s/run |", "|---|---|---|---|---|---|---|---|---|---|"]
    def stat(vals: list[float], d: int) -> str:
        if not vals:
            return "-"
        m = float(np.mean(vals))
        return f"{m:,.{d}f}" + (f" ± {float(np.std(vals, ddof=1)):,.{d}f}" if len(vals) > 1 else "")
    for n in sorted({r["n"] for r in rows}):
        for w in NAMES:
            sel = {m: [r for r in rows if r["n"] == n and r["w"] == w and r["method"] == m]
                   for m in ("kcomp", "baseline")}
            if not sel["kcomp"] and not sel["baseline"]:
                continue
            g = lambda m, k: [r[k] for r in sel[m]]  # noqa: E731
            ts = topsim.get((n, w))
            lines.append(
                f"| {n:,} | {NAMES[w]} | {stat(g('kcomp', 'k_z_bits'), 0)} | "
                f"{stat(g('kcomp', 'k_z_given_w_bits'), 0)} | {stat(g('kcomp', 'c'), 4)} | "
                f"{stat(g('baseline', 'k_z_bits'), 0)} | {stat(g('baseline', 'k_z_given_w_bits'), 0)} | "
                f"{stat(g('baseline', 'c'), 4)} | {'-' if ts is None else f'{ts:.3f}'} | "
                f"{stat(g('kcomp', 'seconds'), 0)} |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    for n, runs in curves.items():
        written = kcomp.overlay(runs, out / f"overlay_N{n}.png",
                                title=f"Multi30K, N = {n:,}: one Z (MiniLM of the English caption), six W")
        print("wrote", *written)


if __name__ == "__main__":
    sys.exit(main())
