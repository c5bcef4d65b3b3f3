#!/usr/bin/env bash
# BDM parity with pybdm on its full CTM tables. The tables are GPL-2 data (acss.data via
# pybdm), so they are fetched here from PyPI, never committed: pybdm's files only (--no-deps),
# into target/, then tests/bdm_parity.rs runs with KCOMP_PYBDM_CTM pointing at them.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
dir=target/pybdm
if [ ! -f "$dir/pybdm/ctmdata/ctm-b2-d12.pkl.gz" ]; then
    rm -rf "$dir"
    "$PY" -m pip install --quiet --disable-pip-version-check --no-deps --target "$dir" "pybdm==0.1.0"
fi
KCOMP_PYBDM_CTM="$PWD/$dir/pybdm" cargo test --release --test bdm_parity
