#!/usr/bin/env bash
# The pm4py verdict-agreement test (benches/peers/test_pm4py_verdicts.py: 20 runs per model,
# a few seconds), for tests/run-all.sh: installs pm4py and pytest into target/py-venv when missing
# (MULTITRACE_VENV for another; the one python/test.sh uses), builds the debug binary (already
# built by `cargo test`) and runs the test. Exits non-zero when the verdicts differ.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
venv="${MULTITRACE_VENV:-$root/target/py-venv}"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
cargo build --locked --bin multitrace
if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$(dirname "$venv")"
    "${PYTHON:-python3}" -m venv "$venv"
fi
# python/test.sh (run before this by tests/run-all.sh) installs pm4py too: reuse it.
if ! "$venv/bin/python" -c 'import pm4py, pytest' 2>/dev/null; then
    "$venv/bin/pip" install -q 'pm4py>=2.7' pytest
fi
MULTITRACE_BIN="$target/debug/multitrace" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    -W ignore::DeprecationWarning -W ignore::PendingDeprecationWarning -W ignore::UserWarning \
    benches/peers/test_pm4py_verdicts.py
