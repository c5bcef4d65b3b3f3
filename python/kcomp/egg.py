"""W and Z from EGG's logs (Kharitonov, Chaabouni, Bouchacourt, Baroni, "EGG: a toolkit for
research on Emergence of lanGuage in Games", EMNLP 2019, arXiv 1907.00852).

EGG records a game's data points in an ``egg.core.Interaction`` (``sender_input``,
``labels``, ``message``, ``message_length``, ...; ``egg.core.dump_interactions`` returns one).
:func:`load` turns one into the arrays kcomp reads, without importing EGG or torch: any object
(or dict) with those fields, tensors or arrays, works.

- W: ``message``; Gumbel-softmax messages (N, L, V) are argmaxed over the vocabulary, and with
  ``message_length`` every symbol after a message's length is set to 0, EGG's end of sequence
  (as ``dump_interactions`` does for variable-length games).
- Z: ``labels`` when they are one integer attribute vector per row (the attribute-value games
  log them so), else ``sender_input``: one-hot concatenations of attributes (A blocks of V
  values, each row with exactly one 1 per block) are decoded into A integer attributes;
  other inputs are returned as they are (floats: give ``precision`` to :func:`kcomp.compare`).

EGG's own metrics take the messages with EOS and padding included; ``kcomp.compare(W, Z,
bosdis={"eos": 0}, topsim={"convention": "egg"})`` follows its conventions.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import KcompError

__all__ = ["load"]


def _numpy(x: Any, name: str) -> np.ndarray:
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor
        x = x.detach().cpu().numpy()
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as e:
        raise KcompError(f"interaction.{name}: not an array ({e})") from None


def _field(interaction: Any, name: str) -> Any:
    if isinstance(interaction, dict):
        return interaction.get(name)
    return getattr(interaction, name, None)


def _decode_one_hot(
    x: np.ndarray, n_attributes: Optional[int], n_values: Optional[Sequence[int]]
) -> Optional[np.ndarray]:
    """A integer attributes of one-hot rows (A blocks of equal width, or the widths
    `n_values`), or None."""
    if x.ndim != 2 or not np.isin(x, (0, 1)).all():
        return None
    if n_values is not None:
        widths = [int(v) for v in n_values]
        if sum(widths) != x.shape[1]:
            raise KcompError(
                f"n_values: the blocks {widths} sum to {sum(widths)}, but sender_input has "
                f"{x.shape[1]} columns"
            )
        starts = np.cumsum([0] + widths[:-1])
        blocks = [x[:, s : s + w] for s, w in zip(starts, widths)]
        if not all((b.sum(axis=1) == 1).all() for b in blocks):
            raise KcompError("sender_input: not one 1 per block of n_values in every row")
        return np.stack([b.argmax(axis=1) for b in blocks], axis=1).astype(np.int64)
    ones = x.sum(axis=1)
    a = n_attributes if n_attributes is not None else int(ones[0]) if len(ones) else 0
    if a <= 0 or x.shape[1] % a or not (ones == a).all():
        return None
    blocks = x.reshape(x.shape[0], a, x.shape[1] // a)
    if not (blocks.sum(axis=2) == 1).all():
        return None
    return blocks.argmax(axis=2).astype(np.int64)


def load(
    interaction: Any,
    meanings: str = "auto",
    n_attributes: Optional[int] = None,
    n_values: Optional[Union[int, Sequence[int]]] = None,
) -> Tuple[np.ndarray, np.ndarray]:
    """``(W, Z)`` of an EGG ``Interaction`` (or a dict with its fields).

    ``meanings``: ``"auto"`` (``labels`` when they are integer attribute rows, else
    ``sender_input``), ``"labels"`` or ``"sender_input"``. ``n_attributes``: the number of
    one-hot blocks of ``sender_input`` (default: the number of ones per row, blocks of equal
    width); ``n_values``: the width of each block (an int for all, or one per attribute)
    when they differ."""
    message = _field(interaction, "message")
    if message is None:
        raise KcompError("interaction.message: missing (log it with store_message=True)")
    w = _numpy(message, "message")
    if w.ndim == 3:
        # Gumbel-softmax: one distribution over the vocabulary per position.
        w = w.argmax(axis=-1)
    if w.ndim == 1:
        w = w[:, None]
    if w.ndim != 2:
        raise KcompError(f"interaction.message: expected (N, L) symbols, found shape {w.shape}")
    if np.issubdtype(w.dtype, np.floating):
        if not np.all(np.isfinite(w)) or not np.all(w == np.round(w)):
            raise KcompError("interaction.message: symbols must be integers")
        w = w.astype(np.int64)
    length = _field(interaction, "message_length")
    if length is not None:
        lengths = _numpy(length, "message_length").astype(np.int64).reshape(-1)
        if len(lengths) != len(w):
            raise KcompError(
                f"interaction.message_length: {len(lengths)} lengths for {len(w)} messages"
            )
        w = w.copy()
        positions = np.arange(w.shape[1])[None, :]
        w[positions >= lengths[:, None]] = 0  # EGG's end of sequence

    if meanings not in ("auto", "labels", "sender_input"):
        raise KcompError(
            f"meanings={meanings!r} is not one of 'auto', 'labels', 'sender_input'"
        )
    z = None
    labels = _field(interaction, "labels")
    if meanings in ("auto", "labels") and labels is not None:
        lab = _numpy(labels, "labels")
        if lab.ndim == 1:
            lab = lab[:, None]
        integer = lab.ndim == 2 and (
            np.issubdtype(lab.dtype, np.integer)
            or (np.all(np.isfinite(lab)) and np.all(lab == np.round(lab)))
        )
        if integer and len(lab) == len(w):
            z = lab.astype(np.int64)
        elif meanings == "labels":
            raise KcompError("interaction.labels: not one row of integer attributes per message")
    if z is None:
        if meanings == "labels":
            raise KcompError("interaction.labels: missing")
        inp = _field(interaction, "sender_input")
        if inp is None:
            raise KcompError("interaction.sender_input and labels: both missing")
        x = _numpy(inp, "sender_input")
        x = x.reshape(len(x), -1) if x.ndim > 2 else x
        if isinstance(n_values, (int, np.integer)):
            a = n_attributes or (x.shape[1] // int(n_values))
            n_values = [int(n_values)] * a
        decoded = _decode_one_hot(x, n_attributes, n_values)
        z = decoded if decoded is not None else x
        if len(z) != len(w):
            raise KcompError(
                f"interaction.sender_input: {len(z)} rows, but message has {len(w)} rows"
            )
    return w, z
