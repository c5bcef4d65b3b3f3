#!/usr/bin/env bash
# Times kcomp's burn backend on a GPU (feature gpu-wgpu) against the CPU paths, in one call on
# one machine, and writes a small table (experiments/gpu/results/, or $OUT when set, as on a
# device machine):
#   1. the reference prequential protocol of Elmoznino et al. on configs/prequential/emergent.toml
#      with the fast CPU MLP, burn on the CPU (flex) and burn on the GPU (wgpu);
#   2. the auto-encoder sentence learner of `kcomp represent` (burn) on the CPU and the GPU.
# Times are wall seconds and ratios to the CPU burn run of the same workload, same call.
#
#   bash experiments/gpu/run.sh                 # both builds, all runs (needs a GPU for wgpu)
#   bash experiments/gpu/run.sh --cpu-only      # the CPU half (what a machine without GPU can do)
#   bash experiments/gpu/run.sh --quick         # small sizes (640 rows; 128 rows, 5 epochs): a smoke run
# Nothing in the default build or tests needs this script or a GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
QUICK=0
GPU=1
for a in "$@"; do
    case "$a" in
        --quick) QUICK=1 ;;
        --cpu-only) GPU=0 ;;
        *) echo "unknown option $a (--quick, --cpu-only)" >&2; exit 2 ;;
    esac
done
out=${OUT:-experiments/gpu/results}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=${RUN_LIMIT_S:-420}

echo "building the CPU binary (--features burn)" >&2
cargo build --release --features burn --bin kcomp
cp target/release/kcomp "$work/kcomp-cpu"
if [ "$GPU" = 1 ]; then
    echo "building the GPU binary (--features gpu-wgpu, target/gpu)" >&2
    CARGO_TARGET_DIR=target/gpu cargo build --release --features gpu-wgpu --bin kcomp
    cp target/gpu/release/kcomp "$work/kcomp-gpu"
fi

card="none"
if command -v nvidia-smi >/dev/null 2>&1; then
    card=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)
fi
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')

if [ "$QUICK" = 1 ]; then
    preq_sets=(--set language.repeats=10 --set prequential.val_size=80)
    rep_sets=(--epochs 5 --vocab 4 --length 1)
    samples=128
else
    preq_sets=()
    rep_sets=()
    samples=1024
fi
"$work/kcomp-cpu" synth lookup --samples "$samples" --length 4 --vocab 4 --dim 8 --seed 0 \
    --out "$work/lookup" >/dev/null

csv="$out/gpu_timing.csv"
echo "workload,binary,backend,device,wall_seconds,result_bits,status" >"$csv"

# run NAME BINARY BACKEND DEVICE -- COMMAND...: times one command (capped at $limit s) and
# records its K (bits) from the JSON it prints.
run() {
    local name=$1 bin=$2 backend=$3 device=$4
    shift 5
    local t0 t1 status=ok json
    t0=$(date +%s.%N)
    if json=$(timeout "$limit" "$@" 2>"$work/err"); then :; else status="failed($?)"; fi
    t1=$(date +%s.%N)
    local bits
    bits=$(printf '%s' "$json" | python3 -c 'import json,sys
try:
    d = json.load(sys.stdin)
    t = d.get("terms") or {}
    print(d.get("k_data", t.get("learned_total_bits", "")))
except Exception:
    print("")' 2>/dev/null || true)
    local secs
    secs=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
    echo "$name,$bin,$backend,$device,$secs,$bits,$status" >>"$csv"
    echo "$name $bin $backend: $secs s ($status)" >&2
    [ "$status" = ok ] || head -c 400 "$work/err" >&2 || true
}

cfg=configs/prequential/emergent.toml
run emergent-reference cpu fast cpu -- "$work/kcomp-cpu" prequential --config "$cfg" \
    "${preq_sets[@]}" --set prequential.backend=fast --out "$work/preq-cpu-fast" --json --quiet
run emergent-reference cpu burn "cpu (flex)" -- "$work/kcomp-cpu" prequential --config "$cfg" \
    "${preq_sets[@]}" --set prequential.backend=burn --out "$work/preq-cpu-burn" --json --quiet
run represent-autoencoder cpu burn "cpu (flex)" -- "$work/kcomp-cpu" represent \
    --z "$work/lookup/Z.npy" --precision 0.01 --learner autoencoder "${rep_sets[@]}" \
    --out "$work/rep-cpu" --quiet --json
if [ "$GPU" = 1 ]; then
    run emergent-reference gpu burn "$card" -- "$work/kcomp-gpu" prequential --config "$cfg" \
        "${preq_sets[@]}" --set prequential.backend=burn --out "$work/preq-gpu-burn" --json --quiet
    run represent-autoencoder gpu burn "$card" -- "$work/kcomp-gpu" represent \
        --z "$work/lookup/Z.npy" --precision 0.01 --learner autoencoder "${rep_sets[@]}" \
        --out "$work/rep-gpu" --quiet --json
fi

# The table: each run's time as a ratio to the CPU burn run of the same workload.
python3 - "$csv" "$out/gpu_timing.md" "$card" "$cpu" "$QUICK" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
base = {r["workload"]: float(r["wall_seconds"]) for r in rows
        if r["binary"] == "cpu" and r["backend"] == "burn" and r["status"] == "ok"}
lines = [
    "# burn on the GPU against the CPU paths (one call, one machine)",
    "",
    f"GPU: {sys.argv[3]}; CPU: {sys.argv[4]}; sizes: {'quick (smoke run)' if sys.argv[5] == '1' else 'full'}.",
    "",
    "| workload | binary | backend | device | wall s | / CPU burn | result bits | status |",
    "|---|---|---|---|---|---|---|---|",
]
for r in rows:
    b = base.get(r["workload"])
    ratio = f"{float(r['wall_seconds']) / b:.2f}" if b and r["status"] == "ok" else "-"
    lines.append(f"| {r['workload']} | {r['binary']} | {r['backend']} | {r['device']} | "
                 f"{r['wall_seconds']} | {ratio} | {r['result_bits']} | {r['status']} |")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
