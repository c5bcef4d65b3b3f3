#!/usr/bin/env bash
# Runs experiments/learned-w: C(Z) of representations alone (sentences learned from Z, every
# term coded, MDL selection of M and V) against the generators' exact terms.
# Usage (from the repository's root):
#   experiments/learned-w/run.sh [SAMPLES] [SEEDS]            # k-means and the true-W ceiling
#   LEARNERS="kmeans autoencoder truth" experiments/learned-w/run.sh 1000 0
# The committed results: this with SEEDS 0, plus seeds 1,2 of holistic at D = 16 (kmeans) and
# of lookup-n2000 (kmeans, truth), appended with `--values 16 --seeds 1,2` (no --header).
# kmeans selects M and V over the default grid; autoencoder (built with --features burn) learns
# at the true M and V (--true-space: one grid point instead of about 80);
# truth codes the generator's own W (what the terms make of a perfectly recovered W).
# Writes results/<learner>/<sweep>.csv, then summarises them (tables.md, summary.csv, figures).
set -euo pipefail
samples="${1:-1000}"
seeds="${2:-0}"
learners="${LEARNERS:-kmeans truth}"
here="experiments/learned-w"
features=""
case " $learners " in *" autoencoder "*) features="--features burn" ;; esac
# shellcheck disable=SC2086
cargo build --release $features --example learned_w
bin=target/release/examples/learned_w
for learner in $learners; do
  mkdir -p "$here/results/$learner"
  extra=""
  [ "$learner" = autoencoder ] && extra="--true-space"
  sweeps="lookup-length lookup-vocab lookup-dim lookup-ngram lookup-q2 grammar-width grammar-depth holistic noise"
  for sweep in $sweeps; do
    # The true W of noise does not exist; the auto-encoder's true space neither.
    if [ "$sweep" = noise ] && [ "$learner" != kmeans ]; then continue; fi
    # The auto-encoder on grammars (M = 16 words over 100): 100 epochs, 2 restarts (time).
    more=""
    case "$learner:$sweep" in autoencoder:grammar-*) more="--epochs 100 --restarts 2" ;; esac
    # shellcheck disable=SC2086
    "$bin" --sweep "$sweep" --samples "$samples" --seeds "$seeds" --learner "$learner" $extra \
      $more --header > "$here/results/$learner/$sweep.csv"
  done
  # The acceptance point: q = 1 at N = 2,000.
  # shellcheck disable=SC2086
  "$bin" --sweep lookup-length --values 16 --samples 2000 --seeds "$seeds" --learner "$learner" \
    $extra --header > "$here/results/$learner/lookup-n2000.csv"
done
"$bin" --summarise "$here/results"
