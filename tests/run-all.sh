#!/usr/bin/env bash
# The README's test command: every test of the project, on a fresh machine with a Rust
# toolchain and python3, installing what it needs by itself (a virtual environment under
# target/py-venv with maturin, pytest, pyspark, pyarrow and selenium from PyPI; Debian's
# python3-venv, chromium and chromium-driver with apt-get when missing).
#
#   1. Rust: unit, integration and doc tests of the workspace (the CLI end to end, the
#      data-driven bad inputs, the fixtures through every procedure, proptests).
#   2. Python: the `multitrace` package built with maturin and its pytest suite (python/test.sh),
#      the Spark jobs included when pyspark is installed by it.
#   3. Diagrams: what `draw --mermaid/--plantuml` writes, checked by Mermaid's parser (npm) and
#      PlantUML (tests/diagrams/run.sh).
#   4. Browser: the HTML report and the sequence diagram in headless Chromium
#      (tests/browser/run.sh).
#   4. The user guide: `mdbook build docs` (mdBook, pinned, installed under target/tools/ with
#      `cargo install` when missing); its examples run in the Rust tests (tests/cli/guide.rs).
#   6. pm4py (PyPI, installed into target/py-venv): its exact alignments agree with `check` on
#      generated runs (benches/peers/test.sh).
#
# Exits non-zero as soon as one part fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

echo "== Rust tests"
cargo test --workspace --all-targets --locked
cargo test --workspace --doc --locked
# The readers, the monitor and the batch without OpenTelemetry (their `otel` feature), and the
# command refusing --otel then.
cargo check -p multitrace-formats -p multitrace-monitor -p multitrace-batch --no-default-features --locked
cargo check -p multitrace --no-default-features --locked
# The fuzz targets (their own workspace) keep compiling against the libraries.
cargo check --manifest-path fuzz/Cargo.toml

echo "== User guide"
MDBOOK_VERSION=0.5.4
MDBOOK=target/tools/bin/mdbook
if ! "$MDBOOK" --version 2>/dev/null | grep -q "v$MDBOOK_VERSION"; then
    cargo install mdbook --locked --version "$MDBOOK_VERSION" --no-default-features \
        --features search --root target/tools
fi
"$MDBOOK" build docs

echo "== Diagram tools (Mermaid's parser, PlantUML) on the diagrams draw writes"
bash tests/diagrams/run.sh

echo "== Browser tests"
bash tests/browser/run.sh

echo "== Python tests"
bash python/test.sh

echo "== pm4py: the same verdicts on 20 runs per model (draw --pnml, gen --format xes)"
bash benches/peers/test.sh
