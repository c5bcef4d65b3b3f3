"""kcomp: compositionality through Kolmogorov complexity (lengths in bits). See __init__.py."""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import grid as grid
from . import synth as synth

__version__: str

class KcompError(ValueError): ...

ESTIMATORS: List[str]
SCORES: List[str]

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
    @property
    def ok(self) -> bool: ...
    @property
    def learners(self) -> List[Dict[str, Any]]: ...

class Comparison:
    dataset: Dict[str, Any]
    k_z: Dict[str, Any]
    estimates: List[Estimate]
    raw: Dict[str, Any]
    def __getitem__(self, name: str) -> Estimate: ...
    def to_dict(self) -> Dict[str, Any]: ...
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
    w_input: Optional[Dict[str, Any]]
    w_notes: List[str]
    @property
    def curve(self) -> Dict[str, np.ndarray]: ...
    def to_dict(self) -> Dict[str, Any]: ...
    @property
    def learners(self) -> List[Dict[str, Any]]: ...

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
    llm_report: Optional[Union[str, os.PathLike]] = ...,
    topsim: Optional[Mapping[str, Any]] = ...,
    bosdis: Optional[Mapping[str, Any]] = ...,
    tokeniser: Optional[str] = ...,
    keep_case: bool = ...,
    pad: Optional[int] = ...,
) -> Comparison: ...
def prequential(
    W: Any = ...,
    Z: Any = ...,
    scheme: str = ...,
    precision: Optional[float] = ...,
    set: Optional[Mapping[str, Any]] = ...,
    tokeniser: Optional[str] = ...,
    keep_case: bool = ...,
    **options: Any,
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
    config: Union[str, os.PathLike, Mapping[str, Any]],
    out: Union[str, os.PathLike],
    threads: int = ...,
    resume: bool = ...,
) -> PanelResult: ...

_Score = Callable[..., float]
topsim: _Score
topsim_normalised_edit: _Score
topsim_jaccard: _Score
posdis: _Score
bosdis: _Score
entropy: _Score
mutual_information: _Score
context_independence: _Score
conflict_count: _Score
lz76: _Score
tre: _Score
tre_linear: _Score
tre_cosine: _Score
