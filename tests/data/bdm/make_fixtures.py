"""Generates the BDM parity fixtures of tests/bdm_parity.rs from pybdm (run once; the output is
committed).

    python -m venv /tmp/pybdm-venv && /tmp/pybdm-venv/bin/pip install pybdm==0.1.0
    /tmp/pybdm-venv/bin/python tests/data/bdm/make_fixtures.py

Writes, next to this script:
- fixtures.json: pybdm's documented examples and 100 seeded random inputs (1-D strings over
  2, 4, 5, 6 and 9 symbols, 2-D binary matrices; ignore, correlated and recursive partitions),
  each with the BDM value pybdm computes;
(inputs and pybdm's outputs only: the CTM tables, GPL-2 data, are never written here).

Generated with pybdm 0.1.0 (numpy 2.4, Python 3.11).
"""

import importlib.metadata
import json
import os
import random
import warnings

import numpy as np
import pybdm
from pybdm import BDM
from pybdm.encoding import normalize_key, string_from_array
from pybdm.partitions import PartitionCorrelated, PartitionIgnore, PartitionRecursive

HERE = os.path.dirname(os.path.abspath(__file__))
warnings.filterwarnings("ignore")


def make(ndim, nsymbols, partition):
    kind, _, arg = partition.partition(":")
    if kind == "ignore":
        return BDM(ndim=ndim, nsymbols=nsymbols, partition=PartitionIgnore)
    if kind == "correlated":
        return BDM(ndim=ndim, nsymbols=nsymbols, partition=PartitionCorrelated, shift=int(arg))
    return BDM(ndim=ndim, nsymbols=nsymbols, partition=PartitionRecursive, min_length=int(arg))


cases = []
used = {}  # table name -> {shape: set of normalised keys}


def add(name, x, nsymbols, partition, documented=None, tol=1e-9):
    x = np.asarray(x, dtype=int)
    bdm = make(x.ndim, nsymbols, partition)
    value = bdm.bdm(x)
    if documented is not None:
        assert abs(value - documented) < tol, (name, value, documented)
    keys = used.setdefault(bdm.ctmname, {})
    for block in bdm.decompose(x):
        keys.setdefault(block.shape, set()).add(normalize_key(string_from_array(block)))
    cases.append(
        {
            "name": name,
            "table": bdm.ctmname,
            "nsymbols": nsymbols,
            "shape": list(x.shape),
            "data": x.ravel().tolist(),
            "partition": partition,
            "bdm": value,
        }
    )


# pybdm's documented examples (README and docstrings).
# The README prints 4 decimals.
add("README: '01' x 18, 12-blocks", [0, 1] * 18, 2, "ignore", 28.5757, tol=5e-5)
add("ten ones, recursive", [1] * 10, 2, "recursive:2", 22.784225562763474)
add("docstring: ones(12, 12)", np.ones((12, 12)), 2, "ignore", 25.176631293734488)
add("docstring: ones(12), a single block", [1] * 12, 2, "ignore", 25.610413747641715)

rng = random.Random(20260101)
partitions = ["ignore", "correlated:1", "correlated:3", "recursive:2", "recursive:3"]
for i in range(100):
    kind = i % 10
    if kind < 4:
        nsymbols, n = 2, rng.randint(12, 120)
    elif kind < 6:
        nsymbols, n = 4, rng.randint(12, 60)
    elif kind == 6:
        nsymbols, n = 5, rng.randint(12, 48)
    elif kind == 7:
        nsymbols, n = rng.choice([6, 9]), rng.randint(12, 48)
    else:
        nsymbols = 2
    part = rng.choice(partitions)
    if kind >= 8:
        shape = (rng.randint(4, 13), rng.randint(4, 13))
        x = np.array([rng.randrange(2) for _ in range(shape[0] * shape[1])]).reshape(shape)
        # correlated 2-D blocks are slow in no way, but keep pybdm's common 2-D settings.
        part = rng.choice(["ignore", "recursive:2", "correlated:2"])
    else:
        # Low-entropy strings too: runs make repeated blocks (the log2 count term).
        p = rng.choice([None, 0.85])
        if p is None:
            x = [rng.randrange(nsymbols) for _ in range(n)]
        else:
            x, s = [], rng.randrange(nsymbols)
            for _ in range(n):
                if rng.random() > p:
                    s = rng.randrange(nsymbols)
                x.append(s)
    add(f"random {i}", x, nsymbols, part)

subset = []
for name, shapes in sorted(used.items()):
    ctm, missing = pybdm.utils.get_ctm_dataset(name)
    nsym = int(name.split("-")[1][1:])
    block = 4 if name.endswith("4x4") else 12
    entry = {"name": name, "nsymbols": nsym, "ndim": 2 if block == 4 else 1, "block": block, "shapes": []}
    for shape in sorted(set(shapes) | {tuple([block] * entry["ndim"])}):
        keys = shapes.get(shape, set())
        values = {k: ctm[shape][k] for k in sorted(keys) if k in ctm[shape]}
        entry["shapes"].append(
            {"shape": list(shape), "missing": float(missing[shape]), "values": values}
        )
    subset.append(entry)

meta = {
    "generator": "tests/data/bdm/make_fixtures.py",
    "pybdm": importlib.metadata.version("pybdm"),
    "numpy": np.__version__,
}
with open(os.path.join(HERE, "fixtures.json"), "w") as f:
    json.dump({"meta": meta, "cases": cases}, f, indent=1)
    f.write("\n")
print(f"{len(cases)} cases")
