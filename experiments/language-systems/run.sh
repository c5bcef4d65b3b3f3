#!/usr/bin/env bash
# C^L(Z) against the holistic fraction h on the emergent protocol (Elmoznino et al., ICML 2025, Section 4.2):
# 2 attributes x 8 values, 2-word messages over 8 symbols, 50 utterances per object, 400
# validation rows, chunks of 50, MLP 64-emb / 256-256, Adam 1e-3, patience 50, tol 1e-3.
# Each (h, seed) uses language seed = model seed = seed. Writes results/ next to this script:
# runs.csv, table.csv, table.md, c_l_vs_h.png and one folder per run (result.json, curve.csv,
# curve.png, config.toml). Usage (from the repository root):
#   bash experiments/language-systems/run.sh [SEEDS]
# Runs already in results/ with the same settings are kept (--resume).
set -euo pipefail
SEEDS="${1:-5}"
cargo build --release
./target/release/kcomp prequential --config configs/prequential/emergent.toml \
  --sweep-h 0,0.25,0.5,0.75,1 --seeds "$SEEDS" --out experiments/language-systems/results --resume
