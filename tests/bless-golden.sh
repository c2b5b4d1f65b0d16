#!/usr/bin/env bash
# Regenerates every committed compiled model (`.mtm`) that the compiler builds, after an
# intended change of the format or of the payload: the golden artifacts
# fixtures/golden/*.vN.mtm (N = FORMAT_VERSION) and the hostile artifact of the bad-input case
# mtm-hostile-alphabet. The tests that compare them (`golden` in
# compiler/tests/compiler/artifacts.rs) run after writing, so a failure here is a real one.
# Old versions' files are not removed: `git rm` them when FORMAT_VERSION was bumped.
# Usage: bash tests/bless-golden.sh   (from anywhere in the repository)
set -euo pipefail
cd "$(dirname "$0")/.."
MULTITRACE_BLESS=1 cargo test -p multitrace-compiler --test compiler golden
git status --short -- fixtures/golden tests/bad_inputs/cases
