"""Every kcomp estimator on an emergent language, as a referential or reconstruction game
logs it (EGG's `Interaction`: `sender_input` = the meanings, `message` = the sender's symbols,
0 = end of sequence).

    python examples/python/emergent_language.py                    # a simulated game log
    python examples/python/emergent_language.py log.npz            # arrays `meanings`, `messages`

Prints every estimator (code lengths in bits, C = K(Z)/K(Z|W), scores) at several stages of
"training" of the simulated language, and plots them with matplotlib if it is installed
(results/emergent_language.png), otherwise prints only. Lengths in bits; directions and
units of each score: docs/estimators.md.
"""

from __future__ import annotations

import os
import sys

import numpy as np

import kcomp


def simulated_log(noise: float, seed: int = 0, n_attr: int = 3, n_vals: int = 5,
                  repeats: int = 4):
    """Meanings (one-hot in a game's sender_input; here the attribute values) and messages of
    length n_attr + 1 ending in EOS (0): symbol i encodes attribute i; a fraction `noise` of
    the symbols is replaced at random (a language early in training is mostly noise)."""
    rng = np.random.default_rng(seed)
    grid = np.stack(np.meshgrid(*[np.arange(n_vals)] * n_attr, indexing="ij"), -1)
    meanings = np.repeat(grid.reshape(-1, n_attr), repeats, axis=0)
    messages = np.zeros((len(meanings), n_attr + 1), dtype=np.int64)
    messages[:, :n_attr] = meanings + 1 + n_vals * np.arange(n_attr)
    vocab = n_attr * n_vals + 1
    flip = rng.random((len(meanings), n_attr)) < noise
    messages[:, :n_attr][flip] = rng.integers(1, vocab, size=int(flip.sum()))
    return meanings, messages


def load(path: str):
    data = np.load(path)
    meanings, messages = data["meanings"], data["messages"]
    if meanings.ndim == 3:  # one-hot (N, attributes, values) as a sender_input
        meanings = meanings.argmax(-1)
    return meanings, messages


def main() -> int:
    if len(sys.argv) > 1:
        stages = {"log": load(sys.argv[1])}
    else:
        stages = {f"noise {p:.2f}": simulated_log(p) for p in (0.8, 0.4, 0.1, 0.0)}
    estimators = [e for e in kcomp.ESTIMATORS if e not in ("exact", "llm_program")]
    results = {}
    for name, (meanings, messages) in stages.items():
        cmp = kcomp.compare(messages, meanings, estimators=estimators)
        results[name] = cmp
        print(f"== {name}")
        print(cmp)
        print()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: printed only")
        return 0
    names = list(results)
    cols = 4
    fig, axes = plt.subplots(-(-len(estimators) // cols), cols, figsize=(14, 12), squeeze=False)
    for ax, est in zip(axes.flat, estimators):
        rows = [results[n][est] for n in names]
        ys = [r.c if r.c is not None else r.score for r in rows]
        ax.plot(range(len(names)), [np.nan if y is None else y for y in ys], "o-")
        ax.set_title(f"{est} ({'C' if rows[0].c is not None else 'score'})", fontsize=9)
        ax.set_xticks(range(len(names)), names, rotation=30, fontsize=7)
    for ax in list(axes.flat)[len(estimators):]:
        ax.axis("off")
    fig.suptitle("kcomp estimators along an emergent language's training (C = K(Z)/K(Z|W))")
    fig.tight_layout()
    os.makedirs("results", exist_ok=True)
    out = "results/emergent_language.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
