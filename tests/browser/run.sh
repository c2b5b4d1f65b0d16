#!/usr/bin/env bash
# Browser test of the pictures (issue 14): opens the HTML report of `check --report` in headless
# Chromium (Debian packages `chromium` and `chromium-driver`, installed when missing), driven by
# Selenium (from PyPI, into the virtual environment target/py-venv, created when missing), and
# checks what a person would see:
#   - the report of the MQTT fixture's traces: the counts, the table filtered by verdict, and the
#     blocked action of example2.htf (brok action 2 'brok?pub') highlighted in its lane;
#   - the sequence diagram of the MQTT model: well-formed XML, rendered by the browser;
#   - a report of 100,000 multitraces: its size, and the time until its table is usable in
#     Chromium (must be under 2 s), filtering included;
#   - names outside the BMP (issue 22): `😀😀beta.htf` after `😀😀alpha.htf` is shown whole in
#     the table (the page rebuilds each name from the previous one's prefix, in UTF-16 units).
# Screenshots and pages are left in target/browser/ (look at them). Exits non-zero on failure.
#
# Environment: MULTITRACE_BROWSER_BIG=0 skips the 100,000-multitrace report.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="$root/target/browser"
mkdir -p "$out"

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "tests/browser/run.sh: installing chromium and chromium-driver" >&2
    $sudo apt-get update
    $sudo apt-get install -y chromium chromium-driver
fi

venv="$root/target/py-venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pip' 2>/dev/null; then
    rm -rf "$venv"
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        rm -rf "$venv"
        $sudo apt-get update
        $sudo apt-get install -y python3-venv
        "$python" -m venv "$venv"
    fi
fi
if ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
    "$venv/bin/python" -m pip --disable-pip-version-check --quiet install 'selenium>=4.10,<5'
fi

cargo build --release --locked --bin multitrace
bin="$root/target/release/multitrace"

# The MQTT fixture's report (exit status 1: some multitraces fail) and diagram.
set +e
"$bin" check fixtures/seed004-mqtt/model.hif fixtures/seed004-mqtt/traces/ \
    --report "$out/mqtt-report.html" --no-progress > "$out/mqtt-check.txt"
status=$?
set -e
if [ "$status" != 1 ]; then
    echo "tests/browser/run.sh: check --report exited $status, expected 1" >&2
    cat "$out/mqtt-check.txt" >&2
    exit 1
fi
"$bin" draw fixtures/seed004-mqtt/model.hif --diagram -o "$out/mqtt-diagram.svg"

# Two traces whose names share a prefix of characters outside the BMP (two UTF-16 units each).
nb="$out/non-bmp"
rm -rf "$nb"
mkdir -p "$nb"
cp fixtures/seed004-mqtt/traces/example1.htf "$nb/😀😀alpha.htf"
cp fixtures/seed004-mqtt/traces/example2.htf "$nb/😀😀beta.htf"
set +e
"$bin" check fixtures/seed004-mqtt/model.hif "$nb/😀😀alpha.htf" "$nb/😀😀beta.htf" \
    --report "$out/non-bmp-report.html" --no-progress > "$out/non-bmp-check.txt"
status=$?
set -e
if [ "$status" != 1 ]; then
    echo "tests/browser/run.sh: check --report of the non-BMP names exited $status, expected 1" >&2
    exit 1
fi

big_args=()
if [ "${MULTITRACE_BROWSER_BIG:-1}" != 0 ]; then
    "$venv/bin/python" tests/browser/make_batch.py 100000 "$out/batch-100k.jsonl"
    start=$(date +%s%N)
    set +e
    "$bin" check fixtures/seed004-mqtt/model.hif "$out/batch-100k.jsonl" --format jsonl \
        --report "$out/report-100k.html" --no-progress > "$out/batch-100k.records.jsonl"
    status=$?
    set -e
    end=$(date +%s%N)
    if [ "$status" != 1 ]; then
        echo "tests/browser/run.sh: check of 100,000 multitraces exited $status, expected 1" >&2
        exit 1
    fi
    echo "100,000 multitraces: check --report took $(( (end - start) / 1000000 )) ms"
    big_args=(--big "$out/report-100k.html")
fi

"$venv/bin/python" tests/browser/test_report.py --out "$out" \
    --report "$out/mqtt-report.html" --diagram "$out/mqtt-diagram.svg" \
    --non-bmp "$out/non-bmp-report.html" --non-bmp-names "$nb/😀😀alpha.htf" "$nb/😀😀beta.htf" \
    "${big_args[@]}"
