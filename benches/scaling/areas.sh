#!/usr/bin/env bash
# What the areas of the local verifiers cost (issue 24, scope 3): for each model, the artifact's
# size, the compile's peak memory and CPU time (GNU time), and the CPU time of `check` on 1,000
# generated `pass` runs of 200 actions (20,000 for the
# AutomatArk NFAs, whose checks are too short to time otherwise) (one process, --jobs 1, AS).
#
#   bash benches/scaling/areas.sh [BINARY] [WORKDIR]
#
# BINARY defaults to target/release/multitrace (build it first); WORKDIR to target/areas. Models:
# the generated rings of benches/scaling/scaling.py (`timbuk`, one location) of 10,000, 30,000
# and 100,000 states, and the four AutomatArk NFAs of ../shared/data (skipped when absent) with
# seed 004's three locations and with one location. Prints one TSV row per model.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-target/release/multitrace}")
work=${2:-target/areas}
mkdir -p "$work"
work=$(realpath "$work")
sizes=${AREAS_SIZES:-10000 30000 100000}
runs=${AREAS_RUNS:-1000}
nfa_runs=${AREAS_NFA_RUNS:-20000}

# CPU seconds (user + system), peak RSS in MiB and exit status of one command.
measure() {
  local log="$work/time.log" rc=0
  /usr/bin/time -v -o "$log" "$@" >/dev/null 2>"$work/stderr.log" || rc=$?
  awk -F': ' -v rc="$rc" '
    /User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2}
    END {printf "%.3f\t%.1f\t%d", u+s, m/1024, rc}' "$log"
}

row() { # name runs model [compile options...]
  local name=$1 runs=$2 model=$3
  shift 3
  local mtm="$work/$name.mtm" c size="-" chk="-" runsdir="$work/$name-runs"
  c=$(measure "$bin" compile "$model" -o "$mtm" "$@")
  if [ "${c##*$'\t'}" != 0 ]; then
    printf '%s\t%s\trefused: %s\n' "$name" "$c" "$(tail -c 200 "$work/stderr.log" | tr '\n\t' '  ')"
    return
  fi
  size=$(stat -c %s "$mtm")
  if [ ! -d "$runsdir" ]; then
    "$bin" gen "$mtm" --kind pass --count "$runs" --length 200..200 --seed 24 -o "$runsdir" >/dev/null
  fi
  chk=$(measure "$bin" check "$mtm" "$runsdir" --mode complete --procedure as --jobs 1 -q)
  printf '%s\t%s\t%s\t%s\n' "$name" "$c" "$size" "$chk"
}

echo "# load: $(cat /proc/loadavg)"
printf 'model\tcompile_cpu_s\tcompile_peak_mib\tcompile_rc\tartifact_bytes\tcheck_cpu_s\tcheck_peak_mib\tcheck_rc\n'
for n in $sizes; do
  model="$work/ring$n.timbuk"
  [ -e "$model" ] || python3 -c "import sys; sys.path.insert(0, 'benches/scaling'); import scaling; open('$model', 'w').write(scaling.timbuk($n))"
  row "ring$n" "$runs" "$model"
done
data=../shared/data/automatark/NFA
if [ -d "$data" ]; then
  three='a0,a1,a2,a3,a4,a5,a16;a6,a7,a8,a9,a10,a17,a18;a11,a12,a13,a14,a15'
  one='a0,a1,a2,a3,a4,a5,a16,a6,a7,a8,a9,a10,a17,a18,a11,a12,a13,a14,a15'
  for nfa in Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_12 Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_11 \
    Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_6 IBakery4pBinEnc-FbtOneOne-Nondet/armcNFA_inclTest_10; do
    name=${nfa##*_}
    row "nfa$name-3loc" "$nfa_runs" "$data/$nfa.timbuk" --locations "$three"
    row "nfa$name-1loc" "$nfa_runs" "$data/$nfa.timbuk" --locations "$one"
  done
else
  echo "# $data absent: the AutomatArk rows are skipped" >&2
fi
echo "# load: $(cat /proc/loadavg)"
