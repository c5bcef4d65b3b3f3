#!/usr/bin/env bash
# Runs experiments/learned-w: C(Z) of representations alone (block-wise k-means sentences,
# every term coded, MDL selection of M and V) against the generators' exact terms.
# Usage: experiments/learned-w/run.sh [SAMPLES] [SEEDS]   (from the repository's root)
# Writes results/<sweep>.csv, then summarises them (tables.md, summary.csv, figures).
set -euo pipefail
samples="${1:-1000}"
seeds="${2:-0}"
here="experiments/learned-w"
cargo build --release --example learned_w
bin=target/release/examples/learned_w
mkdir -p "$here/results"
for sweep in lookup-length lookup-vocab lookup-dim lookup-ngram lookup-q2 grammar-width grammar-depth holistic noise; do
  "$bin" --sweep "$sweep" --samples "$samples" --seeds "$seeds" --header > "$here/results/$sweep.csv"
done
# The acceptance point of issue 24: q = 1 at N = 2,000.
"$bin" --sweep lookup-length --values 16 --samples 2000 --seeds "$seeds" --header > "$here/results/lookup-n2000.csv"
"$bin" --summarise "$here/results"
