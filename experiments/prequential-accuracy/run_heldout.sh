#!/usr/bin/env bash
# Shapes the learners were not tuned on: languages 4 attributes x 4 values and 2 x 16,
# Korbak et al.'s protocols at 6 x 6 and 10 x 10, string-to-grid 6 positions on 6 x 6 over h,
# Xu et al.'s 4 x 4 layouts with 8 and 12 of the 16 inputs; N = 500, 2,000, seeds 0, 1, 2,
# learners marginal, ngram2, rules. Usage (repository root):
#   bash experiments/prequential-accuracy/run_heldout.sh   # writes results/heldout_*.csv
set -euo pipefail
HERE=experiments/prequential-accuracy
OUT="${OUT:-$HERE/results}"
SEEDS="${SEEDS:-0,1,2}"
NS="${NS:-500,2000}"
S=online+fast
mkdir -p "$OUT"
cargo build --release --example prequential_accuracy
BIN=./target/release/examples/prequential_accuracy
run() { # file, args...
  local f="$OUT/heldout_$1.csv" hdr=; shift
  [ -s "$f" ] || hdr=--header
  $BIN $hdr "$@" --seeds "$SEEDS" --schemes "$S" >> "$f" 2>> "${f%.csv}.log"
}
rm -f "$OUT"/heldout_*.csv "$OUT"/heldout_*.log
for H in 0 0.25 0.5 0.75 1; do
  run lang4x4 --family langx --attrs 4 --values 4 --h "$H" --ns "$NS"
  run lang2x16 --family langx --attrs 2 --values 16 --h "$H" --ns "$NS"
  run grid6 --family grid --h "$H" --ns 500,2000
done
for K in trivially-compositional non-trivially-compositional holistic random order-sensitive \
         negation context-sensitive; do
  run protocol6 --family protocol --size 6 --kind "$K" --ns "$NS"
  run protocol10 --family protocol --size 10 --kind "$K" --ns "$NS"
done
for K in h v b r hr h-index-shuffle holistic; do
  run grid4n --family grid4 --kind "$K" --ns 8,12
done
