#!/usr/bin/env bash
# Seed 001's benchmark as its paper runs it: one process per folder of the HIBOU sample
# (../shared/data/hibou-lfrem-sample: 10 interactions, 5 folders of 240 multitraces each),
# prefix mode, the interaction compiled (or explored) by each process.
#
#     bash benches/scaling/hibou.sh [BINARY] [REPEAT] [CHECK OPTIONS...]
#
# Default: the release build, least of 3, `check`'s default options (the WeakPass explanation
# included); e.g. `bash benches/scaling/hibou.sh "" 3 --no-diagnosis` for the verdicts alone.
#
# Prints, per interaction, the procedure its records name, the least wall time of the five
# folders' processes (each repeated REPEAT times, the least kept) and the time per multitrace
# (wall time of the processes over their multitraces), the same for CPU time (user + system,
# steadier than wall time on a loaded machine), then the whole sample's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$root/../shared/data/hibou-lfrem-sample/gen_ints"
if [ ! -d "$data" ]; then
    echo "skipped: $data is absent"
    exit 0
fi
b="${1:-}"
if [ -z "$b" ]; then
    (cd "$root" && cargo build --release --locked --bin multitrace)
    b="$root/target/release/multitrace"
fi
echo "load average before: $(cat /proc/loadavg)"
python3 - "$b" "$data" "${2:-3}" "${@:3}" <<'PY'
import json, resource, subprocess, sys, time
from pathlib import Path
b, data, repeat, extra = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
kinds = ["accepted", "slices", "noise", "swap_act", "swap_comp"]
print("| interaction | procedure | multitraces | wall time (5 processes) | per multitrace | CPU time | per multitrace |")
print("|---|---|---:|---:|---:|---:|---:|")
total_n, total_t, total_c = 0, 0.0, 0.0
for i in range(10):
    model = data / f"i{i}.hif"
    n, wall, cpu, procs = 0, 0.0, 0.0, set()
    for k in kinds:
        files = sorted(str(p) for p in (data / f"i{i}_{k}").glob("*.htf"))
        best = None
        for _ in range(repeat):
            t = time.perf_counter()
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run([b, "check", str(model), *files, "--mode", "prefix",
                                "--jobs", "1", "--format", "jsonl", *extra],
                               capture_output=True, text=True)
            t = time.perf_counter() - t
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            c = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
            best = (t, c) if best is None else (min(best[0], t), min(best[1], c))
        recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        assert len(recs) == len(files), (model, k, p.stderr[-500:])
        procs |= {r["procedure"] for r in recs if r.get("procedure")}
        n += len(files)
        wall += best[0]
        cpu += best[1]
    total_n += n
    total_t += wall
    total_c += cpu
    print(f"| i{i} | {', '.join(sorted(procs))} | {n} | {wall * 1e3:.1f} ms | {wall / n * 1e6:.1f} µs | {cpu * 1e3:.1f} ms | {cpu / n * 1e6:.1f} µs |")
print(f"| all | | {total_n} | {total_t * 1e3:.1f} ms | {total_t / total_n * 1e6:.1f} µs | {total_c * 1e3:.1f} ms | {total_c / total_n * 1e6:.1f} µs |")
PY
echo "load average after: $(cat /proc/loadavg)"
