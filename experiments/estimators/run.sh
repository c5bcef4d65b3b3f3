#!/usr/bin/env bash
# Regenerates experiments/estimators/ (the cross-check of every code-length estimator against
# exact K): bash experiments/estimators/run.sh
#
# bdm needs pybdm's CTM tables (GPL-2, not shipped): set KCOMP_PYBDM_CTM to a pybdm
# installation, e.g.
#   python -m venv /tmp/pybdm-venv && /tmp/pybdm-venv/bin/pip install pybdm==0.1.0
#   export KCOMP_PYBDM_CTM=/tmp/pybdm-venv/lib/python3.11/site-packages/pybdm
# Without it the panel still runs and reports bdm as not applicable.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${KCOMP_PYBDM_CTM:-}" ]; then
    echo "warning: KCOMP_PYBDM_CTM is not set: bdm will be reported as not applicable" >&2
fi
cargo build --release --bin kcomp
out=experiments/estimators/panel
start=$(date +%s)
# --force: this script owns the folder (it replaces the previous run's files).
target/release/kcomp compare configs/compare/estimators.toml --out "$out" --force --threads 2
echo "wall time $(( $(date +%s) - start )) s on $(nproc) cores" | tee "$out/wall_time.txt"

# Requential on held-out lookup tables (seeds and shapes used nowhere else), with the default
# learners and again with a 3-gram learner added to both codes (the rest as their defaults).
target/release/kcomp compare configs/compare/requential-heldout.toml \
    --out experiments/estimators/heldout --force --threads 2
target/release/kcomp compare configs/compare/requential-heldout.toml \
    --out experiments/estimators/heldout-ngram3 --force --threads 2 \
    --set 'requential.learners=["marginal","ngram2","ngram3","linear1","linear2","mlp-linear"]' \
    --set 'prequential.config.online.learners=["marginal","ngram2","ngram3","rules","linear1","linear2","mlp-linear","mlp256"]'
