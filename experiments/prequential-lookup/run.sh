#!/usr/bin/env bash
# Prequential K(Z|W) on lookup-table representations (seed 004, Section 4.1) beside the exact
# K(Z|W) = K(f) + K(Z|W,f) known from the generator. Never published: see README.md here.
#
# For q = 1 (K = 10) and q = 2 (K = 2, as the reference's q sweep), M = 16, D = 64,
# lam = r = 0.01, and N in $NS: generate with `kcomp synth lookup`, code Z given W
# prequentially (random order, 10% validation, log-spaced chunks, Gaussian head with learned
# std), and compare with the exact terms restricted to the encoded rows:
#   exact_enc = K(f) + K(Z|W,f) * n_encoded / N   (K(f) is charged once, whatever N).
# Usage (repository root): bash experiments/prequential-lookup/run.sh
set -euo pipefail
NS="${NS:-250 500 1000 2000}"
SEED="${SEED:-0}"
# Model: a linear read-out of the concatenated word embeddings (HIDDEN="") represents a lookup
# table exactly and learns it much faster than the 256-unit MLP (about 2x shorter codes).
HIDDEN="${HIDDEN:-}"
EMB="${EMB:-16}"
LR="${LR:-0.01}"
HERE=experiments/prequential-lookup
OUT=$HERE/results
mkdir -p "$OUT"
cargo build --release
BIN=./target/release/kcomp
echo "q,K,N,n_encoded,exact_k_f_bits,exact_k_z_given_wf_bits,exact_enc_bits,preq_k_data_bits,preq_k_data_given_f_bits,ratio_preq_over_exact,naive_k_z_bits,wall_seconds" > "$OUT/ratios.csv"
for cfg in "1 10" "2 2"; do
  set -- $cfg; Q=$1; K=$2
  for N in $NS; do
    D="$OUT/q${Q}_N${N}"
    mkdir -p "$D"
    $BIN synth lookup --samples "$N" --length 16 --vocab "$K" --dim 64 --ngram "$Q" \
      --precision 0.01 --noise 0.01 --seed "$SEED" --no-topsim --json --out "$D/data" > "$D/exact.json"
    VAL=$((N / 10))
    $BIN prequential --w "$D/data/W.npy" --z "$D/data/Z.npy" --precision 0.01 \
      --ordering random --val-size "$VAL" --log-schedule 16,8 --seed "$SEED" \
      --emb-dim "$EMB" --hidden "$HIDDEN" --lr "$LR" --batch-size 32 --max-epochs 2000 --patience 50 \
      --tolerance 0.0001 --quiet --json --out "$D/preq" > "$D/preq.json"
    python3 - "$Q" "$K" "$N" "$D" >> "$OUT/ratios.csv" <<'PY'
import json, sys
q, k, n, d = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
ex = json.load(open(f"{d}/exact.json"))
pr = json.load(open(f"{d}/preq.json"))
def find(o, key):
    if isinstance(o, dict):
        if key in o: return o[key]
        for v in o.values():
            r = find(v, key)
            if r is not None: return r
    return None
kf = find(ex, "k_f"); kn = find(ex, "k_z_given_wf")
enc = pr["n_encoded"]
exact_enc = kf + kn * enc / n
print(f"{q},{k},{n},{enc},{kf:.1f},{kn:.1f},{exact_enc:.1f},{pr['k_data']:.1f},{pr['k_data_given_f']:.1f},{pr['k_data']/exact_enc:.4f},{pr['k_z']:.1f},{pr['wall_seconds']:.1f}")
PY
    tail -1 "$OUT/ratios.csv"
  done
done
