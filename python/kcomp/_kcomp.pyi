"""The native module (Rust, PyO3). Use the functions of `kcomp` instead: these return the
command line's --json answers as text."""

from typing import Any, List, Optional, Tuple

import numpy as np

__version__: str
ESTIMATORS: List[str]
SCORES: List[str]
ESTIMATOR_INFO: List[Tuple[str, str, str, str]]
PREQUENTIAL_FLAGS: List[Tuple[str, str]]

class KcompError(ValueError):
    """Bad input or a failed run, with the command line's one-line message."""

def compare(
    w: Any,
    z: np.ndarray,
    precision: Optional[float] = ...,
    estimators: Optional[List[str]] = ...,
    llm_report: Optional[str] = ...,
    topsim_json: Optional[str] = ...,
    bosdis_json: Optional[str] = ...,
    tokeniser: Optional[str] = ...,
    keep_case: bool = ...,
    pad: Optional[int] = ...,
    requential_json: Optional[str] = ...,
    bdm_json: Optional[str] = ...,
) -> str: ...
def bdm(
    x: np.ndarray,
    ndim: Optional[int] = ...,
    nsymbols: Optional[int] = ...,
    partition: str = ...,
    block: Optional[int] = ...,
    ctm: Optional[str] = ...,
) -> str: ...
def topsim_matrix(w: np.ndarray, d: np.ndarray, topsim_json: Optional[str] = ...) -> str: ...
def prequential(
    w: Optional[Any],
    z: Optional[np.ndarray],
    precision: Optional[float],
    args: List[str],
    tokeniser: Optional[str] = ...,
    keep_case: bool = ...,
) -> str: ...
def tokenise(
    w: Any, tokeniser: Optional[str] = ..., keep_case: bool = ..., pad: Optional[int] = ...
) -> Tuple[np.ndarray, List[str], Optional[int], str]: ...
def overlay(runs_json: str, figure: str, title: str) -> List[str]: ...
def synth(kind: str, args: List[str]) -> Tuple[np.ndarray, np.ndarray, str]: ...
def protocol(args: List[str]) -> Tuple[np.ndarray, np.ndarray, str]: ...
def language(config_json: str) -> Tuple[np.ndarray, np.ndarray, str]: ...
def grid_score(
    answer: str,
    dataset: str,
    record: int,
    parser: str = ...,
    timeout: float = ...,
    allow_unsandboxed: bool = ...,
) -> str: ...
def grid_report(args: List[str]) -> str: ...
def panel(
    text: str, origin: str, is_json: bool, out: str, threads: int = ..., resume: bool = ...
) -> str: ...
