"""Row of ratios.csv for one (model, q, K, N, seed) run; the least-squares floor of one data
set (--least-squares Q K DIR, once before its rows); or the summary (--summary DIR).

All code lengths in bits. The least-squares reference fits the generator's own model family in
closed form: Z from one-hot (segment, n-gram) features on all N rows (for q = 1 these are the
(position, word) features a linear read-out of word embeddings spans), takes the per-dimension
residual std (floored at the precision, as kcomp's learned std), and charges each encoded row
-log2 of the discretised Gaussian mass of its grid cell, as kcomp's likelihood does. It is fit
in-sample, so it is a floor for what a trained model's K(Data|f) can reach, not a code.
"""

import csv
import json
import math
import sys

import numpy as np
from scipy.special import log_ndtr


def find(o, key):
    if isinstance(o, dict):
        if key in o:
            return o[key]
        for v in o.values():
            r = find(v, key)
            if r is not None:
                return r
    return None


def log_cell_mass(z, mu, std, lam):
    """ln(Phi(b) - Phi(a)) for the cell [z - lam/2, z + lam/2], stable in both tails."""
    a = (z - lam / 2 - mu) / std
    b = (z + lam / 2 - mu) / std
    # Mirror the upper tail so the subtraction is always of small from large.
    flip = a > 0
    a2 = np.where(flip, -b, a)
    b2 = np.where(flip, -a, b)
    lb = log_ndtr(b2)
    la = log_ndtr(a2)
    return lb + np.log1p(-np.exp(np.minimum(la - lb, -1e-300)))


def least_squares_bits_per_row(w, z, vocab, q, lam):
    n, m = w.shape
    n_seg = m // q
    # Segment index of each row at each position: sum_j w[pos q + j] K^j, as the generator.
    seg = np.zeros((n, n_seg), dtype=np.int64)
    for j in range(q):
        seg += w[:, j::q][:, :n_seg] * vocab**j
    n_rows = vocab**q
    x = np.zeros((n, n_seg * n_rows))
    for p in range(n_seg):
        x[np.arange(n), p * n_rows + seg[:, p]] = 1.0
    x = np.hstack([x, np.ones((n, 1))])
    beta, *_ = np.linalg.lstsq(x, z, rcond=None)
    mu = x @ beta
    std = np.maximum(np.sqrt(((z - mu) ** 2).mean(axis=0)), lam)
    nats = -log_cell_mass(z, mu, std[None, :], lam).sum(axis=1)
    return nats.mean() / math.log(2)


def least_squares(q, k, d):
    """Writes the least-squares floor (bits per row) of the data in d/data to d/ls_bits_per_row."""
    w = np.load(f"{d}/data/W.npy").astype(np.int64)
    z = np.load(f"{d}/data/Z.npy").astype(np.float64)
    bits = least_squares_bits_per_row(w, z, int(k), int(q), 0.01)
    open(f"{d}/ls_bits_per_row", "w").write(f"{float(bits)!r}\n")


def row(name, q, k, n, seed, d):
    n = int(n)
    ex = json.load(open(f"{d}/exact.json"))
    pr = json.load(open(f"{d}/{name}.json"))
    kf = find(ex, "k_f")
    kn = find(ex, "k_z_given_wf")
    enc = pr["n_encoded"]
    exact_enc = kf + kn * enc / n
    noise_enc = kn * enc / n
    ls = float(open(f"{d}/ls_bits_per_row").read()) * enc
    print(
        f"{name},{q},{k},{n},{seed},{enc},{kf:.1f},{kn:.1f},{exact_enc:.1f},{pr['k_data']:.1f},"
        f"{pr['k_data_given_f']:.1f},{pr['k_data'] / exact_enc:.4f},{ls:.1f},"
        f"{pr['k_data_given_f'] / noise_enc:.4f},{ls / noise_enc:.4f},{pr['k_z']:.1f},"
        f"{pr['wall_seconds']:.1f}"
    )


def mean_sd(v):
    v = np.asarray(v, dtype=float)
    return v.mean(), (v.std(ddof=1) if len(v) > 1 else 0.0)


def summary(out):
    rows = list(csv.DictReader(open(f"{out}/ratios.csv")))
    models = list(dict.fromkeys(r["model"] for r in rows))
    keys = list(dict.fromkeys((r["q"], r["K"], int(r["N"])) for r in rows))
    header = ["q", "K", "N", "n_seeds"]
    for m in models:
        header += [f"{m}_ratio_mean", f"{m}_ratio_sd", f"{m}_final_over_noise_mean"]
    header += ["best_ratio_mean", "best_ratio_sd", "ls_over_noise_mean", "exact_enc_bits_mean"]
    lines = [",".join(header)]
    md = [
        "| q | K | N | seeds | "
        + " | ".join(f"{m}: prequential / exact | {m}: final / noise" for m in models)
        + f" | best of {len(models)} + {math.log2(len(models)):g} bits: prequential / exact"
        + " | least squares / noise |",
        "|---" * (4 + 2 * len(models) + 2) + "|",
    ]
    for q, k, n in keys:
        sel = [r for r in rows if (r["q"], r["K"], int(r["N"])) == (q, k, n)]
        seeds = list(dict.fromkeys(r["seed"] for r in sel))
        vals = [q, k, str(n), str(len(seeds))]
        cells = [q, k, str(n), str(len(seeds))]
        for m in models:
            ms = [r for r in sel if r["model"] == m]
            rm, rs = mean_sd([float(r["ratio_preq_over_exact"]) for r in ms])
            fm, fs = mean_sd([float(r["ratio_final_over_noise"]) for r in ms])
            vals += [f"{rm:.4f}", f"{rs:.4f}", f"{fm:.4f}"]
            cells += [f"{rm:.2f} +- {rs:.2f}", f"{fm:.2f} +- {fs:.2f}"]
        best = []
        for s_ in seeds:
            rs_ = [r for r in sel if r["seed"] == s_]
            k_best = min(float(r["preq_k_data_bits"]) for r in rs_) + math.log2(len(models))
            best.append(k_best / float(rs_[0]["exact_enc_bits"]))
        bm, bs = mean_sd(best)
        lm, ls_ = mean_sd([float(r["ratio_ls_over_noise"]) for r in sel])
        em, _ = mean_sd([float(r["exact_enc_bits"]) for r in sel])
        vals += [f"{bm:.4f}", f"{bs:.4f}", f"{lm:.4f}", f"{em:.1f}"]
        cells += [f"**{bm:.2f} +- {bs:.2f}**", f"{lm:.2f}"]
        lines.append(",".join(vals))
        md.append("| " + " | ".join(cells) + " |")
    open(f"{out}/summary.csv", "w").write("\n".join(lines) + "\n")
    open(f"{out}/summary.md", "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2])
    elif sys.argv[1] == "--least-squares":
        least_squares(*sys.argv[2:5])
    else:
        row(*sys.argv[1:7])
