#!/usr/bin/env bash
# Runs the bad-input harness (tests/bad_inputs.rs: every case against the built binary) and
# prints its tally: "tried N / clean errors N / correct numbers N / panics N / timeouts N".
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test --release --test bad_inputs -- --nocapture 2>&1 |
    grep -E '^(tried|WRONG|PANIC|TIMEOUT)|^test result'
