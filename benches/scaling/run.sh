#!/usr/bin/env bash
# The scaling curves of docs/performance.md, from a fresh clone, in one command:
#
#     bash benches/scaling/run.sh [scaling.py options, e.g. --curves length --lengths 10,1000]
#     bash benches/scaling/run.sh --curves length,locations --figures docs/img   # renew the guide's plots
#
# Builds the release binary, installs matplotlib into target/py-venv (MULTITRACE_VENV for
# another), and runs benches/scaling/scaling.py, which prints the tables and writes
# target/scaling/scaling.{md,json} and the plots target/scaling/scaling-*.svg (also into
# docs/img/ with --figures docs/img, for the curves measured). Peak memory comes from GNU time
# (/usr/bin/time, Debian's `time` package; installed with apt-get when missing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
venv="${MULTITRACE_VENV:-$root/target/py-venv}"
cargo build --release --locked --bin multitrace
if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$(dirname "$venv")"
    "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check matplotlib
if [ ! -x /usr/bin/time ] && command -v apt-get >/dev/null; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get install -y time >/dev/null 2>&1 || echo "note: no GNU time: peak memory from wait4" >&2
fi
"$venv/bin/python" benches/scaling/scaling.py --binary "$root/target/release/multitrace" "$@"
