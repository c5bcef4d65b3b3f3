#!/usr/bin/env bash
# The Python package (python/): installs maturin, pytest and numpy with pip when missing,
# builds the abi3 wheel, installs it and runs pytest. The tests compare with the `kcomp`
# binary that `cargo test --release` built just before (target/release/kcomp).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
missing=()
for module in maturin pytest numpy; do
    "$PY" -c "import $module" 2>/dev/null || missing+=("$module")
done
if [ ${#missing[@]} -gt 0 ]; then
    "$PY" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
fi
cargo build --release --bin kcomp
start=$(date +%s)
rm -rf target/wheels
# No auditwheel repair: the wheel links the system fontconfig (plots), and it is built for
# this machine, not for PyPI.
"$PY" -m maturin build --release --quiet --auditwheel skip -m python/Cargo.toml --interpreter "$PY" --out target/wheels
echo "python wheel built in $(( $(date +%s) - start )) s"
"$PY" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/kcomp-*.whl
status=0
"$PY" -m pytest -q python/tests || status=$?
if [ "$status" -eq 5 ]; then
    # pytest's "no tests collected": the suite was not found or not collected, so the
    # package is untested. That is a failure, not a pass.
    echo "error: pytest collected no Python tests (python/tests)" >&2
    exit 1
fi
exit "$status"
