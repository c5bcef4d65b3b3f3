#!/usr/bin/env bash
# Prequential K(Z|W) beside the generator's exact K(Z|W), per coding scheme (README.md here).
# Usage (repository root): bash experiments/prequential-accuracy/run.sh
# Writes results/*.csv (one row per family, setting, N, seed, scheme; stderr per-learner totals
# in results/*.log).
set -euo pipefail
HERE=experiments/prequential-accuracy
OUT="${OUT:-$HERE/results}"
SEEDS="${SEEDS:-0}"
mkdir -p "$OUT"
cargo build --release --example prequential_accuracy
BIN=./target/release/examples/prequential_accuracy
run() { # name, args...
  local name=$1; shift
  $BIN --header --seeds "$SEEDS" "$@" > "$OUT/$name.csv" 2> "$OUT/$name.log"
  cat "$OUT/$name.csv"
}
# 1. Lookup tables (M = 16, D = 64, lam = r = 0.01; q = 1: K = 10, q = 2: K = 2).
for Q in 1 2; do
  run "lookup_q$Q" --family lookup --q "$Q" --ns 250,500,1000,2000,4000 \
    --schemes online,online+fast,reference
done
# 2. What each ingredient buys (the MLP learners alone, then without one ingredient).
for Q in 1 2; do
  run "ablation_q$Q" --family lookup --q "$Q" --ns 500,2000 \
    --schemes online+mlp,online+mlp+nocal,online+mlp+noreplay,online+mlp+ema,online+nongram,online+bayes
done
# 3. Grammars (vocabulary 20, D = 10) and language systems (A = 2, V = 8, L = 2; h sweep).
run grammar --family grammar --ns 500,2000 --schemes online,online+fast,reference
for H in 0 0.25 0.5 1; do
  run "language_h$H" --family language --h "$H" --ns 512,1024 --schemes online,reference
done
