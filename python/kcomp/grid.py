"""The mapping-table metric of LLM-written programs (Xu, Wang, Wang, "Investigating More
Explainable and Partition-Free Compositionality Estimation for LLMs: A Rule-Generation
Perspective", ACL 2026, arXiv 2604.27340), as ``kcomp grid score`` and ``kcomp grid report``.

Programs run only inside kcomp's sandbox.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Union

from . import _call, _flag_args, _kcomp

__all__ = ["score", "report"]


def score(
    program_text: str,
    dataset: Union[str, os.PathLike],
    record: int = 0,
    parser: str = "reference",
    timeout: float = 5.0,
    allow_unsandboxed: bool = False,
) -> Dict[str, Any]:
    """Scores one answer (Markdown with a code block, or a bare program) on record ``record``
    of the string-to-grid ``dataset`` (.jsonl): the fields of ``kcomp grid score --json``
    (``c_error`` = (N+M) E(P), ``c`` = L(P) in bits, ``in_acc`` = % of samples right,
    ``norm_c`` = C(P), ``log_norm_c``, ``errors``, ``l_p_plus``, ``l_p``, ``profile``,
    ``status``, and ``parser``: which parser produced them). ``parser``: ``"reference"``
    (default: the published evaluator, so C(P) compares with Xu et al.'s tables; it counts only
    dict and if/else tables and can be fooled by hidden data) or ``"robust"`` (every literal
    the program runs; hidden data flagged). ``timeout``: seconds per sample run."""
    text = _call(
        _kcomp.grid_score,
        program_text,
        os.fspath(dataset),
        int(record),
        parser,
        float(timeout),
        allow_unsandboxed,
    )
    return json.loads(text)


def report(answers: Union[str, os.PathLike], **options: Any) -> str:
    """``kcomp grid report ANSWERS [options]``: scores an answer tree and writes
    per_answer.csv, summary.csv, table3.csv, report.md, ... (``out=`` to choose the folder);
    returns the summary line. Options are the command's flags with ``_`` for ``-``."""
    return _call(_kcomp.grid_report, [os.fspath(answers)] + _flag_args(options))
