#!/usr/bin/env python3
"""Multitraces per second: ``Model.check_many`` against the command line, on the same set.

A set of multitraces is generated once (``Model.generate``, the ``gen`` categories), written as
JSON Lines for the command line, and checked:

- ``cli``: ``multitrace check MODEL.mtm SET.jsonl --format jsonl --jobs N`` (output to
  /dev/null; the wall time of the whole process, model loading included);
- ``check_many``: ``model.check_many(items, jobs=N)`` on the same multitraces held as Python
  dicts, every Result consumed;
- ``check_files``: ``model.check_files([SET.jsonl], jobs=N)`` (the command line's reading, from
  Python).

Each figure is the median of ``--runs`` runs. Usage (from the repository root, with the
package installed, e.g. by ``bash python/test.sh``)::

    target/py-venv/bin/python python/bench.py --count 20000 --jobs 1 2

The goal: ``check_many`` at least 80% of the command line's rate on one thread, and scaling
with ``jobs``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The source tree's multitrace/ (without the built extension) must not shadow the installed
# package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import multitrace  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def median_time(f, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default=str(ROOT / "fixtures" / "seed004-mqtt" / "model.hif"))
    p.add_argument("--kind", default="pass", help="a gen category (default: pass)")
    p.add_argument("--count", type=int, default=20000, help="multitraces in the set")
    p.add_argument("--distinct", type=int, default=2000,
                   help="distinct multitraces generated (the set repeats them)")
    p.add_argument("--length", default="20..60", help="total length MIN..MAX")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--cli", default=os.environ.get(
        "MULTITRACE_BIN", str(ROOT / "target" / "release" / "multitrace")))
    args = p.parse_args()

    lo, hi = (int(x) for x in args.length.split(".."))
    model = multitrace.compile(args.model)
    distinct = model.generate(args.kind, count=min(args.distinct, args.count),
                              length=(lo, hi), seed=args.seed)
    mode = distinct[0]["mode"]
    items = [distinct[i % len(distinct)] for i in range(args.count)]
    items = [{"id": f"t{i}", "traces": it["traces"]} for i, it in enumerate(items)]

    with tempfile.TemporaryDirectory() as tmp:
        mtm = Path(tmp) / "model.mtm"
        model.save(mtm)
        jsonl = Path(tmp) / "set.jsonl"
        with open(jsonl, "w") as f:
            for it in items:
                f.write(json.dumps(it) + "\n")
        print(f"model {args.model} ({model.kind}, {len(model.locations)} locations); "
              f"{args.count} `{args.kind}` multitraces ({len(distinct)} distinct), "
              f"length {lo}..{hi}, {mode} mode; median of {args.runs} runs; "
              f"{os.cpu_count()} cores")
        print(f"{'jobs':>4}  {'cli /s':>10}  {'check_many /s':>14}  {'ratio':>6}  "
              f"{'check_files /s':>15}")
        for jobs in args.jobs:
            cmd = [args.cli, "check", str(mtm), str(jsonl), "--format", "jsonl",
                   "--jobs", str(jobs), "--mode", mode, "--no-progress"]

            def cli():
                subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)

            def many():
                n = 0
                for _ in model.check_many(items, jobs=jobs, mode=mode):
                    n += 1
                assert n == len(items)

            def files():
                n = sum(1 for _ in model.check_files([jsonl], jobs=jobs, mode=mode))
                assert n == len(items)

            t_cli = median_time(cli, args.runs)
            t_many = median_time(many, args.runs)
            t_files = median_time(files, args.runs)
            r_cli, r_many, r_files = (args.count / t for t in (t_cli, t_many, t_files))
            print(f"{jobs:>4}  {r_cli:>10.0f}  {r_many:>14.0f}  {r_many / r_cli:>6.2f}  "
                  f"{r_files:>15.0f}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
