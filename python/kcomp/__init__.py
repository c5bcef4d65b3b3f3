"""kcomp: compositionality through Kolmogorov complexity, from Python.

numpy arrays in, results out; the numbers are those of the ``kcomp`` command line on the same
inputs, bit for bit (the package calls the same Rust library and reads its ``--json`` answer).
Every description length is in **bits**. The GIL is released while the library computes.

- :func:`compare` -- every estimator of K(Z|W) and compositionality on one dataset;
- :func:`prequential` -- prequential code length of Z given W and the language
  compositionality C^L(Z) (Elmoznino, Jiralerspong, Bengio, Lajoie, "A complexity-based theory
  of compositionality", ICML 2025, arXiv 2410.14817), with its curve;
- :mod:`kcomp.synth` -- lookup tables, grammars, language systems and emergent-communication
  protocols with their exact terms;
- :func:`topsim`, :func:`posdis`, :func:`bosdis`, :func:`entropy`,
  :func:`mutual_information`, ... -- the field's scores as functions;
- :mod:`kcomp.grid` -- the mapping-table metric of LLM-written programs (Xu, Wang, Wang,
  "Investigating More Explainable and Partition-Free Compositionality Estimation for LLMs: A
  Rule-Generation Perspective", ACL 2026, arXiv 2604.27340);
- :func:`panel` -- a ``kcomp compare`` panel from a TOML file or a dict;
- :func:`compare_many` -- several datasets side by side (warns when their N differ: C grows
  with N, bits saved per row does not);
- :mod:`kcomp.egg` -- W and Z from an EGG ``Interaction`` (Kharitonov et al., EMNLP 2019).

Bad input raises :class:`KcompError` (a ``ValueError``) with a one-line message that names
the Python keyword (``seed=``, ``scheme="reference"``), W and Z standing for the arrays.

C = K(Z)/K(Z|W) grows with N (K(Z) grows linearly, K(Z|W) more slowly once W's rules are
learned) and depends on the precision of continuous Z: compare C only between datasets of
the same N and precision; ``bits_saved_per_row`` = (K(Z) - K(Z|W)) / N compares across N.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _kcomp
from ._kcomp import KcompError

__version__: str = _kcomp.__version__

__all__ = [
    "KcompError",
    "KcompWarning",
    "Estimate",
    "Comparison",
    "PrequentialResult",
    "compare",
    "compare_many",
    "ComparisonSet",
    "prequential",
    "tokenise",
    "tokenize",
    "Tokens",
    "overlay",
    "panel",
    "synth",
    "grid",
    "egg",
    "ESTIMATORS",
    "SCORES",
    "topsim",
    "topsim_normalised_edit",
    "topsim_jaccard",
    "posdis",
    "bosdis",
    "entropy",
    "mutual_information",
    "context_independence",
    "conflict_count",
    "lz76",
    "lz78",
    "tre",
    "tre_linear",
    "tre_cosine",
    "requential",
    "bdm",
]

#: Every estimator of ``kcomp compare`` (code lengths first, then scores), from the library's
#: registry so the two never disagree.
ESTIMATORS: List[str] = list(_kcomp.ESTIMATORS)

#: Estimators that give a score (not a code length); each is also a function of this module.
SCORES: List[str] = list(_kcomp.SCORES)

#: (unit, direction, data it applies to) of every estimator, as ``kcomp compare --estimators
#: list`` prints them.
ESTIMATOR_INFO: Dict[str, Tuple[str, str, str]] = {
    name: (unit, direction, applies) for name, unit, direction, applies in _kcomp.ESTIMATOR_INFO
}

#: When C values compare (said under every table of C).
COMPARABILITY = (
    "C grows with N and, for continuous Z, depends on the precision: compare C only between "
    "datasets of the same N and precision; bits_saved_per_row = (K(Z) - K(Z|W)) / N compares "
    "across N."
)


class KcompWarning(UserWarning):
    """A comparison that can mislead (datasets of different N or precision)."""


# The Python keyword of every `kcomp prequential` flag and configuration key.
_FLAG_OF_KEY: Dict[str, str] = {key: flag for flag, key in _kcomp.PREQUENTIAL_FLAGS}
_KEYWORD_OF_FLAG: Dict[str, str] = {"protocol": "scheme"}


def _keyword(flag: str) -> str:
    return _KEYWORD_OF_FLAG.get(flag, flag.replace("-", "_"))


def _pythonic(message: str) -> str:
    """A command-line message with the Python keywords in place of flags and keys:
    ``--protocol reference`` -> ``scheme="reference"``, ``--lr`` -> ``lr=``, the key
    ``prequential.train.lr`` -> ``lr=``, clap's usage words dropped."""
    text = message
    text = re.sub(r"--protocol[ =]reference", 'scheme="reference"', text)
    text = re.sub(r"--protocol[ =]online", 'scheme="online"', text)
    text = text.replace("unexpected argument", "unexpected keyword argument")
    text = re.sub(r"'--([a-z0-9][a-z0-9-]*)(?:[= ][^']*)?'", lambda m: f"{_keyword(m[1])}=", text)
    text = re.sub(r"`--([a-z0-9][a-z0-9-]*)`", lambda m: f"`{_keyword(m[1])}=`", text)
    text = re.sub(r"--set: ", "", text)
    text = re.sub(
        r"--([a-z0-9][a-z0-9-]*)\b(?!=)", lambda m: f"{_keyword(m[1])}=", text
    )
    for key, flag in sorted(_FLAG_OF_KEY.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(f"`{key}`", f"`{_keyword(flag)}=`")
    text = re.sub(r" at line \d+ column \d+", "", text)
    text = text.replace(" tip: a similar argument exists:", " (did you mean")
    if "(did you mean" in text and not text.endswith(")"):
        text += ")"
    return text


def _raise_pythonic(err: Exception) -> None:
    raise KcompError(_pythonic(str(err))) from None


def _w(W: Any) -> Any:
    """W as the native half takes it: a list or tuple as it is (sentences, or id lists of any
    lengths), anything else as a numpy array."""
    if isinstance(W, (list, tuple)):
        return list(W)
    return _array(W, "W")


def _array(x: Any, name: str) -> np.ndarray:
    """``x`` as a numpy array (lists and tensors with ``__array__`` accepted), not copied when
    it already is one; non-contiguous and Fortran-order arrays are read as they are."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor
        x = x.detach().cpu().numpy()
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as e:
        raise KcompError(f"{name}: not an array of numbers ({e})") from None


@dataclass(frozen=True)
class Estimate:
    """One estimator on one dataset. Lengths in bits.

    ``k_z_given_w_bits``, ``c`` = K(Z)/K(Z|W) and ``bits_saved_per_row`` = (K(Z) -
    K(Z|W)) / N for estimators of a code length, ``score``
    for the others (units and directions: docs/estimators.md); ``status`` is ``"ok"`` or why
    no number was produced (never a default number); ``native`` holds the estimator's own
    fields."""

    estimator: str
    status: Any
    k_z_given_w_bits: Optional[float]
    k_z_bits: float
    c: Optional[float]
    score: Optional[float]
    native: Dict[str, Any]
    notes: List[str]
    seconds: float
    #: (K(Z) - K(Z|W)) / N in bits for a code length: comparable across N, unlike C.
    bits_saved_per_row: Optional[float] = None

    @property
    def ok(self) -> bool:
        return _status_text(self.status) == "ok"

    @property
    def learners(self) -> List[Dict[str, Any]]:
        """The online prequential scheme's learners (empty for other estimators): ``name``,
        ``bits``, ``share``, ``final_weight``, ``status`` (``ran``, ``skipped``, ``dropped``),
        ``note`` (why skipped or dropped; absent when nothing), ``without_w`` (a learner of the
        code of Z without W, K(Z))."""
        return list(self.native.get("learners", []))


def _status_text(status: Any) -> str:
    """``"ok"``, or the status and its reason on one line."""
    if isinstance(status, dict):
        text = str(status.get("status", ""))
        reason = status.get("reason")
        return f"{text}: {reason}" if reason else text
    return str(status)


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: the dataset, its K(Z) (bits, the convention of user
    files: the prequential code of Z without W by the online scheme's learners, the code the
    prequential estimator's K(Z|W) mixes in; docs/concepts.md) and one :class:`Estimate` per
    estimator."""

    dataset: Dict[str, Any]
    k_z: Dict[str, Any]
    estimates: List[Estimate]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    def __getitem__(self, name: str) -> Estimate:
        for e in self.estimates:
            if e.estimator == name:
                return e
        raise KeyError(name)

    def to_dict(self) -> Dict[str, Any]:
        """The object ``kcomp compare --json`` prints."""
        return json.loads(json.dumps(self.raw))

    @property
    def n(self) -> int:
        """Rows N of the dataset (C grows with it)."""
        return int(self.dataset.get("n", 0))

    def tidy(self) -> List[Dict[str, Any]]:
        """The results as a tidy list: one record per estimator and quantity (``estimator``,
        ``quantity``, ``value``, ``unit``, ``direction``, ``n``), estimators that gave no
        value left out (their status is in :attr:`estimates`)."""
        rows: List[Dict[str, Any]] = []
        n = self.n

        def add(estimator: str, quantity: str, value: Any, unit: str, direction: str) -> None:
            if value is not None:
                rows.append(
                    {
                        "estimator": estimator,
                        "quantity": quantity,
                        "value": float(value),
                        "unit": unit,
                        "direction": direction,
                        "n": n,
                    }
                )

        add("K(Z)", "k_z", self.k_z.get("bits"), "bits", f"K(Z) ({self.k_z.get('method')})")
        for e in self.estimates:
            if not e.ok:
                continue
            unit, direction, _ = ESTIMATOR_INFO.get(e.estimator, ("", "", ""))
            if e.k_z_given_w_bits is not None:
                add(e.estimator, "k_z_given_w", e.k_z_given_w_bits, "bits", "lower")
                add(e.estimator, "c", e.c, "ratio K(Z)/K(Z|W)", "higher")
                add(e.estimator, "bits_saved_per_row", e.bits_saved_per_row, "bits per row", "higher")
            add(e.estimator, "score", e.score, unit, direction)
            add(e.estimator, "seconds", e.seconds, "s", "")
        return rows

    def to_pandas(self, wide: bool = False):  # -> pandas.DataFrame
        """A tidy table (needs pandas): one row per estimator and quantity with columns
        ``estimator``, ``quantity`` (``k_z_given_w``, ``c``, ``bits_saved_per_row``,
        ``score``, ``seconds``; ``k_z`` once), ``value``, ``unit``, ``direction`` and ``n``
        (rows of the dataset). ``wide=True``: one row per estimator (estimator, status,
        k_z_given_w_bits, c, bits_saved_per_row, score, seconds); native fields stay in
        :attr:`estimates`."""
        import pandas as pd

        if not wide:
            return pd.DataFrame(
                self.tidy(), columns=["estimator", "quantity", "value", "unit", "direction", "n"]
            )
        return pd.DataFrame(
            [
                {
                    "estimator": e.estimator,
                    "status": _status_text(e.status),
                    "k_z_given_w_bits": e.k_z_given_w_bits,
                    "c": e.c,
                    "bits_saved_per_row": e.bits_saved_per_row,
                    "score": e.score,
                    "seconds": e.seconds,
                }
                for e in self.estimates
            ]
        )

    def __str__(self) -> str:
        n = self.dataset.get("n")
        width = max([len(e.estimator) for e in self.estimates] + [9])
        lines = [f"N = {n}, K(Z) = {self.k_z['bits']:.1f} bits ({self.k_z['method']})"]
        lines.append(
            f"{'estimator':<{width}} {'K(Z|W) bits':>12} {'C':>9} {'bits saved/row':>14} "
            f"{'score':>10}  status"
        )

        def num(v: Optional[float], d: int) -> str:
            return "-" if v is None else f"{v:.{d}f}"

        skipped: Dict[str, List[str]] = {}
        for e in self.estimates:
            status = _status_text(e.status)
            if status.startswith("not_applicable"):
                skipped.setdefault(status.split(": ", 1)[-1], []).append(e.estimator)
                continue
            lines.append(
                f"{e.estimator:<{width}} {num(e.k_z_given_w_bits, 1):>12} {num(e.c, 3):>9} "
                f"{num(e.bits_saved_per_row, 3):>14} {num(e.score, 4):>10}  {status}"
            )
        for reason, names in skipped.items():
            lines.append(f"{', '.join(names)}: not applicable: {reason}")
        lines.extend(self.raw.get("notes", []))
        return "\n".join(lines)


def _comparison(text: str) -> Comparison:
    raw = json.loads(text)
    return Comparison(
        dataset=raw["dataset"],
        k_z=raw["k_z"],
        estimates=[Estimate(**e) for e in raw["estimates"]],
        raw=raw,
    )


#: The values each ``[topsim]`` setting takes (checked before the call, so an error names
#: the keyword and its choices).
TOPSIM_CHOICES: Dict[str, Tuple[str, ...]] = {
    "convention": ("kcomp", "egg", "elmoznino"),
    "correlation": ("pearson", "spearman"),
    "w_distance": ("hamming", "one-hot-cityblock", "edit", "normalised-edit", "jaccard"),
    "z_distance": ("auto", "euclidean", "cosine", "cosine-one-hot", "hamming"),
}


def _topsim_settings(settings: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """Checked ``[topsim]`` settings: known keys, known values (``_`` accepted for ``-``)."""
    out: Dict[str, Any] = {}
    for key, value in settings.items():
        if value is None:
            continue
        if key in TOPSIM_CHOICES:
            v = str(value).replace("_", "-")
            if v not in TOPSIM_CHOICES[key]:
                choices = ", ".join(repr(c) for c in TOPSIM_CHOICES[key])
                raise KcompError(f"{where}: {key}={value!r} is not one of {choices}")
            out[key] = v
        elif key in ("max_pairs", "seed"):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise KcompError(f"{where}: {key}={value!r} must be a non-negative integer")
            out[key] = int(value)
        elif key == "z_distances":
            out[key] = os.fspath(value)
        else:
            known = ", ".join(list(TOPSIM_CHOICES) + ["max_pairs", "seed", "z_distances"])
            raise KcompError(f"{where}: unknown setting {key}= (known: {known})")
    return out


def _call(f, *args):
    try:
        return f(*args)
    except KcompError as e:
        _raise_pythonic(e)


def compare(
    W: Any,
    Z: Any,
    estimators: Optional[Sequence[str]] = None,
    precision: Optional[float] = None,
    llm_report: Optional[Union[str, os.PathLike]] = None,
    topsim: Optional[Mapping[str, Any]] = None,
    bosdis: Optional[Mapping[str, Any]] = None,
    tokeniser: Optional[str] = None,
    keep_case: bool = False,
    pad: Optional[int] = None,
    requential: Optional[Mapping[str, Any]] = None,
    bdm: Optional[Mapping[str, Any]] = None,
) -> Comparison:
    """Every estimator (or ``estimators``) of K(Z|W) and compositionality on one dataset, as
    ``kcomp compare --w W --z Z --json``.

    W: integer tokens, shape (N,) or (N, M), any integer dtype (non-negative; remapped to
    dense ids in increasing order); or a list of N sentences (strings), cut by ``tokeniser``
    (``"words"``, the default, ``"chars"`` or a ``tokenizer.json`` path; ``keep_case``), as a
    ``.txt`` file; or a list of N id lists of any lengths. Rows of different lengths are padded
    with kcomp's own token (``pad``: the padding token an integer W already holds).
    ``result.dataset["provenance"]["params"]["w_input"]`` says how W was read.
    Z: integer attributes (N,) or (N, D) in 0..=1000000 (each attribute's labels renumbered
    to dense ids: only which rows share a value counts), or floats with ``precision`` (the
    grid spacing of continuous Z). Lengths in bits. Raises :class:`KcompError` on bad input.
    ``topsim``: the ``[topsim]`` settings of a panel config (``convention`` kcomp/egg/
    elmoznino, ``correlation`` pearson/spearman, ``w_distance`` hamming/one-hot-cityblock/
    edit/normalised-edit/jaccard, ``z_distance`` auto/euclidean/cosine/cosine-one-hot/hamming,
    ``max_pairs``, ``seed``, ``z_distances`` a distance-matrix file); default: the CLI's.
    ``bosdis``: the ``[bosdis]`` settings (``eos``: an end-of-sequence symbol not counted,
    EGG's convention is ``{"eos": 0}``); default: every symbol counts.
    ``requential``: the ``[requential]`` settings (``teacher`` final/online, ``learners``,
    ``growth``, ``min_block``, ``guard``, ``k_z``, ``seed``); ``bdm``: the ``[bdm]`` settings
    (``ctm_dir``, ``partition``, ``block``). Both estimators run only when named.
    """
    names = None if estimators is None else [str(e) for e in estimators]
    if names is not None:
        unknown = [n for n in names if n not in ESTIMATORS]
        if unknown:
            raise KcompError(
                f"estimators: unknown {', '.join(map(repr, unknown))} (kcomp.ESTIMATORS lists them)"
            )
    report = None if llm_report is None else os.fspath(llm_report)
    settings = None if topsim is None else json.dumps(_topsim_settings(topsim, "topsim"))
    if bosdis is not None and set(bosdis) - {"eos"}:
        raise KcompError(f"bosdis: unknown setting(s) {sorted(set(bosdis) - {'eos'})} (known: eos)")
    bosdis_settings = None if bosdis is None else json.dumps(dict(bosdis))
    req_settings = None if requential is None else json.dumps(dict(requential))
    bdm_settings = None if bdm is None else json.dumps(_paths(dict(bdm)))
    text = _call(
        _kcomp.compare,
        _w(W),
        _array(Z, "Z"),
        None if precision is None else float(precision),
        names,
        report,
        settings,
        bosdis_settings,
        tokeniser,
        keep_case,
        pad,
        req_settings,
        bdm_settings,
    )
    return _comparison(text)


@dataclass(frozen=True)
class ComparisonSet:
    """Several datasets through the same estimators (:func:`compare_many`)."""

    results: Dict[str, Comparison]

    def __getitem__(self, name: str) -> Comparison:
        return self.results[name]

    def to_pandas(self):  # -> pandas.DataFrame
        """The tidy table of every dataset, a ``dataset`` column first (needs pandas)."""
        import pandas as pd

        rows = [
            {"dataset": name, **row} for name, c in self.results.items() for row in c.tidy()
        ]
        return pd.DataFrame(
            rows,
            columns=["dataset", "estimator", "quantity", "value", "unit", "direction", "n"],
        )

    def __str__(self) -> str:
        return "\n\n".join(f"== {name} ==\n{c}" for name, c in self.results.items())


def compare_many(
    datasets: Mapping[str, Tuple[Any, Any]],
    estimators: Optional[Sequence[str]] = None,
    precision: Optional[float] = None,
    topsim: Optional[Mapping[str, Any]] = None,
    bosdis: Optional[Mapping[str, Any]] = None,
) -> ComparisonSet:
    """:func:`compare` on several datasets, ``{name: (W, Z)}``, with the same settings. Warns
    (:class:`KcompWarning`) when the datasets differ in N, where C = K(Z)/K(Z|W) is not
    comparable (it grows with N); compare ``bits_saved_per_row`` there."""
    results = {
        str(name): compare(W, Z, estimators, precision, None, topsim, bosdis)
        for name, (W, Z) in datasets.items()
    }
    sizes = {name: c.n for name, c in results.items()}
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{name}: N = {n}" for name, n in sizes.items())
        warnings.warn(
            f"the datasets differ in N ({listed}): C grows with N, so compare "
            "bits_saved_per_row across them, or C only between datasets of the same N",
            KcompWarning,
            stacklevel=2,
        )
    return ComparisonSet(results)



@dataclass(frozen=True)
class Tokens:
    """W as kcomp reads it: ``ids`` (int64, N x L, padded at the end with ``pad``),
    ``vocabulary`` (what each id stands for: the token string, or the original id of an
    integer W; kcomp's padding id is one past it), ``pad`` (None when no row needed padding),
    ``info`` (how W was read) and ``notes`` (the lines kcomp prints about it)."""

    ids: np.ndarray
    vocabulary: List[str]
    pad: Optional[int]
    info: Dict[str, Any]
    notes: List[str]


def tokenise(
    W: Any, tokeniser: Optional[str] = None, keep_case: bool = False, pad: Optional[int] = None
) -> Tokens:
    """W through kcomp's reader, as :func:`compare` and :func:`prequential` see it: sentences
    cut by ``tokeniser`` (``"words"``: Unicode lowercase, NFC, UAX #29 word boundaries, each
    punctuation character a token; ``"chars"``: grapheme clusters; or a ``tokenizer.json``),
    id lists of any lengths, or an integer array; ids made dense, rows padded."""
    ids, vocabulary, pad_id, text = _kcomp.tokenise(_w(W), tokeniser, keep_case, pad)
    info = json.loads(text)
    return Tokens(
        ids=ids, vocabulary=list(vocabulary), pad=pad_id, info=info["input"], notes=info["notes"]
    )


tokenize = tokenise


def _score(name: str, W: Any, Z: Any, precision: Optional[float], topsim=None, bosdis=None) -> float:
    e = compare(
        W, Z, estimators=[name], precision=precision, topsim=topsim, bosdis=bosdis
    ).estimates[0]
    if not e.ok or e.score is None:
        # Fail closed: a score that could not be computed is an error, never a default.
        raise KcompError(f"{name}: no score ({_status_text(e.status)})")
    return e.score


def topsim(
    W: Any,
    Z: Any = None,
    precision: Optional[float] = None,
    *,
    convention: Optional[str] = None,
    correlation: Optional[str] = None,
    w_distance: Optional[str] = None,
    z_distance: Optional[str] = None,
    max_pairs: Optional[int] = None,
    seed: Optional[int] = None,
    z_distances: Any = None,
) -> float:
    """Topological similarity (Brighton and Kirby 2006): the correlation over pairs of rows
    between distances of messages and of meanings. Higher = more compositional; in [-1, 1].

    Default (``convention="kcomp"``): Pearson's r, one-hot cityblock on W (= 2 x Hamming on
    messages of one length), Hamming on discrete Z, Euclidean on continuous Z.
    ``convention="egg"``: EGG's compute_topsim (Spearman, normalised edit on W, Hamming on
    meanings; ``z_distance="cosine"`` is then the cosine of one-hot meanings, as EGG's games
    pass them). ``convention="elmoznino"``: Pearson, one-hot cityblock, Euclidean.
    ``correlation``, ``w_distance``, ``z_distance`` override one setting.
    ``z_distances``: meaning distances as an N x N array (e.g. human similarity ratings) or a
    .npy/.csv file, instead of Z (then Z may be None)."""
    settings = _topsim_settings(
        {
            "convention": convention,
            "correlation": correlation,
            "w_distance": w_distance,
            "z_distance": z_distance,
            "max_pairs": max_pairs,
            "seed": seed,
        },
        "topsim",
    )
    if z_distances is not None and not isinstance(z_distances, (str, os.PathLike)):
        text = _call(
            _kcomp.topsim_matrix,
            _array(W, "W"),
            np.asarray(_array(z_distances, "z_distances"), dtype=np.float64),
            json.dumps(settings),
        )
        return float(json.loads(text)["score"])
    if z_distances is not None:
        settings["z_distances"] = os.fspath(z_distances)
    if Z is None:
        if z_distances is None:
            raise KcompError("topsim: give Z, or the meaning distances as z_distances=")
        Z = np.arange(len(_array(W, "W")))
    return _score("topsim", W, Z, precision, topsim=settings or None)


def _topsim_variant(name: str, doc: str):
    def f(
        W: Any,
        Z: Any,
        precision: Optional[float] = None,
        *,
        convention: Optional[str] = None,
        correlation: Optional[str] = None,
        z_distance: Optional[str] = None,
        max_pairs: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> float:
        settings = _topsim_settings(
            {
                "convention": convention,
                "correlation": correlation,
                "z_distance": z_distance,
                "max_pairs": max_pairs,
                "seed": seed,
            },
            name,
        )
        return _score(name, W, Z, precision, topsim=settings or None)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + " Keywords as :func:`topsim` (its W distance is fixed)."
    return f


topsim_normalised_edit = _topsim_variant(
    "topsim_normalised_edit",
    "Topological similarity with the normalised edit distance between messages (EGG's "
    "`edit`: Levenshtein / mean length). Unitless, in [-1, 1].",
)
topsim_jaccard = _topsim_variant(
    "topsim_jaccard",
    "Topological similarity with the Jaccard distance between message symbol sets. Unitless.",
)


def _plain_score(name: str, doc: str):
    def f(W: Any, Z: Any, precision: Optional[float] = None) -> float:
        return _score(name, W, Z, precision)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + (
        "\n\nW: integer tokens (N, M); Z: integer attributes (N, D), or floats with "
        f"``precision``. The same number as ``kcomp compare --estimators {name} --json``. "
        "Raises KcompError when the score does not apply."
    )
    return f


posdis = _plain_score(
    "posdis",
    "Positional disentanglement (Chaabouni et al., ACL 2020): mean gap between the two "
    "largest mutual informations of each message position with the attributes, normalised by "
    "the position's entropy. Higher = more compositional; in [0, 1].",
)


def bosdis(W: Any, Z: Any, precision: Optional[float] = None, *, eos: Optional[int] = None) -> float:
    """Bag-of-symbols disentanglement (Chaabouni et al., ACL 2020): as posdis over symbol
    counts. Higher = more compositional; in [0, 1]. ``eos=0`` leaves symbol 0 out as
    end-of-sequence (EGG's convention); by default every symbol counts."""
    return _score("bosdis", W, Z, precision, bosdis=None if eos is None else {"eos": int(eos)})


entropy = _plain_score(
    "entropy",
    "Entropy of the messages (whole messages as symbols), in bits.",
)
mutual_information = _plain_score(
    "mutual_information",
    "Mutual information between messages and meanings, in bits.",
)
context_independence = _plain_score(
    "context_independence",
    "Context independence (Bogin et al., 2018). Higher = more compositional; at most about "
    "1/(A M) with A attributes and M symbols per message (the estimate's native "
    "`perfect_code` gives the value of a perfect code on Z).",
)
conflict_count = _plain_score(
    "conflict_count",
    "Conflict count (Kuciński et al., 2021): meanings whose symbol disagrees with the "
    "attribute's majority symbol. Lower = more compositional.",
)
lz76 = _plain_score(
    "lz76",
    "Lempel-Ziv (1976) complexity of the messages: phrases of Kaspar and Schuster's "
    "exhaustive parsing (6 for '1001111011000010').",
)
lz78 = _plain_score(
    "lz78",
    "Lempel-Ziv (1978) complexity of the messages: phrases of the incremental dictionary "
    "parsing (8 for '1001111011000010'); native ``code_bits`` is the LZ78 code length.",
)
tre = _plain_score(
    "tre",
    "Tree reconstruction error (Andreas, ICLR 2019), bag of attribute embeddings. Lower = more "
    "compositional.",
)
tre_linear = _plain_score("tre_linear", "TRE with a linear composition of attribute vectors.")
tre_cosine = _plain_score("tre_cosine", "TRE with the cosine distance.")


def _paths(settings: Dict[str, Any]) -> Dict[str, Any]:
    return {k: os.fspath(v) if isinstance(v, os.PathLike) else v for k, v in settings.items()}


def requential(W: Any, Z: Any, precision: Optional[float] = None, **settings: Any) -> Estimate:
    """Requential code length of Z given W (Finzi et al., "From Entropy to Epiplexity",
    arXiv 2601.03220, 2026): a student learns only synthetic rows a teacher draws, the
    synthetic rows cost their summed KL(teacher || student) plus a relative-entropy code's
    overhead, and the final student codes Z. Bits. The same number as ``kcomp compare
    --estimators requential --json``; keyword arguments are ``[requential]`` settings
    (``teacher="online"``, ``learners=["ngram2", ...]``, ``k_z=False``, ...). ``native`` holds
    K_req, the overhead, the data bits, K(Z) by the same learners with W withheld, and the
    teacher's own prequential code and K_auc of the same run. Raises KcompError when no
    learner gives a code."""
    e = compare(
        W, Z, estimators=["requential"], precision=precision, requential=settings or None
    ).estimates[0]
    if not e.ok or e.k_z_given_w_bits is None:
        raise KcompError(f"requential: no code length ({_status_text(e.status)})")
    return e


def bdm(
    x: Any,
    ndim: Optional[int] = None,
    nsymbols: Optional[int] = None,
    partition: str = "ignore",
    block: Optional[int] = None,
    ctm: Optional[Union[str, os.PathLike]] = None,
) -> Dict[str, Any]:
    """BDM (Zenil et al.'s Block Decomposition Method) of an integer array, with pybdm's
    conventions, on the CTM tables of a pybdm installation (``ctm``: its package folder, or
    the KCOMP_PYBDM_CTM environment variable; the tables are not shipped with kcomp).

    ``x``: symbols 0..8, 1-D (a string) or 2-D (``ndim=2``: a binary matrix, 4x4 blocks;
    ``ndim=1`` reads a 2-D array row after row). ``partition``: ``ignore`` (pybdm's default),
    ``correlated[:SHIFT]`` or ``recursive[:MIN_LENGTH]``. Returns ``{"bits", "blocks",
    "distinct_blocks", "missing_blocks", "uncovered_symbols", "warnings", "table", ...}``;
    ``bdm([0, 1] * 18)["bits"]`` is 28.5757 as in pybdm's README."""
    path = None if ctm is None else os.fspath(ctm)
    x = _array(x, "x")
    if x.ndim == 0:
        raise KcompError("x: an array of symbols, not a scalar")
    return json.loads(_kcomp.bdm(x, ndim, nsymbols, partition, block, path))


@dataclass(frozen=True)
class PrequentialResult:
    """A prequential run (bits): K(Z|W) = K(Data) = K(Data|f) + K(f), K(Z), C^L(Z) =
    K(Z)/K(Z|W), and the curve: one chunk per coding step (``chunks``)."""

    k_data: float
    k_data_given_f: float
    k_f: float
    k_z: float
    c_l: float
    k_z_method: Any
    n_encoded: int
    n_val: int
    final_epochs: Any
    wall_seconds: float
    chunks: List[Dict[str, Any]]
    warnings: List[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)
    #: (K(Z) - K(Z|W)) / N over the encoded rows, bits: comparable across N, unlike C^L.
    bits_saved_per_row: Optional[float] = None
    #: How W was read (dense ids, tokeniser, padding) and the lines kcomp prints about it.
    w_input: Optional[Dict[str, Any]] = None
    w_notes: List[str] = field(default_factory=list)

    @property
    def curve(self) -> Dict[str, np.ndarray]:
        """The prequential curve as arrays, one entry per coding step (field names as in
        curve.csv of ``kcomp prequential --out``)."""
        keys: List[str] = []
        for c in self.chunks:
            for k, v in c.items():
                if k not in keys and isinstance(v, (int, float)) and not isinstance(v, bool):
                    keys.append(k)
        return {k: np.array([c.get(k, np.nan) for c in self.chunks], dtype=float) for k in keys}

    def to_dict(self) -> Dict[str, Any]:
        """The object ``kcomp prequential --json`` prints."""
        return json.loads(json.dumps(self.raw))

    @property
    def learners(self) -> List[Dict[str, Any]]:
        """The online scheme's learners (empty for the reference protocol): ``name``,
        ``bits``, ``share``, ``final_weight``, ``status`` (``ran``, ``skipped``, ``dropped``),
        ``note`` (why skipped or dropped; absent when nothing), ``without_w`` (a learner of the
        code of Z without W, K(Z))."""
        return list(self.raw.get("learners", []))


def _flag_args(options: Mapping[str, Any]) -> List[str]:
    args: List[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args.append(f"{flag}={','.join(str(v) for v in value)}")
        else:
            args.append(f"{flag}={value}")
    return args


# Keywords that only the reference protocol reads.
_REFERENCE_ONLY = (
    "val_size",
    "increment",
    "log_schedule",
    "fractions",
    "hidden",
    "emb_dim",
    "dropout",
    "lr",
    "batch_size",
    "max_epochs",
    "patience",
    "tolerance",
    "lr_decay",
    "lr_patience",
    "warm_start",
    "backend",
)


def prequential(
    W: Any = None,
    Z: Any = None,
    scheme: str = "online",
    precision: Optional[float] = None,
    set: Optional[Mapping[str, Any]] = None,
    *,
    seed: Optional[int] = None,
    learners: Optional[Sequence[str]] = None,
    pad: Optional[int] = None,
    ordering: Optional[str] = None,
    k_z: Optional[str] = None,
    threads: Optional[int] = None,
    out: Optional[Union[str, os.PathLike]] = None,
    force: bool = False,
    holistic_fraction: Optional[float] = None,
    language_seed: Optional[int] = None,
    synonyms: Optional[int] = None,
    word_order: Optional[str] = None,
    val_size: Optional[int] = None,
    increment: Optional[Sequence[int]] = None,
    log_schedule: Optional[Sequence[int]] = None,
    fractions: Optional[Sequence[float]] = None,
    hidden: Optional[Union[int, Sequence[int]]] = None,
    emb_dim: Optional[int] = None,
    dropout: Optional[float] = None,
    lr: Optional[float] = None,
    batch_size: Optional[int] = None,
    max_epochs: Optional[int] = None,
    patience: Optional[int] = None,
    tolerance: Optional[float] = None,
    lr_decay: Optional[float] = None,
    lr_patience: Optional[int] = None,
    warm_start: bool = False,
    backend: Optional[str] = None,
    tokeniser: Optional[str] = None,
    keep_case: bool = False,
) -> PrequentialResult:
    """Prequential code length of Z given W (bits) and C^L(Z), as ``kcomp prequential --json``.

    ``scheme``: ``"online"`` (default: every row coded by a switching mixture of
    ``learners``) or ``"reference"`` (the protocol of Elmoznino et al., ICML 2025, arXiv
    2410.14817: a network retrained per chunk; ``val_size``, ``increment``, ``log_schedule``,
    ``fractions``, ``hidden``, ``emb_dim``, ``dropout``, ``lr``, ``batch_size``,
    ``max_epochs``, ``patience``, ``tolerance``, ``lr_decay``, ``lr_patience``,
    ``warm_start`` and ``backend`` apply to it only). ``seed``: ordering and models;
    ``k_z``: ``"analytic"`` or ``"prequential"``; ``out``: a folder for result.json, the curve
    and its figure. Without W and Z the run codes the generated language system that
    ``holistic_fraction``, ``language_seed``, ``synonyms`` and ``word_order`` describe.
    ``set``: any other configuration key (``{"prequential.online.mixing": "bayes"}``).
    W may be sentences (a list of strings, cut by ``tokeniser``, ``keep_case``) or id lists
    of any lengths, as in :func:`compare`; ``pad=ID`` names the padding token of an integer W.
    Each keyword is the command's flag with ``_`` for ``-``; defaults are the command's."""
    options = {
        "seed": seed,
        "learners": learners,
        "pad": pad,
        "ordering": ordering,
        "k_z": k_z,
        "threads": threads,
        "out": None if out is None else os.fspath(out),
        "force": force,
        "holistic_fraction": holistic_fraction,
        "language_seed": language_seed,
        "synonyms": synonyms,
        "word_order": word_order,
        "val_size": val_size,
        "increment": increment,
        "log_schedule": log_schedule,
        "fractions": fractions,
        "hidden": hidden,
        "emb_dim": emb_dim,
        "dropout": dropout,
        "lr": lr,
        "batch_size": batch_size,
        "max_epochs": max_epochs,
        "patience": patience,
        "tolerance": tolerance,
        "lr_decay": lr_decay,
        "lr_patience": lr_patience,
        "warm_start": warm_start,
        "backend": backend,
    }
    if scheme not in ("online", "reference"):
        raise KcompError(f"scheme={scheme!r} is not one of 'online', 'reference'")
    if scheme == "online":
        given = [k for k in _REFERENCE_ONLY if options[k] not in (None, False)]
        if given:
            names = ", ".join(f"{k}=" for k in given)
            raise KcompError(
                f"{names}: only the reference protocol reads {'it' if len(given) == 1 else 'them'}, "
                'not the default online scheme: add scheme="reference" to use '
                f"{'it' if len(given) == 1 else 'them'}, or drop {'it' if len(given) == 1 else 'them'}"
            )
    args = [f"--protocol={scheme}"] + _flag_args(options)
    for key, value in (set or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, str):
            value = json.dumps(value)
        args.append(f"--set={key}={value}")
    if (W is None) != (Z is None):
        raise KcompError("give both W and Z, or neither (a generated language)")
    w = None if W is None else _w(W)
    z = None if Z is None else _array(Z, "Z")
    raw = json.loads(_call(_kcomp.prequential, w, z, precision, args, tokeniser, keep_case))
    fields = {
        k: raw.get(k)
        for k in PrequentialResult.__dataclass_fields__
        if k not in ("raw", "w_input", "w_notes")
    }
    return PrequentialResult(
        **fields, raw=raw, w_input=raw.get("w_input"), w_notes=raw.get("w_notes") or []
    )


def overlay(
    runs: Union[Mapping[str, PrequentialResult], Sequence[Any]],
    figure: Union[str, os.PathLike],
    title: str = "Prequential code length per row, one line per W",
) -> List[str]:
    """Several prequential runs on one Z in one figure (``kcomp prequential --overlay``): the
    bits per row of each chunk against the rows encoded, one line per run, log x, y zoomed to
    the data, K(Z)/N dashed when the runs share K(Z). ``runs``: ``{label: result}`` or
    ``[(label, result), ...]`` of :func:`prequential` results (or their ``to_dict()``). Writes ``figure`` (.png) and the
    .svg beside it; returns both paths."""
    items = runs.items() if isinstance(runs, Mapping) else runs
    # A result, or its dict (to_dict(), a saved result.json).
    pairs = [[str(label), r.raw if hasattr(r, "raw") else dict(r)] for label, r in items]
    return list(_kcomp.overlay(json.dumps(pairs), os.fspath(figure), title))


@dataclass(frozen=True)
class PanelResult:
    """A panel run: the summary line, the output folder and its tables (summary.csv,
    agreement.csv, runs.csv) as lists of dicts."""

    text: str
    out: str

    def table(self, name: str = "summary") -> List[Dict[str, str]]:
        """Rows of ``<out>/<name>.csv`` (runs, summary, agreement)."""
        import csv

        with open(os.path.join(self.out, f"{name}.csv"), newline="") as f:
            return list(csv.DictReader(f))

    def to_pandas(self, name: str = "summary"):
        import pandas as pd

        return pd.read_csv(os.path.join(self.out, f"{name}.csv"))

    def __str__(self) -> str:
        return self.text


def panel(
    config: Union[str, os.PathLike, Mapping[str, Any]],
    out: Union[str, os.PathLike],
    threads: int = 0,
    resume: bool = False,
) -> PanelResult:
    """A ``kcomp compare CONFIG.toml --out DIR`` panel (families x values x seeds x
    estimators; see configs/compare/): ``config`` is a TOML file or a dict with the same
    keys. Writes the tables and figures into ``out``; results do not depend on ``threads``."""
    out = os.fspath(out)
    if isinstance(config, Mapping):
        text = _call(_kcomp.panel, json.dumps(config), "config", True, out, threads, resume)
    else:
        path = os.fspath(config)
        try:
            with open(path, encoding="utf-8") as f:
                toml_text = f.read()
        except OSError as e:
            raise KcompError(f"{path}: {e.strerror}") from None
        text = _call(_kcomp.panel, toml_text, path, False, out, threads, resume)
    return PanelResult(text=text, out=out)


from . import egg, grid, synth  # noqa: E402  (submodules use the names above)
