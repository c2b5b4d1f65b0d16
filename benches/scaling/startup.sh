#!/usr/bin/env bash
# Start-up as a ratio: a one-multitrace `check` of a compiled model against a Rust hello world,
# measured side by side in one run (hyperfine, alternating commands; a Python timing loop when
# hyperfine is absent and cannot be installed with apt-get).
#
#     bash benches/scaling/startup.sh [RUNS]      # default 400 runs per command
#     BASE=/tmp/old-multitrace bash benches/scaling/startup.sh   # an older build beside it
#
# Commands: a hello world (rustc -O), the same with a thread of the checking stack's size
# (what a checking-stack thread costs), `multitrace --version` (process, loading, clap), and
# `multitrace check mqtt.mtm example1.htf` (the MQTT fixture, compiled first; the staleness
# check of the .mtm against its source included: the plain form, parsed without clap and run
# on the main thread), the same `check` with an option at its default value (`--color auto`:
# clap and the checking-stack thread, what every other form of `check` takes), the same
# `check` with the statically linked build. Prints min and median wall times, the ratios to
# the hello world, CPU time (perf stat task-clock, when perf is present) and the load average.
#
# Every multitrace binary is measured as a copy (`cp`, as `cargo install` copies it): a file
# the linker has just written sits in the page cache in small pieces, and each start then
# takes about 25 more page faults than with the same bytes copied or read back from disk.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
runs="${1:-400}"
out="$root/target/startup"
mkdir -p "$out"
# The same binary linked statically against glibc (`-C target-feature=+crt-static`: no
# dynamic loader, no shared libraries to map and relocate). `cargo rustc` passes the flag to
# the final link only, reusing the dependencies; skipped (with a note) when it fails, e.g.
# without glibc's libc.a (Debian: libc6-dev). The default build is made again after it.
static=""
if cargo rustc --release --locked --bin multitrace -- -C target-feature=+crt-static; then
    rm -f "$out/multitrace-static"
    cp "$root/target/release/multitrace" "$out/multitrace-static"
    static="$out/multitrace-static"
else
    echo "note: no statically linked build (cargo rustc ... +crt-static failed)"
fi
cargo build --release --locked --bin multitrace
rm -f "$out/multitrace"
cp "$root/target/release/multitrace" "$out/multitrace"
b="$out/multitrace"
stack=$(grep -o 'CHECK_STACK_SIZE: usize = [^;]*' check/src/explore.rs | sed 's/.*= //')
printf 'fn main() { println!("Hello, world!"); }\n' > "$out/hello.rs"
cat > "$out/hello_thread.rs" <<RS
fn main() {
    let t = std::thread::Builder::new().stack_size($stack);
    t.spawn(|| println!("Hello, world!")).unwrap().join().unwrap();
}
RS
rustc -O "$out/hello.rs" -o "$out/hello"
rustc -O "$out/hello_thread.rs" -o "$out/hello_thread"
"$b" compile fixtures/seed004-mqtt/model.hif -o "$out/mqtt.mtm" 2>/dev/null
trace=fixtures/seed004-mqtt/traces/example1.htf
cmds=("$out/hello" "$out/hello_thread" "$b --version" "$b check $out/mqtt.mtm $trace"
    "$b check --color auto $out/mqtt.mtm $trace")
if [ -n "$static" ]; then
    cmds+=("$static check $out/mqtt.mtm $trace")
fi
# BASE=path/to/an/older/multitrace: its `check` too, in the same run (before and after),
# measured as a copy like the others.
if [ -n "${BASE:-}" ]; then
    rm -f "$out/multitrace-base"
    cp "$BASE" "$out/multitrace-base"
    BASE="$out/multitrace-base"
    cmds+=("$BASE check $out/mqtt.mtm $trace")
fi

if ! command -v hyperfine >/dev/null && command -v apt-get >/dev/null; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get install -y hyperfine >/dev/null 2>&1 || true
fi
echo "load average before: $(cat /proc/loadavg)"
if command -v hyperfine >/dev/null; then
    # (Its warnings about outliers, expected on a shared machine, go to hyperfine.log.)
    hyperfine -N --warmup 30 --runs "$runs" --export-json "$out/startup.json" "${cmds[@]}" \
        >/dev/null 2>"$out/hyperfine.log" || { cat "$out/hyperfine.log"; exit 1; }
else
    python3 - "$out/startup.json" "$runs" "${cmds[@]}" <<'PY'
import json, subprocess, sys, time
path, runs, cmds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
times = {c: [] for c in cmds}
for _ in range(runs):  # alternate the commands, so that load changes hit them all
    for c in cmds:
        t = time.perf_counter()
        subprocess.run(c.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[c].append(time.perf_counter() - t)
json.dump({"results": [{"command": c, "times": t} for c, t in times.items()]}, open(path, "w"))
PY
fi
echo "load average after: $(cat /proc/loadavg)"
python3 - "$out/startup.json" "${BASE:-}" <<'PY'
import json, statistics, sys
rs = json.load(open(sys.argv[1]))["results"]
base = sys.argv[2]
h = rs[0]["times"]
print("| command | min wall | median wall | min / hello min | median / hello median |")
print("|---|---:|---:|---:|---:|")
for r in rs:
    t = r["times"]
    name = " ".join(w.split("/")[-1] for w in r["command"].split())
    if base and r["command"].startswith(base + " "):
        name = "BASE: " + name
    print(f"| `{name}` | {min(t) * 1e3:.2f} ms | {statistics.median(t) * 1e3:.2f} ms "
          f"| {min(t) / min(h):.2f} | {statistics.median(t) / statistics.median(h):.2f} |")
PY
if command -v perf >/dev/null; then
    for c in "${cmds[@]}"; do
        name=""
        for w in $c; do name="$name${name:+ }${w##*/}"; done
        if [ -n "${BASE:-}" ] && [[ "$c" == "$BASE "* ]]; then name="BASE: $name"; fi
        printf '%s: ' "$name"
        perf stat -r 200 -e task-clock,page-faults $c 2>&1 >/dev/null |
            awk '/task-clock/ {printf "%s ms CPU, ", $1} /page-faults/ {printf "%s page faults\n", $1}'
    done
fi
