"""Synthetic representations with exact terms (bits), as ``kcomp synth``.

Each function returns ``(W, Z, terms)``: W int64 (N, M) tokens, Z the representation (float64
values for lookup tables and grammars, as Z.npy of ``kcomp synth ... --out``; int64 attributes
for protocols and language systems) and a dict of the exact terms and parameters. Lookup tables
and grammars follow Elmoznino, Jiralerspong, Bengio, Lajoie, "A complexity-based theory of
compositionality", ICML 2025, arXiv 2410.14817.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Tuple

import numpy as np

from . import _call, _flag_args, _kcomp

__all__ = ["lookup", "grammar", "protocol", "language"]

Generated = Tuple[np.ndarray, np.ndarray, Dict[str, Any]]


def lookup(**params: Any) -> Generated:
    """A lookup-table representation (``kcomp synth lookup``): the flags of that command with
    ``_`` for ``-`` (e.g. ``samples=1000, seed=0``). ``terms``: the record of ``--json`` (K(Z),
    K(Z|W), K(p_w), K(W|p_w), C(Z) in both conventions, topsim) plus ``params``."""
    w, z, text = _call(_kcomp.synth, "lookup", _flag_args(params))
    return w, z, json.loads(text)


def grammar(**params: Any) -> Generated:
    """A grammar representation (``kcomp synth grammar``); as :func:`lookup`."""
    w, z, text = _call(_kcomp.synth, "grammar", _flag_args(params))
    return w, z, json.loads(text)


def protocol(kind: str = "trivially-compositional", **params: Any) -> Generated:
    """An emergent-communication protocol (``kcomp synth protocol --kind KIND``); ``terms``:
    the exact K(Z|W) and K(Z) in bits with their parts."""
    w, z, text = _call(_kcomp.protocol, _flag_args({"kind": kind, **params}))
    return w, z, json.loads(text)


def language(**settings: Any) -> Generated:
    """A language system (the ``[language]`` table of a prequential config: ``n_attr``,
    ``n_vals``, ``msg_len``, ``vocab``, ``holistic_fraction``, ``synonyms``, ``seed``, ...).
    ``terms``: the settings and the indices of the holistic objects."""
    w, z, text = _call(_kcomp.language, json.dumps(settings))
    return w, z, json.loads(text)
