#!/usr/bin/env bash
# The online scheme's prequential K(Z|W) over the exact K(Z|W) on the discrete
# families (language systems over h in two shapes, the seven protocols at 5x5 and 8x8,
# string-to-grid over h, Xu et al.'s 4 x 4 layouts, variable-length messages), N = 500, 1000,
# 2000, 5000, seeds 0, 1, 2; with BLOCKS="lookup1 lookup2 grammar" the continuous families on
# the same grid.
# Usage (repository root): bash experiments/prequential-accuracy/run_discrete.sh
#   SCHEMES=online NS=500,1000 bash ...   # the full learner set (MLPs too) on a subset
# Writes results/discrete_<block>.csv (stderr with every learner's own total: *.log).
set -euo pipefail
HERE=experiments/prequential-accuracy
OUT="${OUT:-$HERE/results}"
SEEDS="${SEEDS:-0,1,2}"
NS="${NS:-500,1000,2000,5000}"
SCHEMES="${SCHEMES:-online+fast}"
BLOCKS="${BLOCKS:-language language3 protocol5 protocol8 grid5 grid4 varlen}"
mkdir -p "$OUT"
cargo build --release --example prequential_accuracy
BIN=./target/release/examples/prequential_accuracy
tag=$(echo "$SCHEMES" | tr ',+' '__')
for B in $BLOCKS; do
  f="$OUT/discrete_${B}_${tag}.csv"
  : > "$f"; : > "${f%.csv}.log"
  hdr=--header
  case $B in
  language|language3|grid5)
    # String-to-grid 5 positions x 4 letters has 1,024 inputs: N is capped there.
    ns=$NS; [ "$B" = grid5 ] && ns="${GRID_NS:-500,1000,1024}"
    for H in 0 0.25 0.5 0.75 1; do
      $BIN $hdr --family "$B" --h "$H" --ns "$ns" --seeds "$SEEDS" --schemes "$SCHEMES" \
        >> "$f" 2>> "${f%.csv}.log"
      hdr=
    done ;;
  protocol5|protocol8)
    for K in trivially-compositional non-trivially-compositional holistic random \
             order-sensitive negation context-sensitive; do
      $BIN $hdr --family protocol --size "${B#protocol}" --kind "$K" --ns "$NS" \
        --seeds "$SEEDS" --schemes "$SCHEMES" >> "$f" 2>> "${f%.csv}.log"
      hdr=
    done ;;
  lookup1|lookup2)
    $BIN $hdr --family lookup --q "${B#lookup}" --ns "$NS" --seeds "$SEEDS" \
      --schemes "$SCHEMES" >> "$f" 2>> "${f%.csv}.log" ;;
  grid4)
    # Xu et al.'s published 4 x 4 shape (16 inputs; N does not apply).
    for K in h v b r hr h-index-shuffle holistic; do
      $BIN $hdr --family grid4 --kind "$K" --ns 16 --seeds "$SEEDS" --schemes "$SCHEMES" \
        >> "$f" 2>> "${f%.csv}.log"
      hdr=
    done ;;
  grammar|varlen)
    $BIN $hdr --family "$B" --ns "$NS" --seeds "$SEEDS" --schemes "$SCHEMES" \
      >> "$f" 2>> "${f%.csv}.log" ;;
  *) echo "unknown block $B" >&2; exit 2 ;;
  esac
  cat "$f"
done
