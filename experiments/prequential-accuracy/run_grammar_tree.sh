#!/usr/bin/env bash
# Grammar representations (vocabulary 20, D = 10, M = 16) under the tree-composition learner:
# prequential K(Z|W) and C beside the exact terms over width, depth and composition.
# Usage (repository root): bash experiments/prequential-accuracy/run_grammar_tree.sh
#   UPDATE=1 CONFIGS="1x1 3x2" COMPS=tensor NS=500,2000 SEEDS=0,1,2 bash ...   # a subset
# Writes results/grammar_tree.csv (one row per composition, width, depth, N, seed, scheme;
# `online+fast` is the default mixture without its two MLP learners; the tree learner is in it,
# `+tree` names it explicitly (the same mixture), `+notree` leaves it out) and results/grammar_tree.log (per-learner totals, a line
# naming the grammar before each). An existing CSV is not overwritten: with UPDATE=1 the rows
# this run makes replace those with the same grammar, N, seed and scheme (merge_rows.py, after
# each grammar, so an interrupted run keeps what it finished) and the log is appended to;
# without it the script stops. OUT=DIR writes elsewhere.
set -euo pipefail
HERE=experiments/prequential-accuracy
OUT="${OUT:-$HERE/results}"
SEEDS="${SEEDS:-0}"
NS="${NS:-500,1000,2000,5000}"
COMPS="${COMPS:-linear tensor}"
CONFIGS="${CONFIGS:-1x1 1x2 1x3 1x4 2x2 3x2 4x2}"
SCHEMES="${SCHEMES:-online+fast+tree,online+fast+notree}"
mkdir -p "$OUT"
CSV="$OUT/grammar_tree.csv"
LOG="$OUT/grammar_tree.log"
if [ -e "$CSV" ] && [ "${UPDATE:-0}" != 1 ]; then
  echo "error: $CSV exists; UPDATE=1 replaces the rows this run makes, OUT=DIR writes elsewhere" >&2
  exit 2
fi
[ -e "$CSV" ] || : > "$LOG"
cargo build --release --example prequential_accuracy
BIN=./target/release/examples/prequential_accuracy
NEW=$(mktemp "$OUT/grammar_tree.new.XXXXXX")
trap 'rm -f "$NEW"' EXIT
for C in $COMPS; do
  for WD in $CONFIGS; do
    W=${WD%x*}; D=${WD#*x}
    echo "# $C width $W depth $D, N $NS, seeds $SEEDS ($(date -u +%FT%TZ))" >> "$LOG"
    $BIN --header --family grammar --vocab 20 --width "$W" --depth "$D" --composition "$C" \
      --ns "$NS" --seeds "$SEEDS" --threads 1 --schemes "$SCHEMES" > "$NEW" 2>> "$LOG"
    python3 "$HERE/merge_rows.py" "$CSV" "$NEW"
    tail -n +2 "$NEW"
  done
done
