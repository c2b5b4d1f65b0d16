#!/usr/bin/env bash
# Fills corpus/<target>/ with the project's fixtures (run from fuzz/). The corpus directories
# are not committed (see ../.gitignore). Larger public samples, when present, can be given to
# `cargo fuzz run` as extra, read-only corpus directories (see README.md).
set -euo pipefail
cd "$(dirname "$0")"
fx=../fixtures
for t in hsf hif htf mtf timbuk mtm locations jsonl summary; do mkdir -p "corpus/$t"; done
n=0
for f in "$fx"/*/*.hsf; do cp "$f" "corpus/hsf/$((n++))-$(basename "$f")"; done
for f in "$fx"/*/*.hif; do cp "$f" "corpus/hif/$((n++))-$(basename "$f")"; done
for f in "$fx"/*/traces/*.htf; do cp "$f" "corpus/htf/$((n++))-$(basename "$f")"; done
for f in "$fx"/*/traces/*.mtf; do cp "$f" "corpus/mtf/$((n++))-$(basename "$f")"; done
for f in "$fx"/*/*.timbuk; do cp "$f" "corpus/timbuk/$((n++))-$(basename "$f")"; done
for f in "$fx"/golden/*.mtm; do
    # Mode 0: the whole file. Mode 1: the payload alone (bytes 32 .. len-8), framed by the
    # target with a correct header and checksum.
    b=$(basename "$f" .mtm)
    { printf '\x00'; cat "$f"; } > "corpus/mtm/$b.file"
    len=$(stat -c %s "$f")
    { printf '\x01'; tail -c +33 "$f" | head -c $((len - 40)); } > "corpus/mtm/$b.payload"
done
printf 'clt1,brok;clt2' > corpus/locations/groups
printf 'l1' > corpus/locations/single
printf 'a, e ; c,d;b' > corpus/locations/spaces
printf '{"id": "t1", "traces": {"l1": ["a", "e"], "l2": ["c"], "l3": []}}\n{"traces": {"l3": ["b", "b"]}}\n' > corpus/jsonl/two
printf '{"id": 7, "traces": {"l2": ["a17", "d"]}}\n' > corpus/jsonl/one
# Summaries: mode 0 (a file; the bad-input cases, some of them valid for the MQTT model) and
# mode 1 (a location, a mode and letters for `local_summary`).
for f in ../tests/bad_inputs/cases/summary-*.json; do
    { printf '\x00'; cat "$f"; } > "corpus/summary/$((n++))-$(basename "$f")"
done
printf '\x01\x00\x00\x03\x05' > corpus/summary/local-clt1
printf '\x01\x03\x01\x02' > corpus/summary/local-brok-prefix
echo "corpus seeded: $(find corpus -type f | wc -l) files"
