"""kcomp: compositionality through Kolmogorov complexity (lengths in bits). See __init__.py."""

import os
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import egg as egg
from . import grid as grid
from . import synth as synth

__version__: str

class KcompError(ValueError): ...
class KcompWarning(UserWarning): ...

ESTIMATORS: List[str]
SCORES: List[str]
ESTIMATOR_INFO: Dict[str, Tuple[str, str, str]]
COMPARABILITY: str
TOPSIM_CHOICES: Dict[str, Tuple[str, ...]]

Convention = Literal["kcomp", "egg", "elmoznino"]
Correlation = Literal["pearson", "spearman"]
WDistance = Literal["hamming", "one-hot-cityblock", "edit", "normalised-edit", "jaccard"]
ZDistance = Literal["auto", "euclidean", "cosine", "cosine-one-hot", "hamming"]
PathLike = Union[str, os.PathLike]

class Estimate:
    estimator: str
    status: Any
    k_z_given_w_bits: Optional[float]
    k_z_bits: float
    c: Optional[float]
    score: Optional[float]
    native: Dict[str, Any]
    notes: List[str]
    seconds: float
    bits_saved_per_row: Optional[float]
    @property
    def ok(self) -> bool: ...

class Comparison:
    dataset: Dict[str, Any]
    k_z: Dict[str, Any]
    estimates: List[Estimate]
    raw: Dict[str, Any]
    @property
    def n(self) -> int: ...
    def __getitem__(self, name: str) -> Estimate: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def tidy(self) -> List[Dict[str, Any]]: ...
    def to_pandas(self, wide: bool = ...) -> Any: ...

class ComparisonSet:
    results: Dict[str, Comparison]
    def __getitem__(self, name: str) -> Comparison: ...
    def to_pandas(self) -> Any: ...

class PrequentialResult:
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
    raw: Dict[str, Any]
    bits_saved_per_row: Optional[float]
    w_input: Optional[Dict[str, Any]]
    w_notes: List[str]
    @property
    def curve(self) -> Dict[str, np.ndarray]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class PanelResult:
    text: str
    out: str
    def table(self, name: str = ...) -> List[Dict[str, str]]: ...
    def to_pandas(self, name: str = ...) -> Any: ...

def compare(
    W: Any,
    Z: Any,
    estimators: Optional[Sequence[str]] = ...,
    precision: Optional[float] = ...,
    llm_report: Optional[PathLike] = ...,
    topsim: Optional[Mapping[str, Any]] = ...,
    bosdis: Optional[Mapping[str, Any]] = ...,
    tokeniser: Optional[str] = ...,
    keep_case: bool = ...,
    pad: Optional[int] = ...,
    requential: Optional[Mapping[str, Any]] = ...,
    bdm: Optional[Mapping[str, Any]] = ...,
) -> Comparison: ...
def requential(W: Any, Z: Any, precision: Optional[float] = ..., **settings: Any) -> Estimate: ...
def bdm(
    x: Any,
    ndim: Optional[int] = ...,
    nsymbols: Optional[int] = ...,
    partition: str = ...,
    block: Optional[int] = ...,
    ctm: Optional[Union[str, os.PathLike]] = ...,
) -> Dict[str, Any]: ...
def compare_many(
    datasets: Mapping[str, Tuple[Any, Any]],
    estimators: Optional[Sequence[str]] = ...,
    precision: Optional[float] = ...,
    topsim: Optional[Mapping[str, Any]] = ...,
    bosdis: Optional[Mapping[str, Any]] = ...,
) -> ComparisonSet: ...
def prequential(
    W: Any = ...,
    Z: Any = ...,
    scheme: Literal["online", "reference"] = ...,
    precision: Optional[float] = ...,
    set: Optional[Mapping[str, Any]] = ...,
    *,
    seed: Optional[int] = ...,
    learners: Optional[Sequence[str]] = ...,
    pad: Optional[int] = ...,
    ordering: Optional[str] = ...,
    k_z: Optional[Literal["analytic", "prequential"]] = ...,
    threads: Optional[int] = ...,
    out: Optional[PathLike] = ...,
    force: bool = ...,
    holistic_fraction: Optional[float] = ...,
    language_seed: Optional[int] = ...,
    synonyms: Optional[int] = ...,
    word_order: Optional[Literal["fixed", "permuted", "free"]] = ...,
    val_size: Optional[int] = ...,
    increment: Optional[Sequence[int]] = ...,
    log_schedule: Optional[Sequence[int]] = ...,
    fractions: Optional[Sequence[float]] = ...,
    hidden: Optional[Union[int, Sequence[int]]] = ...,
    emb_dim: Optional[int] = ...,
    dropout: Optional[float] = ...,
    lr: Optional[float] = ...,
    batch_size: Optional[int] = ...,
    max_epochs: Optional[int] = ...,
    patience: Optional[int] = ...,
    tolerance: Optional[float] = ...,
    lr_decay: Optional[float] = ...,
    lr_patience: Optional[int] = ...,
    warm_start: bool = ...,
    backend: Optional[Literal["fast", "burn"]] = ...,
    tokeniser: Optional[str] = ...,
    keep_case: bool = ...,
) -> PrequentialResult: ...

class Tokens:
    ids: np.ndarray
    vocabulary: List[str]
    pad: Optional[int]
    info: Dict[str, Any]
    notes: List[str]

def tokenise(
    W: Any, tokeniser: Optional[str] = ..., keep_case: bool = ..., pad: Optional[int] = ...
) -> Tokens: ...

tokenize = tokenise

def overlay(
    runs: Union[Mapping[str, PrequentialResult], Sequence[Any]],
    figure: Union[str, os.PathLike],
    title: str = ...,
) -> List[str]: ...
def panel(
    config: Union[PathLike, Mapping[str, Any]],
    out: PathLike,
    threads: int = ...,
    resume: bool = ...,
) -> PanelResult: ...
def topsim(
    W: Any,
    Z: Any = ...,
    precision: Optional[float] = ...,
    *,
    convention: Optional[Convention] = ...,
    correlation: Optional[Correlation] = ...,
    w_distance: Optional[WDistance] = ...,
    z_distance: Optional[ZDistance] = ...,
    max_pairs: Optional[int] = ...,
    seed: Optional[int] = ...,
    z_distances: Any = ...,
) -> float: ...
def topsim_normalised_edit(
    W: Any,
    Z: Any,
    precision: Optional[float] = ...,
    *,
    convention: Optional[Convention] = ...,
    correlation: Optional[Correlation] = ...,
    z_distance: Optional[ZDistance] = ...,
    max_pairs: Optional[int] = ...,
    seed: Optional[int] = ...,
) -> float: ...
def topsim_jaccard(
    W: Any,
    Z: Any,
    precision: Optional[float] = ...,
    *,
    convention: Optional[Convention] = ...,
    correlation: Optional[Correlation] = ...,
    z_distance: Optional[ZDistance] = ...,
    max_pairs: Optional[int] = ...,
    seed: Optional[int] = ...,
) -> float: ...
def posdis(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def bosdis(W: Any, Z: Any, precision: Optional[float] = ..., *, eos: Optional[int] = ...) -> float: ...
def entropy(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def mutual_information(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def context_independence(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def conflict_count(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def lz76(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def lz78(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def tre(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def tre_linear(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
def tre_cosine(W: Any, Z: Any, precision: Optional[float] = ...) -> float: ...
