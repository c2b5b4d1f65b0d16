#!/usr/bin/env bash
# No source file of a library or program is over 800 lines (issue 49): a longer file is split
# by topic, as tests/file-cycles.sh's DAG guides.
#
#   bash tests/file-sizes.sh                   # the whole repository
#   bash tests/file-sizes.sh python monitor    # some directories only
#   MAX_LINES=600 bash tests/file-sizes.sh     # another limit
#
# Counts the lines of every Rust (.rs) and Python (.py) file, an inline `#[cfg(test)] mod
# tests { ... }` included, and skips the test code kept in files of its own:
# - files under a directory named tests/ (integration tests, python/tests, tests/cli),
# - files named tests.rs or *_tests.rs,
# - the files of `#[cfg(test)] mod name;` (with `#[path = "..."]` too) and of their child
#   modules, found by `tests/file-cycles.sh --test-files` (the same detection as that script's),
# - benches/, fuzz/, target/, hidden directories and directories holding a .git of their own
#   (worktrees, other clones),
# - generated files: those whose first five lines say `@generated` (the usual marker; none
#   today, every table in the sources is written by hand).
# The command's own code (src/, every .rs file with its tests) stays under SRC_MAX_LINES
# (1,500) in all: the binary parses arguments and prints, the libraries do the rest (issue 49;
# docs/layout.md). Checked when the whole repository is.
# Prints each file over the limit with its line count, longest first, and exits 1 if there is
# one, 0 otherwise. Needs python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tests_only="$(bash tests/file-cycles.sh --test-files)"
exec python3 - "${MAX_LINES:-800}" "$tests_only" "${SRC_MAX_LINES:-1500}" "$@" <<'PY'
import os, sys

limit = int(sys.argv[1])
test_files = {os.path.normpath(f) for f in sys.argv[2].split('\n') if f}
src_limit = int(sys.argv[3])
roots = [os.path.normpath(d) for d in sys.argv[4:]] or ['.']
SKIP = {'tests', 'benches', 'fuzz', 'target', 'node_modules'}

def generated(path):
    with open(path, errors='replace') as f:
        return any('@generated' in next(f, '') for _ in range(5))

over = []
for top in roots:
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith('.')
                         and not os.path.exists(os.path.join(root, d, '.git')))
        for name in sorted(files):
            if not name.endswith(('.rs', '.py')): continue
            if name == 'tests.rs' or name.endswith('_tests.rs'): continue
            path = os.path.normpath(os.path.join(root, name))
            if path in test_files or generated(path): continue
            with open(path, 'rb') as f:
                n = f.read().count(b'\n')
            if n > limit:
                over.append((n, path))
for n, path in sorted(over, key=lambda x: (-x[0], x[1])):
    print(f"{path}: {n} lines (over {limit})")
src_over = False
if roots == ['.']:
    total = 0
    for root, dirs, files in os.walk('src'):
        for name in files:
            if name.endswith('.rs'):
                with open(os.path.join(root, name), 'rb') as f:
                    total += f.read().count(b'\n')
    if total > src_limit:
        print(f"src/: {total} lines in all (over {src_limit}): move what is not argument parsing or printing into a library")
        src_over = True
sys.exit(1 if over or src_over else 0)
PY
