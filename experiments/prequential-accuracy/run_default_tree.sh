#!/usr/bin/env bash
# The tree learner in the default online mixture: every family before (`+notree`, the mixture
# without it) and after (the default), seed 0, each run timed (CPU and wall seconds).
# Usage (repository root): bash experiments/prequential-accuracy/run_default_tree.sh
# Writes results/default_tree.csv (prequential_accuracy rows), results/default_tree_time.csv
# (name, scheme, user s, system s, wall s per invocation; both N of a family in one) and
# results/default_tree_*.log; `python3 experiments/prequential-accuracy/summarise_default_tree.py`
# prints the README's table. OUT=DIR writes elsewhere; an existing CSV is not overwritten.
set -euo pipefail
HERE=experiments/prequential-accuracy
OUT="${OUT:-$HERE/results}"
mkdir -p "$OUT"
if [ -e "$OUT/default_tree.csv" ]; then
  echo "error: $OUT/default_tree.csv exists; OUT=DIR writes elsewhere" >&2
  exit 2
fi
cargo build --release --example prequential_accuracy
BIN=./target/release/examples/prequential_accuracy
one() { # name scheme args...
  local name=$1 s=$2; shift 2
  /usr/bin/time -f "$name,$s,%U,%S,%e" -a -o "$OUT/default_tree_time.csv" \
    $BIN "$@" --seeds 0 --schemes "$s" >> "$OUT/default_tree.csv" 2>> "$OUT/default_tree_$name.log"
}
pair() { local name=$1 fast=$2; shift 2; one "$name" "online$fast+notree" "$@"; one "$name" "online$fast" "$@"; }
pair grammar +fast --family grammar --ns 500,2000
pair grammar_t2x2 +fast --family grammar --composition tensor --width 2 --depth 2 --ns 500,2000
pair grammar_l1x2 +fast --family grammar --composition linear --width 1 --depth 2 --ns 500,2000
pair grammar_full "" --family grammar --ns 500
for Q in 1 2; do pair "lookup_q$Q" +fast --family lookup --q "$Q" --ns 500,2000; done
for Q in 1 2 3; do pair "lookup12_q$Q" +fast --family lookup12 --q "$Q" --ns 500,800,2000; done
for H in 0 1; do pair "language_h$H" "" --family language --h "$H" --ns 512,1024; done
for H in 0 1; do pair "grid_h$H" +fast --family grid --h "$H" --ns 500,2000; done
pair varlen +fast --family varlen --ns 500,2000
pair protocol6_ntc +fast --family protocol --size 6 --kind non-trivially-compositional --ns 500,2000
pair lang4x4_h05 +fast --family langx --attrs 4 --values 4 --h 0.5 --ns 500,2000
pair grid4n_h +fast --family grid4 --kind h --ns 8,12
pair emergent_h0 +fast --family emergent --h 0 --ns 3200
