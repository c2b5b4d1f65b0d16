#!/usr/bin/env bash
# multitrace against pm4py, from a fresh clone, in one command:
#
#     bash benches/peers/run.sh [pm4py_compare.py options, e.g. --sizes 1000 --cap 20]
#
# Builds the release binary, installs pm4py, matplotlib and pytest into the virtual environment
# target/py-venv (the one python/test.sh uses; MULTITRACE_VENV for another), runs the small
# verdict-agreement test (benches/peers/test_pm4py_verdicts.py, 20 runs per model) and then
# benches/peers/pm4py_compare.py, which prints the table and writes target/peers/pm4py.{md,json,svg}.
# Needs python3 (3.9 or later) with its venv module, and network access to PyPI the first time.
# Environment: MULTITRACE_DATA (default ../shared/data) for the AutomatArk NFA12 (skipped when
# absent); PM4PY_VERSION to pin pm4py (docs/performance.md names the version it measured).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
venv="${MULTITRACE_VENV:-$root/target/py-venv}"
python="${PYTHON:-python3}"

cargo build --release --locked --bin multitrace

if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$venv"
fi
"$venv/bin/pip" install -q "pm4py${PM4PY_VERSION:+==$PM4PY_VERSION}" matplotlib pytest

export MULTITRACE_BIN="$root/target/release/multitrace"
"$venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning \
    -W ignore::PendingDeprecationWarning -W ignore::UserWarning benches/peers/test_pm4py_verdicts.py
"$venv/bin/python" benches/peers/pm4py_compare.py --binary "$MULTITRACE_BIN" "$@"
