#!/usr/bin/env bash
# Held-out-style grammar panel through the CLI only: `kcomp compare` (estimators exact and
# prequential, the default online mixture with the tree learner) on each dataset of cells.csv
# (python3 make_cells.py > cells.csv). Grammars: vocabulary 20, D = 10, M = 16 (as in
# experiments/prequential-accuracy), POS 5, precision 0.01, noise 0.01.
# Usage (repository root):
#   bash experiments/grammar-panel/run.sh            # runs the cells without results
#   UPDATE=1 bash experiments/grammar-panel/run.sh   # re-runs them all (overwrites)
#   CELLS="linear-w2-d2-n1200-s0 ..." bash ...       # a subset
#   CELLS_CSV=FILE OUT=DIR bash ...                  # other cells (same columns), other folder
# Writes results/cells/CELL/ (config.toml, compare's runs.csv/summary, stderr) and appends
# wall / CPU seconds to results/times.csv. THREADS (default 2) is compare's --threads.
set -euo pipefail
HERE=experiments/grammar-panel
OUT="${OUT:-$HERE/results}"
THREADS="${THREADS:-2}"
BIN=./target/release/kcomp
[ -x "$BIN" ] || { echo "build first: cargo build --release --bin kcomp" >&2; exit 2; }
mkdir -p "$OUT/cells"
[ -s "$OUT/times.csv" ] || echo "cell,rc,wall_s,user_cpu_s,sys_cpu_s,max_rss_kib,threads,commit" > "$OUT/times.csv"
COMMIT=$(git rev-parse --short HEAD)
tail -n +2 "${CELLS_CSV:-$HERE/cells.csv}" | while IFS=, read -r cell panel comp width depth n seed; do
  if [ -n "${CELLS:-}" ] && [[ " $CELLS " != *" $cell "* ]]; then continue; fi
  dir="$OUT/cells/$cell"
  if [ -e "$dir/runs.csv" ] && [ "${UPDATE:-0}" != 1 ]; then
    echo "$cell: results exist, not overwritten (UPDATE=1 to re-run)"; continue
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  cat > "$dir/config.toml" <<TOML
name = "grammar-panel-$cell"
seed_list = [$seed]
estimators = ["exact", "prequential"]

[[family]]
name = "grammar-$comp-w$width-d$depth"
kind = "grammar"
parameter = "samples"
values = [$n]
[family.params]
width = $width
depth = $depth
composition = "$comp"
vocab = 20
dim = 10
length = 16
TOML
  echo "$(date -u +%H:%M:%S) $cell" >&2
  set +e
  nice -n 5 /usr/bin/time -o "$dir/time.txt" -f '%e %U %S %M' \
    "$BIN" compare "$dir/config.toml" --out "$dir/out" --threads "$THREADS" --quiet \
    < /dev/null > "$dir/stdout.txt" 2> "$dir/stderr.txt"
  rc=$?
  set -e
  read -r wall user sys rss < <(tail -1 "$dir/time.txt")
  echo "$cell,$rc,$wall,$user,$sys,$rss,$THREADS,$COMMIT" >> "$OUT/times.csv"
  [ -e "$dir/out/runs.csv" ] && cp "$dir/out/runs.csv" "$dir/runs.csv"
  echo "  rc $rc, ${wall} s wall, ${user}+${sys} s CPU" >&2
done
