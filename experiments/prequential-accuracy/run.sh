#!/usr/bin/env bash
# Prequential K(Z|W) beside the generator's exact K(Z|W), per coding scheme (README.md here).
# Usage (repository root): bash experiments/prequential-accuracy/run.sh
#   BLOCKS="grid varlen emergent" bash experiments/prequential-accuracy/run.sh   # some blocks
# Writes results/*.csv (one row per family, setting, N, seed, scheme; stderr per-learner totals
# in results/*.log). SEEDS (comma-separated) for the first blocks (default 0), SEEDS3 for the
# string-to-grid, variable-length and emergent-protocol blocks (default 0,1,2).
set -euo pipefail
HERE=experiments/prequential-accuracy
OUT="${OUT:-$HERE/results}"
SEEDS="${SEEDS:-0}"
SEEDS3="${SEEDS3:-0,1,2}"
BLOCKS="${BLOCKS:-lookup goalseeds ablation grammar language grid varlen emergent}"
mkdir -p "$OUT"
cargo build --release --example prequential_accuracy
BIN=./target/release/examples/prequential_accuracy
run() { # name, args...
  local name=$1; shift
  $BIN --header "$@" > "$OUT/$name.csv" 2> "$OUT/$name.log"
  cat "$OUT/$name.csv"
}
for B in $BLOCKS; do
  case $B in
  lookup) # 1. Lookup tables (M = 16, D = 64, lam = r = 0.01; q = 1: K = 10, q = 2: K = 2).
    for Q in 1 2; do
      run "lookup_q$Q" --seeds "$SEEDS" --family lookup --q "$Q" --ns 250,500,1000,2000,4000 \
        --schemes online,online+fast,reference
    done ;;
  goalseeds) # 1b. The goal's cells (N = 500, 2000) under the online scheme for seeds 1 and 2.
    for Q in 1 2; do
      run "lookup_q${Q}_seeds12" --seeds 1,2 --family lookup --q "$Q" --ns 500,2000 --schemes online
    done ;;
  ablation) # 2. What each ingredient buys (the MLP learners alone, then without one ingredient).
    for Q in 1 2; do
      run "ablation_q$Q" --seeds "$SEEDS" --family lookup --q "$Q" --ns 500,2000 \
        --schemes online+mlp,online+mlp+nocal,online+mlp+noreplay,online+mlp+ema,online+nongram,online+bayes
    done ;;
  grammar) # 3. Grammars (vocabulary 20, D = 10).
    run grammar --seeds "$SEEDS" --family grammar --ns 500,2000 --schemes online,online+fast,reference ;;
  language) # 4. Language systems (A = 2, V = 8, L = 2; h sweep).
    for H in 0 0.25 0.5 1; do
      run "language_h$H" --seeds "$SEEDS" --family language --h "$H" --ns 512,1024 --schemes online,reference
    done ;;
  grid) # 5. String-to-grid (6 positions x 4 letters, 6 x 6 grid, random layout; N sampled inputs).
    for H in 0 1; do
      run "grid_h$H" --seeds "$SEEDS3" --family grid --h "$H" --ns 500,1000,2000 \
        --schemes online,online+fast,reference
    done ;;
  varlen) # 6. Variable-length messages (1-6 tokens, padded; Z from the last real token).
    run varlen --seeds "$SEEDS3" --family varlen --ns 250,500,1000,2000 \
      --schemes online,online+noseq,online+fast,reference ;;
  emergent) # 7. C^L on the emergent protocol (configs/prequential/emergent.toml), per scheme.
    for H in 0 1; do
      run "emergent_h$H" --seeds "$SEEDS3" --family emergent --h "$H" --ns 3200 \
        --schemes reference,online,online+fast
    done ;;
  *) echo "unknown block $B" >&2; exit 2 ;;
  esac
done
