"""Golden values of EGG's topological similarity for tests/topsim_conventions.rs.

EGG (Kharitonov et al., EMNLP 2019; egg/core/language_analysis.py,
TopographicSimilarity.compute_topsim) computes topsim as Spearman's rho between
scipy's pdist of the meanings and pdist of the messages, with
  edit(x, y)    = Levenshtein(x, y) / ((len(x) + len(y)) / 2)      (messages)
  hamming       = scipy.spatial.distance.hamming (fraction of positions that differ)
  cosine        = scipy.spatial.distance.cosine
and its games pass one-hot meanings (sender_input) and full messages (EOS 0 and padding
included). This script writes three small languages (W.csv, Z.csv per folder) and the values
EGG's formulas give on them (golden.json), computed here with numpy, scipy and editdistance,
the libraries EGG calls. Run: python make_golden.py (numpy, scipy, editdistance).
"""

import json
import os

import editdistance
import numpy as np
from scipy.spatial import distance
from scipy.stats import spearmanr

HERE = os.path.dirname(os.path.abspath(__file__))


def one_hot(z, sizes):
    blocks = [np.eye(s)[z[:, a]] for a, s in enumerate(sizes)]
    return np.concatenate(blocks, axis=1)


def egg_edit(x, y):
    return editdistance.eval(list(x), list(y)) / ((len(x) + len(y)) / 2)


def topsim(meanings, messages, meaning_fn, message_fn):
    dm = distance.pdist(meanings, meaning_fn)
    dw = distance.pdist(messages, message_fn)
    return float(spearmanr(dm, dw).correlation)


def languages():
    rng = np.random.default_rng(20240601)
    objs = np.array([[a, b, c] for a in range(4) for b in range(4) for c in range(3)])
    # 1. Compositional with noise: one symbol per attribute (own range), EOS 0 at the end;
    # 20 % of the symbols replaced at random.
    w = np.stack([objs[:, 0] + 1, objs[:, 1] + 5, objs[:, 2] + 9, np.zeros(len(objs), int)], 1)
    noise = rng.random(w[:, :3].shape) < 0.2
    w[:, :3][noise] = rng.integers(1, 12, noise.sum())
    yield "compositional_noisy", objs, w
    # 2. Variable length: the attribute symbols in an object-dependent order, then EOS 0 and
    # padding 0 (messages of 2 to 5 symbols), so edit and Hamming distances differ.
    rows = []
    for o in objs:
        syms = [o[0] + 1, o[1] + 5] + ([o[2] + 9] if o[2] else [])
        if o[0] % 2:
            syms = syms[::-1]
        syms += [12] * int(rng.integers(0, 2))
        rows.append(syms + [0] * (6 - len(syms)))
    yield "variable_length", objs, np.array(rows)
    # 3. Holistic: a random message of 4 symbols per object.
    yield "holistic", objs, rng.integers(1, 12, (len(objs), 4))


def main():
    golden = {}
    for name, z, w in languages():
        folder = os.path.join(HERE, name)
        os.makedirs(folder, exist_ok=True)
        np.savetxt(os.path.join(folder, "W.csv"), w, fmt="%d", delimiter=",")
        np.savetxt(os.path.join(folder, "Z.csv"), z, fmt="%d", delimiter=",")
        sizes = [int(z[:, a].max()) + 1 for a in range(z.shape[1])]
        oh = one_hot(z, sizes)
        golden[name] = {
            # EGG's defaults: hamming on the meanings, edit on the messages.
            "egg_hamming_edit": topsim(z, w, "hamming", egg_edit),
            # The same on one-hot meanings, as EGG's games pass them.
            "egg_onehot_hamming_edit": topsim(oh, w, "hamming", egg_edit),
            # cosine on one-hot meanings.
            "egg_onehot_cosine_edit": topsim(oh, w, "cosine", egg_edit),
            # hamming on both sides.
            "egg_hamming_hamming": topsim(z, w, "hamming", "hamming"),
        }
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(golden, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
