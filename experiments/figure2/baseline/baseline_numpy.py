#!/usr/bin/env python3
"""NumPy/SciPy timing baseline for the Figure-2 sweeps of kcomp (Elmoznino et al., ICML 2025).

This is an independent re-implementation of the *procedure* used by the authors'
reference code (EricElmoznino/complexity_compositionality:
dataloaders/simulated/data_generators.py, utils/skellam.py and the sweep cells of
papers/theory/notebook.ipynb), written to measure how long that procedure takes in
the Python scientific stack.  It uses the same libraries and the same algorithmic
approach as the reference:

  * numpy.random.RandomState seeded with the tuple (i, i) (the notebook iterates
    `for i in enumerate(range(10))`, so `random_seed` is the tuple (i, i));
  * scipy.stats.skellam.rvs / skellam.logpmf for the discretised Gaussian
    (grid lam = 0.01, mu = (s/lam)^2/2);
  * per-sample Python loops for decoding W -> Z;
  * a lark Earley parser for the grammar sentences;
  * scipy.spatial.distance.pdist + scipy.stats.pearsonr for topological similarity
    (one-hot W with cityblock distance vs Z with euclidean distance).

Random draws are made in the same order and with the same dtypes (float32 tables,
float32 Z) as the reference, so the per-sample C values are comparable seed by
seed with the published CSVs (papers/theory/data/*.csv).

Call pattern.  By default ("lean") each run decodes W twice, as the procedure needs:
once to sample Z and once to score the noise for K(Z|W,f); K(f) is computed once.
The published code's `compositionality()` calls k_z() and k_z_given_w() separately,
so it actually decodes three times and evaluates K(f) twice; `--reference-calls`
reproduces that exact call pattern.  Per-phase timings are recorded either way.

Usage:
  python3 baseline_numpy.py --sample      # seed 0 of every swept value (131 runs), x10 extrapolation
  python3 baseline_numpy.py --full        # all 1310 runs
Options: --sweeps a,b  (subset of sweeps), --seeds N (seeds per value in --sample mode),
         --reference-calls, --out-dir DIR, --no-compare.
"""

import argparse
import csv
import datetime
import os
import platform
import subprocess
import sys
import time
from itertools import product

import numpy as np
import scipy
from scipy.spatial.distance import pdist
from scipy.stats import pearsonr, skellam

import lark
from lark import Lark, Token, Tree

HERE = os.path.dirname(os.path.abspath(__file__))
REF_GIT = "/work/.mirror/EricElmoznino+complexity_compositionality/repo"

LAM = 0.01  # Skellam grid spacing ("precision")
NOISE = 0.01  # noise std r (notebook: noise_ratio = 0.01)
N_SAMPLES = 1000
N_SEEDS = 10


# --------------------------------------------------------------------------
# Discretised Gaussian via Skellam
# --------------------------------------------------------------------------
def _mu(std):
    return (std / LAM) ** 2 / 2


def dgauss_draw(rng, std, shape):
    """Values on the grid LAM*k, k ~ Skellam(mu, mu); returned as float32."""
    mu = _mu(std)
    k = skellam.rvs(mu, mu, size=shape, random_state=rng)
    return (k * LAM + 0.0).astype(np.float32)


def dgauss_nll(x, std):
    """-log p of each entry of x (float32 in, float64 out), nats."""
    grid = np.round(x / LAM)  # float32 arithmetic, round half to even
    mu = _mu(std)
    return -skellam.logpmf(grid, mu, mu)


def per_sentence_uniform_cost(n, vocab, length):
    """Reference cost of W: M log K nats per sentence.  The reference builds this as
    a float32 array under NumPy 1.x value-based casting; reproduce that dtype so the
    per-sample mean is bit-comparable."""
    per = np.float32(np.float32(np.log(1 / vocab)) * length)
    return -np.full(n, per, dtype=np.float32)


# --------------------------------------------------------------------------
# Topological similarity
# --------------------------------------------------------------------------
def topsim(w, z):
    onehot = np.eye(int(w.max()) + 1, dtype=np.float32)[w].reshape(w.shape[0], -1)
    dz = pdist(z, metric="euclidean")
    dw = pdist(onehot, metric="cityblock")
    return float(pearsonr(dz, dw).statistic)


# --------------------------------------------------------------------------
# Lookup-table representations
# --------------------------------------------------------------------------
class Lookup:
    def __init__(self, length, vocab, dim, ngram, seed):
        self.M, self.K, self.D, self.q = length, vocab, dim, ngram
        self.rng = np.random.RandomState(seed)
        self.groups = length // ngram
        self.rows = vocab**ngram
        self.width = dim // self.groups
        # one table shared by every q-gram position
        self.table = dgauss_draw(self.rng, 1.0, (self.rows, self.width))
        self.place = vocab ** np.arange(ngram)

    def decode(self, w):
        # per-sample Python loop, one table lookup per q-gram position
        out = np.empty((w.shape[0], self.groups * self.width), dtype=np.float32)
        for s in range(w.shape[0]):
            sent = w[s]
            parts = []
            for g in range(self.groups):
                idx = int((sent[g * self.q:(g + 1) * self.q] * self.place).sum())
                parts.append(self.table[idx])
            out[s] = np.concatenate(parts)
        return out

    def sample_w(self, n):
        return self.rng.randint(0, self.K, size=(n, self.M))

    def k_lang(self):
        return np.log(self.K) + np.log(self.M)

    def k_f(self):
        return dgauss_nll(self.table, 1.0).sum()

    def w_cost(self, w):
        return per_sentence_uniform_cost(w.shape[0], self.K, self.M)


# --------------------------------------------------------------------------
# Context-free-grammar representations
# --------------------------------------------------------------------------
T_POS = 5
G_VOCAB = 100
G_DIM = 10
G_LEN = 16


def pos_language(n_pos):
    """Allowed next POS: T_t -> T_{t+1}, T_{t+2} (wrapping); START -> T_1, T_2."""
    nxt = {}
    for t in range(1, n_pos + 1):
        nxt[f"T_{t}"] = [f"T_{t % n_pos + 1}", f"T_{(t + 1) % n_pos + 1}"]
    nxt["START"] = ["T_1", "T_2"]
    return nxt


def build_rules(language, width, depth):
    """Rules keyed by right-hand-side pair -> left-hand non-terminal, in the order
    level 0 (POS pairs), level 1..depth-1 (pairs of the level below), then the
    recursive top level (pairs of top non-terminals mapped back onto them)."""
    rules = {}
    pairs = [(a, b) for a, nexts in language.items() if a != "START" for b in nexts]
    for level in range(depth):
        for n, pair in enumerate(pairs):
            rules[pair] = f"r{level}_{n % width + 1}"
        names = [f"r{level}_{k}" for k in range(1, width + 1)]
        pairs = [(a, b) for a, b in product(names, repeat=2)]
    top = depth - 1
    for n, pair in enumerate(pairs):
        rules[pair] = f"r{top}_{n % width + 1}"
    roots = [f"r{top}_{k}" for k in range(1, width + 1)]
    return rules, roots


class Grammar:
    def __init__(self, width, depth, composition, seed,
                 vocab=G_VOCAB, dim=G_DIM, length=G_LEN, n_pos=T_POS):
        self.K, self.D, self.M, self.T = vocab, dim, length, n_pos
        self.composition = composition
        self.rng = np.random.RandomState(seed)
        self.language = pos_language(n_pos)
        self.word_pos = {w: f"T_{w % n_pos + 1}" for w in range(vocab)}
        self.rules, self.roots = build_rules(self.language, width, depth)

        # words of each POS, in POS order of first appearance
        self.pos_words = {}
        for w, p in self.word_pos.items():
            self.pos_words.setdefault(p, []).append(w)
        # non-terminal -> list of right-hand sides
        lhs_to_rhs = {}
        for rhs, lhs in self.rules.items():
            lhs_to_rhs.setdefault(lhs, []).append(rhs)
        self.parser = self._make_parser(lhs_to_rhs)

        # next-word distribution (row vocab = START)
        trans = np.zeros((vocab + 1, vocab))
        for a, nexts in self.language.items():
            src = [vocab] if a == "START" else self.pos_words[a]
            for b in nexts:
                trans[np.ix_(src, self.pos_words[b])] = 1
        self.trans = trans / trans.sum(axis=1, keepdims=True)

        # parameters, drawn in the reference's order
        if composition == "tensor":
            # The reference iterates a Python set here (order depends on
            # PYTHONHASHSEED); we use sorted order so runs are reproducible.
            roles = sorted({p for rhs in self.rules for p in rhs})
            self.roles = {p: dgauss_draw(self.rng, 1.0, (dim,)) for p in roles}
        self.emb = dgauss_draw(self.rng, 1.0, (vocab, dim))
        self.params = {}
        for rhs in self.rules:
            if composition == "linear":
                self.params[rhs] = dgauss_draw(self.rng, 1.0, (2 * dim, dim))
            else:
                self.params[rhs] = (self.roles[rhs[0]], self.roles[rhs[1]])

    def _make_parser(self, lhs_to_rhs):
        lines = ["start: " + " | ".join(self.roots)]
        for lhs, rhss in lhs_to_rhs.items():
            lines.append(f"{lhs}: " + " | ".join(f'{a} " " {b}' for a, b in rhss))
        for p, words in self.pos_words.items():
            lines.append(f"{p}: " + " | ".join(f'"{w}"' for w in words))
        return Lark("\n".join(lines), start="start", parser="earley")

    def _eval(self, node):
        if isinstance(node, Token):
            return self.emb[int(node.value)]
        left, right = node.children
        lpos = left.type if isinstance(left, Token) else str(left.data)
        rpos = right.type if isinstance(right, Token) else str(right.data)
        a, b = self._eval(left), self._eval(right)
        prm = self.params[(lpos, rpos)]
        if self.composition == "linear":
            return np.concatenate([a, b]) @ prm
        ra, rb = prm
        return (a * ra + a) + (b * rb + b)

    def decode(self, w):
        # parse every sentence (Earley), then evaluate each tree: per-sample loops
        trees = [self.parser.parse(" ".join(str(x) for x in sent)).children[0] for sent in w]
        return np.stack([self._eval(t) for t in trees])

    def sample_w(self, n):
        prev = np.full(n, self.K, dtype=int)
        w = np.zeros((n, self.M), dtype=int)
        for pos in range(self.M):
            probs = self.trans[prev]
            w[:, pos] = [self.rng.choice(self.K, p=probs[s]) for s in range(n)]
            prev = w[:, pos]
        return w

    def k_lang(self):
        n_pos = len(self.pos_words)
        return self.K * np.log(n_pos) + (n_pos + 1) * n_pos * np.log(2)

    def k_f(self):
        total = dgauss_nll(self.emb, 1.0).sum()
        if self.composition == "linear":
            total += sum(dgauss_nll(a, 1.0).sum() for a in self.params.values())
        else:
            total += sum(dgauss_nll(r, 1.0).sum() for r in self.roles.values())
        return total

    def w_cost(self, w):
        # reference-compatible: M log K per sentence
        return per_sentence_uniform_cost(w.shape[0], self.K, self.M)


# --------------------------------------------------------------------------
# One run
# --------------------------------------------------------------------------
def one_run(make_gen, seed_idx, reference_calls=False, n=N_SAMPLES):
    ph = {}
    c0 = time.process_time()
    t0 = time.perf_counter()
    gen = make_gen((seed_idx, seed_idx))
    t1 = time.perf_counter(); ph["build"] = t1 - t0

    w = gen.sample_w(n)
    t2 = time.perf_counter(); ph["sample_w"] = t2 - t1

    z = gen.decode(w)
    z += dgauss_draw(gen.rng, NOISE, z.shape)
    t3 = time.perf_counter(); ph["sample_z"] = t3 - t2

    def noise_cost():
        resid = z - gen.decode(w)
        return dgauss_nll(resid, NOISE).sum(axis=1)

    k_lang = gen.k_lang()
    k_w = gen.w_cost(w).mean()  # mean per-sentence code of W (float32 mean, as the reference)
    if reference_calls:
        # exactly the published call graph: K(Z) and K(Z|W) each recompute
        # K(f) and K(Z|W,f) (so W is decoded three times in total)
        kz = k_lang + k_w + gen.k_f() + noise_cost().mean()
        kzw = gen.k_f() + noise_cost().mean()
        c = kz / kzw
    else:
        k_f = gen.k_f()
        k_zwf = noise_cost().mean()
        c = (k_lang + k_w + k_f + k_zwf) / (k_f + k_zwf)
    t4 = time.perf_counter(); ph["score_C"] = t4 - t3

    ts = topsim(w, z)
    t5 = time.perf_counter(); ph["topsim"] = t5 - t4
    ph["cpu"] = time.process_time() - c0
    return float(c), ts, t5 - t0, ph


# --------------------------------------------------------------------------
# Sweeps (configs/paper/*.toml)
# --------------------------------------------------------------------------
SWEEPS = [
    ("lookup-length", [1, 2, 4, 8, 16, 32, 64],
     lambda v: (lambda s: Lookup(v, 10, 64, 1, s)), "lookup_table_sentence_length"),
    ("lookup-vocab", list(range(2, 101)),
     lambda v: (lambda s: Lookup(16, v, 64, 1, s)), "lookup_table_vocab_size"),
    ("lookup-dim", list(range(16, 161, 16)),
     lambda v: (lambda s: Lookup(16, 10, v, 1, s)), "lookup_table_zdim"),
    ("lookup-ngram", [1, 2, 4, 8, 16],
     lambda v: (lambda s: Lookup(16, 2, 64, v, s)), "lookup_table_disentanglement"),
    ("grammar-width", [1, 2, 3, 4],
     lambda v: (lambda s: Grammar(v, 2, "linear", s)), "grammar_width"),
    ("grammar-depth", [1, 2, 3, 4],
     lambda v: (lambda s: Grammar(3, v, "linear", s)), "grammar_depth"),
    ("grammar-composition", ["linear", "tensor"],
     lambda v: (lambda s: Grammar(3, 2, v, s)), "grammar_composition_method"),
]


def load_published(csv_name):
    """Published C values (rows are value-major, seed-minor) from the reference repo."""
    try:
        text = subprocess.run(
            ["git", "-C", REF_GIT, "show", f"HEAD:papers/theory/data/{csv_name}.csv"],
            check=True, capture_output=True, text=True).stdout
    except Exception:
        return None
    rows = list(csv.DictReader(text.splitlines()))
    return [(float(r["Compositionality"]), float(r["Topological similarity"])) for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--sample", action="store_true")
    mode.add_argument("--full", action="store_true")
    ap.add_argument("--seeds", type=int, default=1, help="seeds per value in --sample mode")
    ap.add_argument("--sweeps", default="", help="comma-separated subset of sweep names")
    ap.add_argument("--values", type=int, default=0,
                    help="in --sample mode, time only every k-th value of long sweeps (0 = all)")
    ap.add_argument("--reference-calls", action="store_true")
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument("--out-dir", default=HERE)
    args = ap.parse_args()

    n_seeds = N_SEEDS if args.full else args.seeds
    wanted = set(filter(None, args.sweeps.split(",")))
    sweeps = [s for s in SWEEPS if not wanted or s[0] in wanted]

    os.makedirs(args.out_dir, exist_ok=True)
    csv_path = os.path.join(args.out_dir, "baseline_timing.csv")
    fh = open(csv_path, "w", newline="")
    out = csv.writer(fh)
    out.writerow(["sweep", "value", "seconds", "seed", "C_per_sample", "topsim",
                  "published_C", "C_abs_diff", "published_topsim",
                  "t_build", "t_sample_w", "t_sample_z", "t_score_C", "t_topsim", "cpu_seconds"])
    fh.flush()

    started = datetime.datetime.now(datetime.timezone.utc)
    wall0 = time.perf_counter()
    summary = []
    matches = []
    for name, values, factory, pub_name in sweeps:
        pub = None if args.no_compare else load_published(pub_name)
        vals = values
        if args.sample and args.values > 1 and len(values) > 10:
            vals = values[::args.values]
        per_value = {}
        per_value_cpu = {}
        per_value_ref = {}
        for vi, v in enumerate(values):
            if v not in vals:
                continue
            for s in range(n_seeds):
                c, ts, secs, ph = one_run(factory(v), s, args.reference_calls)
                pc = pt = diff = None
                if pub is not None:
                    pc, pt = pub[vi * N_SEEDS + s]
                    diff = abs(c - pc)
                    matches.append((name, v, s, diff))
                per_value.setdefault(v, []).append(secs)
                per_value_cpu.setdefault(v, []).append(ph["cpu"])
                # estimate of the published call pattern (one more K(f) + decode + noise
                # scoring pass, i.e. the score_C phase once more); exact if --reference-calls
                per_value_ref.setdefault(v, []).append(
                    secs if args.reference_calls else secs + ph["score_C"])
                out.writerow([name, v, f"{secs:.4f}", s, repr(c), repr(ts),
                              "" if pc is None else repr(pc),
                              "" if diff is None else f"{diff:.3e}",
                              "" if pt is None else repr(pt)]
                             + [f"{ph[k]:.4f}" for k in
                                ("build", "sample_w", "sample_z", "score_C", "topsim", "cpu")])
                fh.flush()
                extra = "" if pc is None else f"  published C={pc!r}  |diff|={diff:.2e}  published topsim={pt:.6f}"
                print(f"{name:20s} {str(v):>7s} seed({s},{s})  {secs:8.3f}s  C={c!r}  topsim={ts:.6f}{extra}",
                      flush=True)
        timed = [t for ts_ in per_value.values() for t in ts_]
        mean_run = float(np.mean(timed))

        def extrapolate(pv):
            if args.full:
                return float(sum(t for ts_ in pv.values() for t in ts_))
            # mean seconds per run of each timed value, times 10 seeds x all values
            per_val_mean = {v: float(np.mean(ts_)) for v, ts_ in pv.items()}
            if len(per_val_mean) == len(values):
                return N_SEEDS * sum(per_val_mean.values())
            return N_SEEDS * len(values) * float(np.mean(list(per_val_mean.values())))
        full = extrapolate(per_value)
        full_cpu = extrapolate(per_value_cpu)
        full_ref = extrapolate(per_value_ref)
        mean_cpu = float(np.mean([t for ts_ in per_value_cpu.values() for t in ts_]))
        summary.append(dict(sweep=name, values=len(values), runs_full=len(values) * N_SEEDS,
                            runs_timed=len(timed), values_timed=len(per_value),
                            timed_s=float(sum(timed)), mean_run=mean_run, full_s=full,
                            mean_cpu=mean_cpu, full_cpu=full_cpu, full_ref=full_ref,
                            max_run=float(max(timed)),
                            max_value=max(per_value, key=lambda k: np.mean(per_value[k]))))
        print(f"== {name}: {len(timed)} runs timed, {mean_run:.3f} s/run mean, "
              f"{'measured' if args.full else 'extrapolated'} full sweep "
              f"({len(values) * N_SEEDS} runs): {full:.1f} s wall, {full_cpu:.1f} s CPU", flush=True)
    fh.close()
    wall = time.perf_counter() - wall0

    total_full = sum(s["full_s"] for s in summary)
    total_cpu = sum(s["full_cpu"] for s in summary)
    total_ref = sum(s["full_ref"] for s in summary)
    total_runs = sum(s["runs_full"] for s in summary)
    print(f"TOTAL: {sum(s['runs_timed'] for s in summary)} runs timed in {wall:.1f} s; "
          f"{'measured' if args.full else 'extrapolated'} total for {total_runs} runs: "
          f"{total_full:.1f} s wall ({total_full / 60:.1f} min), {total_cpu:.1f} s CPU "
          f"({total_cpu / 60:.1f} min); published call pattern (3 decodes, K(f) twice)"
          f"{'' if args.reference_calls else ' est.'}: {total_ref:.1f} s wall")

    # ---- summary markdown
    def ver(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except Exception:
            return "?"
    try:
        load = os.getloadavg()
    except OSError:
        load = ("?",) * 3
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    lines = []
    lines.append("# NumPy/SciPy baseline timing (Figure 2 sweeps)\n")
    lines.append(f"- Date (UTC): {started:%Y-%m-%d %H:%M} (finished after {wall:.0f} s wall)")
    lines.append(f"- Mode: {'--full' if args.full else '--sample'}"
                 f"{' (seeds per value: %d)' % n_seeds if args.sample else ''}"
                 f"{' --values %d' % args.values if args.values > 1 else ''}"
                 f"{' --reference-calls' if args.reference_calls else ' (lean call pattern: 2 decodes, K(f) once)'}")
    lines.append(f"- Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
                 f"lark {lark.__version__}")
    lines.append(f"- Machine: {os.cpu_count()} cores ({cpu}); load average at end {load[0]:.2f} "
                 f"{load[1]:.2f} {load[2]:.2f}. Other jobs (Rust compilation) were sharing the 2 cores, "
                 f"so these timings are somewhat pessimistic. Single-process, single-threaded Python.")
    lines.append("")
    word = "measured" if args.full else "extrapolated"
    refw = "measured" if args.reference_calls else "est."
    lines.append(f"| sweep | runs in full sweep | runs timed | mean wall s/run | mean CPU s/run | "
                 f"slowest value (its s/run) | {word} wall s, full sweep | {word} CPU s, full sweep | "
                 f"published call pattern, wall s ({refw}) |")
    lines.append("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for s in summary:
        lines.append(f"| {s['sweep']} | {s['runs_full']} | {s['runs_timed']} | {s['mean_run']:.3f} | "
                     f"{s['mean_cpu']:.3f} | {s['max_value']} ({s['max_run']:.2f}) | {s['full_s']:.1f} | "
                     f"{s['full_cpu']:.1f} | {s['full_ref']:.1f} |")
    lines.append(f"| **total** | {total_runs} | {sum(s['runs_timed'] for s in summary)} | | | | "
                 f"**{total_full:.1f} s = {total_full / 60:.1f} min** | **{total_cpu:.1f} s = "
                 f"{total_cpu / 60:.1f} min** | {total_ref:.1f} s = {total_ref / 60:.1f} min |")
    lines.append("")
    lines.append("Wall = time.perf_counter per run; CPU = time.process_time per run (user+sys of this "
                 "process, less sensitive to the other jobs on the machine). 'Published call pattern': "
                 "the reference's compositionality() evaluates K(f) and decodes W for K(Z|W,f) twice "
                 "(once inside K(Z), once inside K(Z|W)); the estimate adds the measured score_C phase "
                 "once more to each run.")
    lines.append("")
    if not args.full:
        lines.append("Extrapolation: for each swept value, the timed seed's wall time x 10 seeds "
                     "(per-run time depends on the value, not on the seed).")
    if matches:
        diffs = np.array([m[3] for m in matches])
        lk = [m for m in matches if m[0].startswith("lookup")]
        gr = [m for m in matches if m[0].startswith("grammar")]
        lines.append("")
        lines.append("## Agreement with the published per-sample C (papers/theory/data/*.csv)")
        lines.append(f"- runs compared: {len(matches)}; max |C - C_published| = {diffs.max():.3e}; "
                     f"exact (== bitwise) matches: {int((diffs == 0).sum())}; within 1e-12: "
                     f"{int((diffs <= 1e-12).sum())}; within 1e-9: {int((diffs <= 1e-9).sum())}")
        if lk:
            lines.append(f"- lookup sweeps: max diff {max(m[3] for m in lk):.3e} over {len(lk)} runs")
        if gr:
            lines.append(f"- grammar sweeps: max diff {max(m[3] for m in gr):.3e} over {len(gr)} runs")
    with open(os.path.join(args.out_dir, "baseline_summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", csv_path, "and", os.path.join(args.out_dir, "baseline_summary.md"))


if __name__ == "__main__":
    main()
