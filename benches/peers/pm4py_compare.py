"""multitrace against pm4py on the same runs: verdicts compared, time per run measured.

For each model (the MQTT fixture with its three lifelines at one location, and the AutomatArk
NFA12 as one location when ../shared/data is present) and each log size, the script

1. compiles the model once (`multitrace compile`, timed apart) and writes its NFA as a PNML
   Petri net with `multitrace draw MODEL --pnml` (a state machine net whose language is the
   NFA's: see `report/src/pnml.rs`);
2. generates the runs with `multitrace gen --format xes`, 20-250 actions, one location: half
   `pass` (accepted runs), half `local-error` (one action mutated; every one checked to fail);
3. checks the whole log with `multitrace check MODEL.mtm --xes pass.xes local-error.xes --mode
   complete --jobs 1` (one core), timed as a process from start to exit: reading the XES,
   checking, the diagnosis of every Fail and writing the records included (least wall time of
   `--repeat` runs); and the same runs as JSON Lines (`gen --format jsonl`, same seed; the
   script checks that the actions and the verdicts are the same), multitrace's own format;
4. gives pm4py the same runs, read from the same XES files, and times its alignment-based
   conformance, exact, with two of its variants (its default, A* with the state equation, which
   `pm4py.conformance_diagnostics_alignments` uses, and Dijkstra with less memory, as exact and
   much faster on these state machine nets), and its token-based replay, one core (BLAS
   threads 1, no multiprocessing). pm4py is slow, so it gets a sample: the
   runs in file order, pass and local-error alternating, in chunks of `--chunk` until
   `--cap` seconds are spent (per method, model and size) or the log is done; its time per
   run is over the runs it did (the default variant, minutes per NFA12 run, only at the sizes
   of `--astar-sizes`: the first one unless told). multitrace always checks the whole log. Only pm4py's
   computation is timed (not its reading of the XES, reported apart), while multitrace's time
   includes everything: the comparison leans in pm4py's favour;
5. compares the verdicts on every run pm4py aligned: a run is Pass exactly when its optimal
   alignment has cost 0 apart from silent moves (no log move, no visible model move; pm4py
   counts 10,000 per visible deviation and 1 per silent move). Token-based replay's
   `trace_is_fit` is compared too, but replay is a heuristic on nets with duplicate labels and
   silent transitions (an NFA's nondeterminism), so its disagreements are counted, not asserted.

It prints a Markdown table, and writes it with the raw figures (JSON) and a plot (runs per
second against log size, both tools, SVG) to the output directory. Exit status 1 when
alignments and multitrace disagree on any run.

Run it with `bash benches/peers/run.sh` (builds the binary, installs pm4py and matplotlib into
target/py-venv). pm4py is AGPL-licensed; it is a peer measured here, never a dependency.
"""

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

# One core for pm4py's numerical libraries too (set before numpy is imported).
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

ROOT = Path(__file__).resolve().parents[2]
QUIET = {"show_progress_bar": False}

# What pm4py is timed on: (key, label, alignment variant or None for token-based replay).
# The default variant is what `pm4py.conformance_diagnostics_alignments` uses; Dijkstra (less
# memory) is also exact (the same optimal cost) and much faster on these state machine nets,
# so the ratio is given against both.
METHODS = [
    ("astar", "alignments, A* + state equation (pm4py's default)", "VERSION_STATE_EQUATION_A_STAR"),
    ("dijkstra", "alignments, Dijkstra less memory", "VERSION_DIJKSTRA_LESS_MEMORY"),
    ("replay", "token-based replay", None),
]


def models(data: Path):
    """(name, model path, location options) of the models that are present."""
    out = [
        (
            "MQTT",
            ROOT / "fixtures/seed004-mqtt/model.hif",
            ["--locations", "clt1,brok,clt2"],
        )
    ]
    readme = data / "README.md"
    nfa12 = data / "automatark/NFA/Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_12.timbuk"
    if nfa12.exists():
        # One location: every letter of the automaton at the one observer (the data's README
        # lists the letters a0-a18 of its three locations).
        letters = ",".join(f"a{i}" for i in range(19))
        out.append(("AutomatArk NFA12", nfa12, ["--locations", letters]))
    else:
        print(f"note: {nfa12} is absent (see {readme}): the NFA12 rows are skipped",
              file=sys.stderr)
    return out


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({p.returncode}): {p.stderr}")
    return p


def generate(binary, model, locs, n, seed, out, fmt):
    """`n` runs, half pass and half local-error, as XES or JSON Lines (the same runs: `gen`'s
    runs depend on the seed, not on the format; checked by the caller); returns the files."""
    files = []
    for kind, count in (("pass", (n + 1) // 2), ("local-error", n // 2)):
        if count == 0:
            continue
        d = out / f"{kind}-{n}-seed{seed}-{fmt}"  # kept for the next run of the script
        f = d / f"{kind}.{fmt}"
        if not f.exists():
            run([binary, "gen", model, *locs, "--kind", kind, "--count", count,
                 "--length", "20..250", "--seed", seed, "-o", d, "--format", fmt])
        files.append(f)
    return files


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def check(binary, mtm, files, repeat):
    """Verdicts of `multitrace check` (complete mode, one job), the least wall time and the
    least CPU time (user + system, of the process); `files` are XES logs or JSON Lines files."""
    best = None
    best_cpu = None
    xes = ["--xes"] if str(files[0]).endswith(".xes") else []
    for _ in range(repeat):
        t = time.perf_counter()
        c = children_cpu()
        p = subprocess.run([str(binary), "check", str(mtm), *xes, *map(str, files),
                            "--mode", "complete", "--jobs", "1", "--format", "json"],
                           capture_output=True, text=True)
        wall = time.perf_counter() - t
        cpu = children_cpu() - c
        if p.returncode not in (0, 1):
            raise SystemExit(f"multitrace check failed ({p.returncode}): {p.stderr}")
        best = wall if best is None else min(best, wall)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
    verdicts = {}
    for line in p.stdout.splitlines():
        rec = json.loads(line)
        verdicts[rec["id"]] = rec["verdict"]
    return verdicts, best, best_cpu


def head_xes(path: Path, k: int, out: Path):
    """The first `k` traces of a generated XES file, as an XES file (a cut of the text: `gen`
    writes one element per line)."""
    n = 0
    with open(path) as src, open(out, "w") as dst:
        for line in src:
            if line.strip() == "</log>" or (n >= k and line.strip() == "<trace>"):
                break
            dst.write(line)
            if line.strip() == "</trace>":
                n += 1
        dst.write("</log>\n")
    return out


def alignment_fits(a):
    """No log move and no visible model move: the trace is in the net's language."""
    if a is None:  # no alignment: the final marking is unreachable
        return False
    for log_move, model_move in a["alignment"]:
        if log_move == ">>" and model_move is not None:
            return False
        if model_move == ">>":
            return False
    return True


def timed_sample(fn, cases, chunk, cap):
    """Applies `fn` to `cases` (a list of case ids) chunk by chunk until `cap` seconds are spent;
    returns ({case: result}, seconds, seconds of CPU of this process)."""
    results = {}
    spent = 0.0
    cpu = 0.0
    for i in range(0, len(cases), chunk):
        part = cases[i:i + chunk]
        t = time.perf_counter()
        c = time.process_time()
        out = fn(part)
        spent += time.perf_counter() - t
        cpu += time.process_time() - c
        results.update(zip(part, out))
        if spent >= cap:
            break
    return results, spent, cpu


def interleave(a, b):
    out = []
    for i in range(max(len(a), len(b))):
        out.extend(x[i] for x in (a, b) if i < len(x))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000",
                    help="log sizes (runs), comma-separated (default 1000,10000,100000)")
    ap.add_argument("--cap", type=float, default=30.0,
                    help="seconds of pm4py computation per method, model and size (default 30)")
    ap.add_argument("--chunk", type=int, default=2,
                    help="runs per pm4py call (default 2: one pass, one fail)")
    ap.add_argument("--sample", type=int, default=2000,
                    help="most runs read by pm4py per log (default 2000; the cap usually "
                         "stops it first)")
    ap.add_argument("--astar-sizes", default=None,
                    help="log sizes at which pm4py's default variant (A*, minutes per run on "
                         "NFA12) is timed (default: the first size only; its time per run does "
                         "not depend on the log's size)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="multitrace runs per log; the least wall time counts (default 3)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--binary", default=str(ROOT / "target/release/multitrace"))
    ap.add_argument("--data", default=os.environ.get("MULTITRACE_DATA",
                                                     str(ROOT.parent / "shared/data")))
    ap.add_argument("-o", "--output", default=str(ROOT / "target/peers"))
    args = ap.parse_args()

    import pm4py
    from pm4py.algo.conformance.alignments.petri_net import algorithm as alignments

    sizes = [int(x) for x in args.sizes.split(",")]
    astar_sizes = ({int(x) for x in args.astar_sizes.split(",")} if args.astar_sizes
                   else set(sizes[:1]))
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    work.mkdir(exist_ok=True)
    rows = []
    disagreements = 0
    loads = [os.getloadavg()]
    for name, model, locs in models(Path(args.data)):
        tag = model.stem
        mtm = work / f"{tag}.mtm"
        t = time.perf_counter()
        run([args.binary, "compile", model, *locs, "-o", mtm])
        compile_s = time.perf_counter() - t
        pnml = work / f"{tag}.pnml"
        run([args.binary, "draw", model, *locs, "--pnml", "-o", pnml])
        net, im, fm = pm4py.read_pnml(str(pnml))
        for n in sizes:
            files = generate(args.binary, model, locs, n, args.seed, work / tag, "xes")
            verdicts, mt_wall, mt_cpu = check(args.binary, mtm, files, args.repeat)
            if len(verdicts) != n:
                raise SystemExit(f"{name} {n}: {len(verdicts)} records for {n} runs")
            # The same runs as JSON Lines, multitrace's own input format: same verdicts.
            jfiles = generate(args.binary, model, locs, n, args.seed, work / tag, "jsonl")
            jverdicts, jsonl_wall, jsonl_cpu = check(args.binary, mtm, jfiles, args.repeat)
            if jverdicts != verdicts:
                raise SystemExit(f"{name} {n}: the JSON Lines and XES runs differ")
            jruns = {}
            for f in jfiles:
                for line in open(f):
                    obj = json.loads(line)
                    ((_, acts),) = obj["traces"].items()
                    jruns[obj["id"]] = acts
            row = {"model": name, "runs": n, "compile_s": compile_s,
                   "multitrace_s": mt_wall, "multitrace_jsonl_s": jsonl_wall,
                   "multitrace_cpu_s": mt_cpu, "multitrace_jsonl_cpu_s": jsonl_cpu, "fails": sum(v != "Pass" for v in verdicts.values()),
                   "load_before": os.getloadavg()[0]}
            # pm4py reads at most --sample runs of the same files (the first of each).
            t = time.perf_counter()
            logs = [pm4py.read_xes(str(head_xes(f, args.sample // len(files),
                                                work / f"sample-{f.name}")),
                                   return_legacy_log_object=True, show_progress_bar=False)
                    for f in files]
            row["pm4py_read_s"] = time.perf_counter() - t
            traces = {}
            for log in logs:
                for tr in log:
                    c = tr.attributes["concept:name"]
                    traces[c] = tr
                    if [e["concept:name"] for e in tr] != jruns[c]:
                        raise SystemExit(f"{name} {n}: run {c} differs between XES and JSON Lines")
            row["actions_per_run"] = sum(len(tr) for tr in traces.values()) / len(traces)
            order = interleave(*[[tr.attributes["concept:name"] for tr in log] for log in logs])

            def subset(part):
                return pm4py.objects.log.obj.EventLog([traces[c] for c in part])

            mt_run = mt_wall / n
            row["methods"] = {}
            for key, label, variant in METHODS:
                if key == "astar" and n not in astar_sizes:
                    continue
                if variant is None:
                    res, spent, cpu = timed_sample(
                        lambda part: pm4py.conformance_diagnostics_token_based_replay(
                            subset(part), net, im, fm, opt_parameters=QUIET),
                        order, args.chunk, args.cap)
                    fits = {c: bool(r["trace_is_fit"]) for c, r in res.items()}
                else:
                    v = getattr(alignments.Variants, variant)
                    res, spent, cpu = timed_sample(
                        lambda part: alignments.apply(subset(part), net, im, fm, variant=v,
                                                      parameters=QUIET),
                        order, args.chunk, args.cap)
                    fits = {c: alignment_fits(a) for c, a in res.items()}
                bad = [c for c, f in fits.items() if f != (verdicts[c] == "Pass")]
                row["methods"][key] = {
                    "label": label, "done": len(res), "s": spent,
                    "fails": sum(not f for f in fits.values()), "disagreements": len(bad),
                    "ratio": (spent / len(res)) / mt_run,
                    "ratio_jsonl": (spent / len(res)) / (jsonl_wall / n),
                    "cpu_s": cpu,
                    "ratio_cpu": (cpu / len(res)) / (mt_cpu / n),
                    "ratio_cpu_jsonl": (cpu / len(res)) / (jsonl_cpu / n)}
                if variant is not None:
                    disagreements += len(bad)
                    if bad:
                        print(f"DISAGREE {name} {n} {key}: {bad[:5]}", file=sys.stderr)
            row["load_after"] = os.getloadavg()[0]
            rows.append(row)
            loads.append(os.getloadavg())
            print(json.dumps(row), file=sys.stderr, flush=True)

    text = table(rows, pm4py.__version__, loads, args)
    print(text)
    (out / "pm4py.md").write_text(text)
    (out / "pm4py.json").write_text(json.dumps(rows, indent=1))
    plot(rows, out / "pm4py.svg")
    sys.exit(1 if disagreements else 0)


def us(s):
    return f"{s * 1e6:,.1f} µs" if s < 1e-3 else f"{s * 1e3:,.1f} ms"


def table(rows, version, loads, args):
    lo = min(l[0] for l in loads)
    hi = max(l[0] for l in loads)
    head = (f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared), load average "
            f"{lo:.2f}-{hi:.2f} (1 min) during the run; pm4py {version}, one core "
            f"(`multi_processing=False`, BLAS threads 1); multitrace: `check MODEL.mtm --xes "
            f"pass.xes local-error.xes --mode complete --jobs 1`, the whole process (least wall "
            f"of {args.repeat}) over every run of the log; pm4py: its computation alone over the "
            f"runs it did (in brackets) within {args.cap:g} s per method (chunks of "
            f"{args.chunk}, pass and fail alternating); JSON Lines: the same runs written by `gen "
            f"--format jsonl` with the same seed, checked to give the same verdicts. Ratio: pm4py's time per run over "
            f"multitrace's (XES; JSON Lines of the same runs), in wall time and in CPU time (user + "
            f"system of the multitrace process, least of {args.repeat}; of the Python process "
            f"for pm4py): on a loaded machine the CPU ratio is the steadier.\n\n")
    keys = [k for k, _, _ in METHODS]
    labels = {k: l for k, l, _ in METHODS}
    lines = [head,
             "| model | runs (half Fail) | actions per run | multitrace per run: XES, wall; CPU "
             "| JSON Lines, wall; CPU | "
             + " | ".join(f"pm4py {labels[k]} per run, wall; CPU | ratio, wall: XES; JSON Lines "
                          f"| ratio, CPU: XES; JSON Lines" for k in keys)
             + " | verdicts (alignments against check) | replay `trace_is_fit` disagreements |\n",
             "|---|---:|---:|---:|---:|" + "---:|---:|---:|" * len(keys) + "---|---:|\n"]
    for r in rows:
        m = r["methods"]
        cells = []
        for k in keys:
            if k not in m:
                cells.append("not run | |")
                continue
            cells.append(f"{us(m[k]['s'] / m[k]['done'])}; {us(m[k]['cpu_s'] / m[k]['done'])} "
                         f"({m[k]['done']:,}) "
                         f"| {m[k]['ratio']:,.0f}x; {m[k]['ratio_jsonl']:,.0f}x "
                         f"| {m[k]['ratio_cpu']:,.0f}x; {m[k]['ratio_cpu_jsonl']:,.0f}x")
        aligned = [m[k] for k, _, v in METHODS if v is not None and k in m]
        bad = sum(x["disagreements"] for x in aligned)
        done = sum(x["done"] for x in aligned)
        fails = sum(x["fails"] for x in aligned)
        agree = ("identical" if bad == 0 else f"**{bad} differ**")
        lines.append(
            f"| {r['model']} | {r['runs']:,} | {r['actions_per_run']:.0f} "
            f"| {us(r['multitrace_s'] / r['runs'])}; {us(r['multitrace_cpu_s'] / r['runs'])} "
            f"| {us(r['multitrace_jsonl_s'] / r['runs'])}; "
            f"{us(r['multitrace_jsonl_cpu_s'] / r['runs'])} | " + " | ".join(cells)
            + f" | {agree} on {done:,} alignments ({fails:,} with cost > 0) "
            f"| {m['replay']['disagreements']:,} of {m['replay']['done']:,} |\n")
    return "".join(lines)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is absent: no plot", file=sys.stderr)
        return
    matplotlib.rcParams["svg.hashsalt"] = "multitrace"  # stable ids: diffs show real changes
    fig, ax = plt.subplots(figsize=(10, 4.5))
    styles = {"MQTT": "C0", "AutomatArk NFA12": "C1"}
    for name in dict.fromkeys(r["model"] for r in rows):
        rs = [r for r in rows if r["model"] == name]
        c = styles.get(name)
        x = [r["runs"] for r in rs]
        ax.plot(x, [r["runs"] / r["multitrace_cpu_s"] for r in rs], "o-", color=c,
                label=f"multitrace check (XES), {name}")
        ax.plot(x, [r["runs"] / r["multitrace_jsonl_cpu_s"] for r in rs], "*-", color=c,
                label=f"multitrace check (JSON Lines), {name}")
        for (key, label, _), mark in zip(METHODS, ("s--", "D-.", "^:")):
            pts = [(r["runs"], r["methods"][key]) for r in rs if key in r["methods"]]
            ax.plot([p for p, _ in pts], [m["done"] / m["cpu_s"] for _, m in pts], mark,
                    color=c, label=f"pm4py {label}, {name}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("runs in the log (pm4py: a timed sample of them)")
    ax.set_ylabel("runs checked per second of CPU, one core")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
