"""The simple baseline kcomp's prequential code must beat on real sentences (issue 33).

A block-wise prequential code of Z (N x D floats) given W (N x L word ids, 0 = padding): 12
chunk boundaries spaced geometrically from 64 rows to N; each chunk is coded by ridge
regression (penalty 3) of Z on bag-of-words counts plus an unpenalised intercept, fitted on all
earlier rows, its residuals by a Gaussian whose covariance is their in-sample covariance shrunk
towards its diagonal (weight D/n on the diagonal) and inflated by n / (n - words seen / 2); per
chunk the better of that and the same code without W (mean and shrunk covariance of the earlier
rows), plus 1 bit. Values are on the grid of spacing `precision` and every chunk is a real code:
dimensions in sequence, each a discretised Gaussian given the earlier ones (Cholesky factor).
The first 64 rows are sent with a Gaussian per dimension of the chunk's own mean and std (the
parameters as 32-bit floats). Usage: python baseline.py W.npy Z.npy [precision] [--pad P]
[--shuffle] (P: the padding token, default 0; --shuffle permutes W's rows, seed 0).
"""
import sys
import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.sparse import csr_matrix
from scipy.special import log_ndtr

def grid_bits(x, mean, cov, lam):  # bits of grid values x (m x D) under N(mean, cov)
    L = np.linalg.cholesky(cov)
    e = solve_triangular(L, (x - mean).T, lower=True).T  # standardised, earlier dims decoded
    sd = np.diag(L); cm = x - e * sd  # conditional mean of each dim given the earlier ones
    a, b = (x - lam / 2 - cm) / sd, (x + lam / 2 - cm) / sd
    a, b = np.where(a > 0, -b, a), np.where(a > 0, -a, b)  # mass Phi(b) - Phi(a), lower tail
    return -(log_ndtr(b) + np.log1p(-np.exp(log_ndtr(a) - log_ndtr(b)))).sum() / np.log(2)

def shrunk(r, n, lam, inflate=1.0):  # + lam^2/12 on the diagonal: a constant dimension
    c = r.T @ r / n; w = min(1.0, r.shape[1] / n)
    return ((1 - w) * c + w * np.diag(np.diag(c))) * inflate + lam ** 2 / 12 * np.eye(len(c))

def code(W, Z, lam, pad=0):
    n, d = Z.shape; x = np.round(Z / lam) * lam
    rows = np.repeat(np.arange(n), W.shape[1]); keep = W.ravel() != pad  # column 0: intercept
    X = csr_matrix((np.ones(keep.sum() + n), (np.r_[rows[keep], np.arange(n)],
                    np.r_[W.ravel()[keep] + 1, np.zeros(n, int)])), shape=(n, int(W.max()) + 2))
    bounds = np.unique(np.round(np.geomspace(64, n, 12)).astype(int))
    m0 = x[:bounds[0]].mean(0); s0 = x[:bounds[0]].std(0) + lam / 2
    first = grid_bits(x[:bounds[0]], m0, np.diag(s0 ** 2), lam) + 64 * d
    kz, kzw = first, first
    for a, b in zip(bounds[:-1], bounds[1:]):
        mu = x[:a].mean(0); free = grid_bits(x[a:b], mu, shrunk(x[:a] - mu, a, lam), lam)
        seen = np.flatnonzero(X[:a].getnnz(0)); Xs = X[:a][:, seen]
        pen = 3.0 * np.eye(len(seen)); pen[0, 0] = 0.0  # column 0 (intercept) unpenalised
        B = cho_solve(cho_factor((Xs.T @ Xs).toarray() + pen), Xs.T @ x[:a])
        words = len(seen) - 1
        cov = shrunk(x[:a] - Xs @ B, a, lam, a / max(a - words / 2, 1.0))
        withw = grid_bits(x[a:b], X[a:b, seen] @ B, cov, lam)
        kz += free; kzw += min(free, withw) + 1
        print(f"rows {a}-{b}: W-free {free:,.0f}  with W {withw:,.0f} bits", file=sys.stderr)
    return kz, kzw

if __name__ == "__main__":
    W = np.load(sys.argv[1]).astype(np.int64); Z = np.load(sys.argv[2]).astype(np.float64)
    lam = float(sys.argv[3]) if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else 0.01
    pad = int(sys.argv[sys.argv.index("--pad") + 1]) if "--pad" in sys.argv else 0
    if "--shuffle" in sys.argv: W = W[np.random.default_rng(0).permutation(len(W))]
    kz, kzw = code(W, Z, lam, pad)
    print(f"K(Z) {kz:,.0f} bits  K(Z|W) {kzw:,.0f} bits  C {kz / kzw:.4f}")
