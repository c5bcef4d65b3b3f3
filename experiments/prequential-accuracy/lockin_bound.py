"""What the linear grammar cells of results/grammar_tree.csv could reach with the tree learner's
layout: the code length if its fit locked in after f times the rows its parameters need per
dimension and coded every later row at the noise (the generator's noise code, D x 2.024 bits a
row for r = lam = 0.01), every earlier row
at the marginal's rate (the `online+fast+notree` run's bits per row). Before its parameters are
determined no learner of that layout predicts much better than the marginal (a Bayesian linear
model pays about the marginal's rate for its first P/D rows), so f = 1 is about the best such a
code can do and f = 1.25-1.5 is where the learner's fits lock in today.

The layout's parameters per dimension: vocab + rules x 2D, rules = the first level's pairs of
word classes (2T for the generator's T parts of speech) plus a rule per (height, category,
category) above it, heights 2..log2(M), `width` categories. Markdown on stdout; seed 0."""
import csv, math, sys
from collections import defaultdict

PATH = (sys.argv[1] if len(sys.argv) > 1 else
        "experiments/prequential-accuracy/results/grammar_tree.csv")
# The sweep's grammars (run_grammar_tree.sh): 20 words, T = 5, M = 16, D = 10.
VOCAB, POS, LENGTH, DIM = 20, 5, 16, 10
# Bits of one dimension's noise on the grid (src/datasets/grammar: r = lam = 0.01).
NOISE_BITS_PER_DIM = 2.0237
FACTORS = (1.0, 1.25, 1.5)


def rows_needed(width):
    heights_above_first = int(math.log2(LENGTH)) - 1
    rules = 2 * POS + heights_above_first * width * width
    return VOCAB + rules * 2 * DIM


cells = defaultdict(dict)
for r in csv.DictReader(open(PATH)):
    words = r["setting"].split(" ")
    kv = dict(w.split("=") for w in words if "=" in w)
    comp = words[3] if len(words) >= 4 else "linear"
    if comp != "linear" or r["seed"] != "0":
        continue
    key = (int(kv.get("width", 3)), int(kv.get("depth", 2)), int(r["N"]))
    cells[key][r["scheme"].replace("online+fast+tree", "online+fast")] = r

print("| width | depth | N | rows needed / dim | marginal bits/row | ratio | "
      + " | ".join(f"at {f:g}x" for f in FACTORS) + " | lock-in implied |")
print("|---" * (7 + len(FACTORS)) + "|")
for (width, depth, n), c in sorted(cells.items()):
    t, m = c.get("online+fast"), c.get("online+fast+notree")
    if t is None or m is None:
        continue
    exact = float(t["exact_encoded_bits"])
    marginal = float(m["k_data_bits"]) / n
    noise = DIM * NOISE_BITS_PER_DIM
    need = rows_needed(width)

    def at(f):
        lock = min(n, f * need)
        return (lock * marginal + (n - lock) * noise) / exact

    ratio = float(t["ratio"])
    # The lock-in that the measured code implies (rows at the marginal, the rest at the noise).
    implied = (ratio * exact - n * noise) / (marginal - noise)
    implied_text = f"{implied / need:.2f}x" if implied < n else "none"
    flag = " (over 2x)" if ratio > 2.0 else ""
    print(f"| {width} | {depth} | {n} | {need} | {marginal:.1f} | {ratio:.2f}{flag} | "
          + " | ".join(f"{at(f):.2f}" for f in FACTORS) + f" | {implied_text} |")
