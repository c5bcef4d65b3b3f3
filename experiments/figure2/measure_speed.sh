#!/usr/bin/env bash
# Times kcomp's full Figure 2 sweep set and the NumPy/SciPy baseline in the same run and
# writes experiments/figure2/speed.md with the ratio. Needs: python3 with numpy, scipy, lark
# (pip install numpy scipy lark). Takes ~10 minutes (the baseline times 131 runs and
# extrapolates to 1,310).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet
out=$(mktemp -d)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s.%N)
./target/release/kcomp reproduce --out "$out" --quiet > "$out/reproduce.log"
t1=$(date +%s.%N)
kcomp_s=$(echo "$t1 - $t0" | bc -l)
python3 experiments/figure2/baseline/baseline_numpy.py --sample --no-compare \
  --out-dir "$out/baseline" > "$out/baseline.log"
base_s=$(grep -oE 'extrapolated total for 1310 runs: [0-9.]+' "$out/baseline.log" | grep -oE '[0-9.]+$')
ratio=$(echo "$base_s / $kcomp_s" | bc -l)
{
  echo "# Figure 2 sweep set: kcomp vs the NumPy/SciPy baseline, measured in one run"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores; load average before: $load_before"
  echo "- kcomp reproduce (1,310 runs, all cores): $(printf %.1f "$kcomp_s") s wall"
  echo "- NumPy/SciPy baseline (131 runs timed, x10 seeds): $(printf %.0f "$base_s") s wall"
  echo "- speed-up: $(printf %.0f "$ratio")x"
} > experiments/figure2/speed.md
cat experiments/figure2/speed.md
