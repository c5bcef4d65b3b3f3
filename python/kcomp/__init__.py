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
- :func:`panel` -- a ``kcomp compare`` panel from a TOML file or a dict.

Bad input raises :class:`KcompError` (a ``ValueError``) with the command line's one-line
message, W and Z standing for the file names.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _kcomp
from ._kcomp import KcompError

__version__: str = _kcomp.__version__

__all__ = [
    "KcompError",
    "Estimate",
    "Comparison",
    "PrequentialResult",
    "compare",
    "prequential",
    "tokenise",
    "tokenize",
    "Tokens",
    "overlay",
    "panel",
    "synth",
    "grid",
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
    "tre",
    "tre_linear",
    "tre_cosine",
]

#: Every estimator of ``kcomp compare`` (code lengths first, then scores), from the library's
#: registry so the two never disagree.
ESTIMATORS: List[str] = list(_kcomp.ESTIMATORS)

#: Estimators that give a score (not a code length); each is also a function of this module.
SCORES: List[str] = ESTIMATORS[4:17]


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

    ``k_z_given_w_bits`` and ``c`` = K(Z)/K(Z|W) for estimators of a code length, ``score``
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

    def to_pandas(self):  # -> pandas.DataFrame
        """One row per estimator (columns: estimator, status, k_z_given_w_bits, k_z_bits, c,
        score, seconds, then the native fields prefixed ``native.``); needs pandas."""
        import pandas as pd

        rows = []
        for e in self.estimates:
            row = {
                "estimator": e.estimator,
                "status": _status_text(e.status),
                "k_z_given_w_bits": e.k_z_given_w_bits,
                "k_z_bits": e.k_z_bits,
                "c": e.c,
                "score": e.score,
                "seconds": e.seconds,
            }
            row.update({f"native.{k}": v for k, v in e.native.items()})
            rows.append(row)
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        n = self.dataset.get("n")
        lines = [f"N = {n}, K(Z) = {self.k_z['bits']:.1f} bits ({self.k_z['method']})"]
        lines.append(
            f"{'estimator':<21} {'K(Z|W) bits':>14} {'C':>10} {'score':>10}  status"
        )

        def num(v: Optional[float], d: int) -> str:
            return "-" if v is None else f"{v:.{d}f}"

        for e in self.estimates:
            status = _status_text(e.status)
            lines.append(
                f"{e.estimator:<21} {num(e.k_z_given_w_bits, 1):>14} {num(e.c, 3):>10} "
                f"{num(e.score, 4):>10}  {status}"
            )
        return "\n".join(lines)


def _comparison(text: str) -> Comparison:
    raw = json.loads(text)
    return Comparison(
        dataset=raw["dataset"],
        k_z=raw["k_z"],
        estimates=[Estimate(**e) for e in raw["estimates"]],
        raw=raw,
    )


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
) -> Comparison:
    """Every estimator (or ``estimators``) of K(Z|W) and compositionality on one dataset, as
    ``kcomp compare --w W --z Z --json``.

    W: integer tokens, shape (N,) or (N, M), any integer dtype (non-negative; remapped to
    dense ids in increasing order); or a list of N sentences (strings), cut by ``tokeniser``
    (``"words"``, the default, ``"chars"`` or a ``tokenizer.json`` path; ``keep_case``), as a
    ``.txt`` file; or a list of N id lists of any lengths. Rows of different lengths are padded
    with kcomp's own token (``pad``: the padding token an integer W already holds).
    ``result.dataset["provenance"]["params"]["w_input"]`` says how W was read.
    Z: integer attributes (N,) or (N, D) in 0..=1000000, or floats with ``precision`` (the
    grid spacing of continuous Z). Lengths in bits. Raises :class:`KcompError` on bad input.
    ``topsim``: the ``[topsim]`` settings of a panel config (``correlation`` pearson/spearman,
    ``w_distance`` hamming/one-hot-cityblock/edit/normalised-edit/jaccard, ``z_distance``
    euclidean/cosine/hamming, ``max_pairs``, ``seed``); default: the CLI's.
    ``bosdis``: the ``[bosdis]`` settings (``eos``: an end-of-sequence symbol not counted,
    EGG's convention is ``{"eos": 0}``); default: every symbol counts.
    """
    names = None if estimators is None else [str(e) for e in estimators]
    report = None if llm_report is None else os.fspath(llm_report)
    settings = None if topsim is None else json.dumps(dict(topsim))
    bosdis_settings = None if bosdis is None else json.dumps(dict(bosdis))
    text = _kcomp.compare(
        _w(W),
        _array(Z, "Z"),
        precision,
        names,
        report,
        settings,
        bosdis_settings,
        tokeniser,
        keep_case,
        pad,
    )
    return _comparison(text)


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


def _score(
    name: str, W: Any, Z: Any, precision: Optional[float] = None, **topsim: Any
) -> float:
    # bosdis takes its own setting (eos); every other keyword is a [topsim] setting.
    bosdis = {"eos": topsim.pop("eos")} if name == "bosdis" and "eos" in topsim else None
    e = compare(
        W, Z, estimators=[name], precision=precision, topsim=topsim or None, bosdis=bosdis
    ).estimates[0]
    if not e.ok or e.score is None:
        # Fail closed: a score that could not be computed is an error, never a default.
        raise KcompError(f"{name}: no score ({_status_text(e.status)})")
    return e.score


def _make_score(name: str, doc: str):
    def f(W: Any, Z: Any, precision: Optional[float] = None, **topsim: Any) -> float:
        return _score(name, W, Z, precision, **topsim)

    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = doc + (
        "\n\nW: integer tokens (N, M); Z: integer attributes (N, D), or floats with "
        "``precision``. The same number as ``kcomp compare --estimators "
        f"{name} --json``; keyword arguments set ``[topsim]`` (e.g. ``correlation="
        "'spearman', w_distance='hamming', z_distance='hamming'``, EGG's convention). Raises "
        "KcompError when the score does not apply."
    )
    return f


topsim = _make_score(
    "topsim",
    "Topological similarity: Spearman correlation of pairwise Hamming distances between "
    "messages and between meanings (Brighton and Kirby 2006; EGG's convention). Higher = more "
    "compositional; unitless.",
)
topsim_normalised_edit = _make_score(
    "topsim_normalised_edit",
    "Topological similarity with the normalised edit distance between messages. Unitless.",
)
topsim_jaccard = _make_score(
    "topsim_jaccard",
    "Topological similarity with the Jaccard distance between message symbol sets. Unitless.",
)
posdis = _make_score(
    "posdis",
    "Positional disentanglement (Chaabouni et al., ACL 2020): mean gap between the two "
    "largest mutual informations of each message position with the attributes, normalised by "
    "the position's entropy. Higher = more compositional; in [0, 1].",
)
bosdis = _make_score(
    "bosdis",
    "Bag-of-symbols disentanglement (Chaabouni et al., ACL 2020): as posdis over symbol "
    "counts. Higher = more compositional; in [0, 1]. ``eos=0`` leaves symbol 0 out as "
    "end-of-sequence (EGG's convention); by default every symbol counts.",
)
entropy = _make_score(
    "entropy",
    "Entropy of the messages (whole messages as symbols), in bits.",
)
mutual_information = _make_score(
    "mutual_information",
    "Mutual information between messages and meanings, in bits.",
)
context_independence = _make_score(
    "context_independence",
    "Context independence (Bogin et al., 2018). Higher = more compositional; in [0, 1].",
)
conflict_count = _make_score(
    "conflict_count",
    "Conflict count (Kuciński et al., 2021): meanings whose symbol disagrees with the "
    "attribute's majority symbol. Lower = more compositional.",
)
lz76 = _make_score(
    "lz76",
    "Lempel-Ziv (1976) complexity of the messages.",
)
tre = _make_score(
    "tre",
    "Tree reconstruction error (Andreas, ICLR 2019), bag of attribute embeddings. Lower = more "
    "compositional.",
)
tre_linear = _make_score("tre_linear", "TRE with a linear composition of attribute vectors.")
tre_cosine = _make_score("tre_cosine", "TRE with the cosine distance.")


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


def prequential(
    W: Any = None,
    Z: Any = None,
    scheme: str = "online",
    precision: Optional[float] = None,
    set: Optional[Mapping[str, Any]] = None,
    tokeniser: Optional[str] = None,
    keep_case: bool = False,
    **options: Any,
) -> PrequentialResult:
    """Prequential code length of Z given W (bits) and C^L(Z), as ``kcomp prequential --json``.

    ``scheme``: ``"online"`` (default) or ``"reference"`` (the protocol of Elmoznino et al.,
    ICML 2025, arXiv 2410.14817). ``options`` are the command's flags with ``_`` for ``-``
    (``seed=1``, ``lr=0.003``, ``hidden=64``, ``max_epochs=50``, ``holistic_fraction=0.5``
    for a generated language, ``out="dir"``); ``set`` any configuration key
    (``{"prequential.train.lr": 0.003}``). Without W and Z the run codes the generated
    language system the options describe. W may be sentences (a list of strings, cut by
    ``tokeniser``) or id lists of any lengths, as in :func:`compare`; ``pad=ID`` names the
    padding token of an integer W.
    """
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
    raw = json.loads(_kcomp.prequential(w, z, precision, args, tokeniser, keep_case))
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
        text = _kcomp.panel(json.dumps(config), "config", True, out, threads, resume)
    else:
        path = os.fspath(config)
        try:
            with open(path, encoding="utf-8") as f:
                toml_text = f.read()
        except OSError as e:
            raise KcompError(f"{path}: {e.strerror}") from None
        text = _kcomp.panel(toml_text, path, False, out, threads, resume)
    return PanelResult(text=text, out=out)


from . import grid, synth  # noqa: E402  (submodules use the names above)
