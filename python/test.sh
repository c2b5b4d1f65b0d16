#!/usr/bin/env bash
# Builds the Python package and runs its tests, on a machine with only Rust and python3.
#
# A virtual environment is created under target/py-venv (at the repository root; another place
# with MULTITRACE_VENV) and reused by later runs; maturin and pytest are installed into it, then the package is built and installed
# with `pip install ./python`, and pytest runs python/tests. Exits non-zero on any failure.
#
# Environment: MULTITRACE_DATA (default ../shared/data) for the tests on external data sets
# (skipped when absent); PYTEST_ARGS for extra pytest arguments; MULTITRACE_VENV for the virtual
# environment; CARGO_TARGET_DIR (default target/) is where the binary and the extension are built.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="${MULTITRACE_VENV:-$root/target/py-venv}"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
python="${PYTHON:-python3}"

if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)'; then
    echo "python/test.sh: $python is older than 3.9; the package needs CPython 3.9 or later" >&2
    exit 1
fi

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pip' 2>/dev/null; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        # Debian and Ubuntu ship the venv module (and ensurepip) separately.
        echo "python/test.sh: the venv module is missing; installing python3-venv" >&2
        rm -rf "$venv"
        sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
        $sudo apt-get update
        minor="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        $sudo apt-get install -y python3-venv || $sudo apt-get install -y "python$minor-venv"
        "$python" -m venv "$venv"
    fi
fi

# maturin's build hook runs the `maturin` program: the venv's bin/ comes first.
export PATH="$venv/bin:$PATH"
export VIRTUAL_ENV="$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
# Build and test tools, installed once (pip does nothing when they are present).
if ! "$venv/bin/python" -c 'import maturin, pytest' 2>/dev/null; then
    "${pip[@]}" install 'maturin>=1.5,<2' 'pytest>=7'
fi
# The Spark tests (tests/test_spark.py, local[2]; Java 17 is needed): the `spark` extra.
if ! "$venv/bin/python" -c 'import pyspark, pyarrow, pandas' 2>/dev/null; then
    "${pip[@]}" install 'pyspark>=3.5,<4.1' 'pyarrow>=12' 'pandas>=1.5'
fi

# An independent XES reader and writer (tests/test_xes_pm4py.py); the OpenTelemetry SDK for the
# worked example (tests/test_otel_example.py).
if ! "$venv/bin/python" -c 'import pm4py' 2>/dev/null; then
    "${pip[@]}" install 'pm4py>=2.7'
fi
if ! "$venv/bin/python" -c 'import opentelemetry.sdk, opentelemetry.exporter.otlp.proto.common' 2>/dev/null; then
    "${pip[@]}" install 'opentelemetry-sdk>=1.20' 'opentelemetry-exporter-otlp-proto-common>=1.20'
fi

# The release binary, to compare the Python API's records with the command line's.
cargo build --release --locked --bin multitrace

# Build the extension in release mode (cargo's incremental build keeps a rerun fast) and
# install it; --no-build-isolation uses the maturin installed above instead of downloading one
# for every build.
"${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./python

export MULTITRACE_BIN="$target/release/multitrace"
# From the tests' directory, so that the source tree's multitrace/ (without the built
# extension) does not shadow the installed package.
cd "$root/python/tests"
# shellcheck disable=SC2086
exec "$venv/bin/python" -m pytest -q -rs . ${PYTEST_ARGS:-}
