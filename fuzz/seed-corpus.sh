#!/usr/bin/env bash
# Fills corpus/<target>/ with the project's fixtures (run from fuzz/). The corpus directories
# are not committed (see ../.gitignore). Larger public samples, when present, can be given to
# `cargo fuzz run` as extra, read-only corpus directories (see README.md).
set -euo pipefail
cd "$(dirname "$0")"
fx=../fixtures
for t in hsf hif htf mtf timbuk mtm locations jsonl summary events; do mkdir -p "corpus/$t"; done
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
# Event logs: a mode byte (even JSON Lines, odd CSV; 2: declared sorted) and a line-length
# byte (0: no small limit), then the log.
printf '\x00\x00{"run": "s1", "action": "a", "order": 1}\n{"run": "s1", "action": "c", "order": 2}\n{"run": "s2", "action": "b", "order": "x"}\n{"action": "e"}\n' > corpus/events/jsonl
printf '\x03\x00run,action,order\ns1,a,1\ns1,e,2\ns2,b,2024-01-01T00:00:00Z\n' > corpus/events/csv-sorted
printf '\x00\x30{"run": "s1", "action": "a", "order": 1}\n{"run": "s1", "action": "e", "order": 2, "pad": "xxxxxxxxxxxxxxxxxxxx"}\n' > corpus/events/long-line
echo "corpus seeded: $(find corpus -type f | wc -l) files"
