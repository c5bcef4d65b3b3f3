"""The simplest strong baseline for K(Z|W) of sentence embeddings: a few lines of NumPy.

A block-wise prequential code: 12 chunk boundaries spaced
geometrically from 64 rows to N; the first 64 rows go with an i.i.d. Gaussian of variance 1/D
per dimension (Z is L2-normalised: its mean square per dimension is 1/D); every later chunk is
coded by a model fitted on all earlier rows: ridge regression (penalty 3, intercept not
penalised) of Z on bag-of-words counts, its residuals by a Gaussian whose covariance is the
residual covariance shrunk towards its diagonal (weight min(1, D/n) on the diagonal), inflated
by n/(n - p/2) for the p words seen. Per chunk the better of that code and the same code without
W (mean and shrunk covariance only), plus 1 bit saying which. Values are discretised at the
precision (the density times precision^D per row). With ``W=None`` the result is the W-free
code, the baseline's K(Z). Lengths in bits. Illustrative, not kcomp's code.
"""

from __future__ import annotations

import numpy as np

LOG2E = 1.0 / np.log(2.0)


def _gauss_bits(r: np.ndarray, cov: np.ndarray, precision: float) -> float:
    """Bits of the rows of residual ``r`` under N(0, cov), discretised at ``precision``."""
    d = r.shape[1]
    chol = np.linalg.cholesky(cov)
    sol = np.linalg.solve(chol, r.T)
    logdet = 2.0 * np.log(np.diag(chol)).sum()
    nats = 0.5 * ((sol**2).sum() + len(r) * (logdet + d * np.log(2 * np.pi)))
    return nats * LOG2E - len(r) * d * np.log2(precision)


def _cov(res: np.ndarray, p: int) -> np.ndarray:
    n, d = res.shape
    s = res.T @ res / n
    a = min(1.0, d / n)
    s = (1 - a) * s + a * np.diag(np.diag(s))
    return s * n / max(n - p / 2.0, 1.0)


def _bow(w: np.ndarray, pad: int | None, vocab: int) -> np.ndarray:
    x = np.zeros((len(w), vocab), dtype=np.float64)
    for i, row in enumerate(w):
        row = row[row != pad] if pad is not None else row
        np.add.at(x[i], row, 1.0)
    return x


def code_length(W: np.ndarray | None, Z: np.ndarray, precision: float, pad: int | None = None,
                first: int = 64, chunks: int = 12, ridge: float = 3.0) -> float:
    """K(Z|W) in bits (K(Z) with W=None) for rows in the given order."""
    n, d = Z.shape
    bounds = np.unique(np.round(np.geomspace(first, n, chunks)).astype(int))
    total = _gauss_bits(Z[:first], np.eye(d) / d, precision)
    x_all = None if W is None else _bow(W, pad, int(W.max()) + 1)
    for a, b in zip(bounds[:-1], bounds[1:]):
        zt, zn = Z[:a], Z[a:b]
        mu = zt.mean(0)
        options = [_gauss_bits(zn - mu, _cov(zt - mu, 0), precision)]
        if x_all is not None:
            seen = np.flatnonzero(x_all[:a].sum(0))  # words of the earlier rows
            xt, xn = x_all[:a, seen], x_all[a:b, seen]
            xc, zc = xt - xt.mean(0), zt - mu
            if len(seen) <= a:  # primal: (X'X + rI) B = X'Z
                beta = np.linalg.solve(xc.T @ xc + ridge * np.eye(len(seen)), xc.T @ zc)
            else:  # dual, the same solution: B = X'(XX' + rI)^-1 Z
                beta = xc.T @ np.linalg.solve(xc @ xc.T + ridge * np.eye(a), zc)
            fit = zc - xc @ beta
            pred = mu + (xn - xt.mean(0)) @ beta
            options.append(_gauss_bits(zn - pred, _cov(fit, len(seen)), precision))
        total += min(options) + 1.0
    return float(total)
