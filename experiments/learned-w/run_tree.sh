#!/usr/bin/env bash
# The tree-composition decoder (`kcomp represent --decoders default,tree`) on grammars: the
# generator's own W ("oracle W", learner truth) and the learned W (kmeans over the default grid;
# the auto-encoder at the true sentence space), with the default decoders beside.
# Usage (repository root): experiments/learned-w/run_tree.sh   (UPDATE=1 to replace the results)
# Writes experiments/learned-w/results/tree/tree.csv (one row per run; `decoders`, `composition`,
# `grammar_vocab` and the run's CPU seconds added in front of the example's columns). K(W) is
# `kcomp represent`'s: 1 bit + the shorter of the positions code and the class code
# (`k_w_code` says which won; `k_w_positions_bits` and `k_w_class_bits` are both codes).
set -euo pipefail
here="experiments/learned-w"
out="$here/results/tree/tree.csv"
if [ -e "$out" ] && [ "${UPDATE:-0}" != 1 ]; then
  echo "run_tree.sh: $out exists; run with UPDATE=1 to replace it" >&2
  exit 2
fi
cargo build --release --features burn --example learned_w
bin=target/release/examples/learned_w
mkdir -p "$here/results/tree"
tmp="$out.partial"
first=1
run() { # composition vocab width samples learner decoders [extra...]
  local comp=$1 vocab=$2 width=$3 n=$4 learner=$5 dec=$6
  shift 6
  local hdr=""
  [ "$first" = 1 ] && hdr="--header"
  local line
  # shellcheck disable=SC2086
  line=$( { /usr/bin/time -f "cpu_s=%U" "$bin" --sweep grammar-width --values "$width" \
    --samples "$n" --learner "$learner" --composition "$comp" --grammar-vocab "$vocab" \
    --decoders "$dec" $hdr "$@"; } 2>&1 )
  if [ "$first" = 1 ]; then
    echo "decoders,composition,grammar_vocab,cpu_s,$(echo "$line" | head -1)" > "$tmp"
    first=0
  fi
  local cpu
  cpu=$(echo "$line" | grep -o 'cpu_s=[0-9.]*' | cut -d= -f2)
  echo "$line" | grep '^grammar' | while read -r row; do
    echo "\"$dec\",$comp,$vocab,$cpu,$row" >> "$tmp"
  done
}
# Oracle W: tensor grammar (width 2, depth 2, M = 16 over 20 words, D = 10).
for n in 250 400 1000 2000; do run tensor 20 2 $n truth default,tree; done
run tensor 20 2 2000 truth terms
# Oracle W: linear width 1 (the linear case the tree learner learns), vocabulary 20.
run linear 20 1 2000 truth default,tree
run linear 20 1 2000 truth terms
# Oracle W: the default grammar (linear, width 3, depth 2, 100 words) at N = 1,000 / 2,000 /
# 5,000, and a tensor grammar over 100 words.
for n in 1000 2000 5000; do run linear 100 3 $n truth default,tree; done
run tensor 100 2 2000 truth default,tree
# K(W) per row against N (the decoder does not matter for K(W): marginal only, fast).
for n in 2000 5000 10000; do run tensor 100 2 $n truth marginal; done
for n in 1000 5000; do run linear 100 3 $n truth marginal; done
# Learned W at N = 1,000: k-means (MDL over the default grid) with and without the tree decoder;
# the auto-encoder at the true space (M = 16, V = 20; 100 epochs, 2 restarts).
run tensor 20 2 1000 kmeans terms
run tensor 20 2 1000 kmeans default,tree
run tensor 20 2 1000 autoencoder default,tree --true-space --epochs 100 --restarts 2
# Learned W on the default grammar: k-means over the default grid (default decoders at N = 1,000
# / 2,000 / 5,000; with the tree decoder at N = 1,000, where it runs at every space of 2 words
# or more) and the auto-encoder at the true space (M = 16, V = 100; 100 epochs, 2 restarts).
for n in 1000 2000 5000; do run linear 100 3 $n kmeans default; done
run linear 100 3 1000 kmeans default,tree
run linear 100 3 1000 autoencoder default,tree --true-space --epochs 100 --restarts 2
mv "$tmp" "$out"
