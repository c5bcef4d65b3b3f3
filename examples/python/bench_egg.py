"""Speed of kcomp's topsim, posdis, bosdis and entropy against EGG's `language_analysis`
(Kharitonov et al., "EGG: a toolkit for research on Emergence of lanGuage in Games", EMNLP 2019;
github.com/facebookresearch/EGG), on the same arrays, at N = 1,000 and 10,000.

EGG is run unmodified: give the folder that holds its `egg` package (a checkout of the
repository) with --egg; it needs torch, scipy, editdistance, rich and wandb installed (EGG's
own requirements). If EGG cannot be imported the script says why and times kcomp only.

    python examples/python/bench_egg.py --egg path/to/EGG [--sizes 1000,10000] [--repeats 3]

Settings matched to EGG's conventions: topsim = Spearman correlation of Hamming distances
between meanings and between messages (EGG's `compute_topsim(..., "hamming", "hamming")`), all
pairs; posdis over message positions; bosdis over symbol counts with symbol 0 (EOS) dropped;
entropy of whole messages, in bits. The script prints both values, so the agreement is visible.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import kcomp


def language(n: int, seed: int = 0):
    """Meanings (n, 3) with 10 values per attribute, messages (n, 4) over symbols 1..12: a
    compositional code (one symbol per attribute and a filler) with 20% of symbols replaced at
    random, as an emergent language half-way through training might look."""
    rng = np.random.default_rng(seed)
    meanings = rng.integers(0, 10, size=(n, 3))
    messages = np.empty((n, 4), dtype=np.int64)
    messages[:, :3] = meanings + 1
    messages[:, 3] = 11
    noise = rng.random(messages.shape) < 0.2
    messages[noise] = rng.integers(1, 13, size=int(noise.sum()))
    return meanings, messages


def best_time(f, repeats: int):
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = f()
        times.append(time.perf_counter() - t0)
    return min(times), value


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--egg", help="folder holding EGG's `egg` package")
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--egg-topsim-max", type=int, default=10**9,
                    help="time EGG's topsim only up to this N (it makes one Python call per "
                         "pair: N=10,000 is about 100x N=1,000)")
    args = ap.parse_args()

    egg = None
    if args.egg:
        sys.path.insert(0, args.egg)
    try:
        import torch
        from egg.core import language_analysis as egg
    except Exception as e:  # any import failure: report it, time kcomp alone
        print(f"EGG could not be run: {type(e).__name__}: {e}")

    vocab = 13
    topsim_settings = dict(correlation="spearman", w_distance="hamming", z_distance="hamming",
                           max_pairs=10**9)
    print(f"{'N':>6} {'score':<8} {'kcomp s':>10} {'EGG s':>10} {'EGG/kcomp':>10} "
          f"{'kcomp value':>14} {'EGG value':>14}")
    for n in [int(s) for s in args.sizes.split(",")]:
        meanings, messages = language(n)
        ours = {
            "topsim": lambda: kcomp.topsim(messages, meanings, **topsim_settings),
            "posdis": lambda: kcomp.posdis(messages, meanings),
            "bosdis": lambda: kcomp.bosdis(messages, meanings),
            "entropy": lambda: kcomp.entropy(messages, meanings),
        }
        theirs = {}
        if egg is not None:
            tm, tw = torch.tensor(meanings), torch.tensor(messages)
            theirs = {
                "topsim": lambda: egg.TopographicSimilarity.compute_topsim(
                    meanings, messages, "hamming", "hamming"),
                "posdis": lambda: egg.Disent.posdis(tm, tw),
                "bosdis": lambda: egg.Disent.bosdis(tm, tw, vocab),
                "entropy": lambda: egg.calc_entropy(tw),
            }
            if n > args.egg_topsim_max:
                del theirs["topsim"]
        for name, f in ours.items():
            t_ours, v_ours = best_time(f, args.repeats)
            if name in theirs:
                t_egg, v_egg = best_time(theirs[name], args.repeats)
                print(f"{n:>6} {name:<8} {t_ours:>10.4f} {t_egg:>10.4f} {t_egg / t_ours:>10.1f} "
                      f"{v_ours:>14.6f} {v_egg:>14.6f}", flush=True)
            else:
                print(f"{n:>6} {name:<8} {t_ours:>10.4f} {'-':>10} {'-':>10} {v_ours:>14.6f} "
                      f"{'-':>14}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
