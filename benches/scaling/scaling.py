"""How the cost of `multitrace` grows: four curves, as SVG plots and a Markdown table.

1. **trace length** (10 to 100,000 actions per run): `check --mode complete --jobs 1` on `pass`
   runs of the MQTT fixture, at one location and with its three lifelines as three locations
   (AS and AC); about `--actions` actions per set, so time per action is comparable;
2. **locations** (1 to 16): a generated interaction of 16 lifelines (a strict loop of a
   message chain through all of them, then a loop of a choice between two messages),
   its lifelines grouped into 1, 2, 4, 8 or 16 locations; compile time, artifact size and check
   time on 2,000 `pass` runs of 200 actions;
3. **model size** (NFA states 10 to 100,000): generated Timbuk automata (a ring of states, each
   with one more transition to a random state, 8 letters, deterministic, every state final) at
   one location; compile time and peak memory, artifact size, check time on 1,000 `pass` runs of
   200 actions;
4. **number of runs** (1 to `--max-events` events): event logs from benches/data/events.py (MQTT,
   20-250 actions per run, 1,000 runs open at once) through `check --events` and `monitor
   --no-follow`, one core.

Every point is one process, timed from start to exit (wall), with its user+system CPU time
(wait4) and peak resident memory (GNU time). Per-run figures are CPU time: the machine is shared
and wall times under load say more about the other processes. Exit status 1 when a check gives an unexpected verdict (every run
is generated `pass`) or a command fails.

    python3 benches/scaling/scaling.py [--binary target/release/multitrace] [-o target/scaling]
        [--curves length,locations] [--figures docs/img]
"""

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MQTT = ROOT / "fixtures/seed004-mqtt/model.hif"


class Failed(Exception):
    pass


TIME = "/usr/bin/time"


def measure(cmd, stdout=subprocess.DEVNULL, timeout=None):
    """Runs `cmd`; returns (wall s, CPU s, peak RSS MiB, exit status), or None after `timeout`.

    The peak memory comes from GNU time (`/usr/bin/time -f %M`): a child forked from this
    Python process would report Python's own resident size as its peak (Linux keeps the high
    water mark across exec), so wait4's figure is used only when GNU time is absent."""
    stats = None
    if os.path.exists(TIME):
        fd, stats = tempfile.mkstemp(suffix=".time")
        os.close(fd)
        cmd = [TIME, "-f", "%e %U %S %M", "-o", stats, *cmd]
    t = time.perf_counter()
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen([str(c) for c in cmd], stdout=stdout, stderr=errf)
        deadline = None if timeout is None else t + timeout
        while True:
            # wait4: the CPU time of the child and of what it waited for (the command under
            # GNU time), to the microsecond (GNU time's own figures are to 10 ms).
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if deadline and time.perf_counter() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                return None
            time.sleep(0.001)
        wall = time.perf_counter() - t
        code = os.waitstatus_to_exitcode(status)
        p.returncode = code
        errf.seek(0)
        err = errf.read().decode(errors="replace")
    cpu = ru.ru_utime + ru.ru_stime
    if code not in (0, 1, 3):
        raise Failed(f"{' '.join(map(str, cmd))}: exit {code}: {err[-2000:]}")
    if stats:
        with open(stats) as f:
            last = [line for line in f.read().split("\n") if line.strip()]
        os.unlink(stats)
        return wall, cpu, float(last[-1].split()[-1]) / 1024, code
    return wall, cpu, ru.ru_maxrss / 1024, code


def run(cmd):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if p.returncode != 0:
        raise Failed(f"{' '.join(map(str, cmd))}: exit {p.returncode}: {p.stderr[-2000:]}")
    return p


def verdicts(binary, args):
    """Counts of the verdicts of a check (JSON records)."""
    p = subprocess.run([str(binary), *map(str, args), "--format", "json"],
                       capture_output=True, text=True)
    counts = {}
    for line in p.stdout.splitlines():
        v = json.loads(line).get("verdict")
        counts[v] = counts.get(v, 0) + 1
    return counts


def gen(binary, model, locs, kind, count, length, out, seed=1):
    f = out / f"{kind}.jsonl"
    if not f.exists():
        run([binary, "gen", model, *locs, "--kind", kind, "--count", count,
             "--length", length, "--seed", seed, "--format", "jsonl", "-o", out])
    return f


def load():
    return os.getloadavg()[0]


# ---------------------------------------------------------------- 1. trace length

def by_length(b, work, actions, lengths, timeout):
    rows = []
    configs = [
        ("1 location, AS", ["--locations", "clt1,brok,clt2"], "as"),
        ("3 locations, AS", [], "as"),
        ("3 locations, AC", [], "ac"),
    ]
    for name, locs, proc in configs:
        tag = "one" if locs else "three"
        mtm = work / f"mqtt-{tag}.mtm"
        if not mtm.exists():
            run([b, "compile", MQTT, *locs, "-o", mtm])
        for n in lengths:
            count = max(10, min(20000, actions // n))
            f = gen(b, MQTT, locs, "pass", count, f"{n}..{n}", work / f"len-{tag}-{n}")
            args = ["check", mtm, f, "--mode", "complete", "--jobs", "1", "--procedure", proc]
            m = measure([b, *args, "-q"], timeout=timeout)
            row = {"curve": "length", "config": name, "actions": n, "runs": count,
                   "load": load()}
            if m is None:
                row["timeout_s"] = timeout
            else:
                wall, cpu, rss, _ = m
                v = verdicts(b, args)
                row.update(wall_s=wall, cpu_s=cpu, rss_mb=rss, verdicts=v,
                           us_per_run=cpu / count * 1e6, ns_per_action=cpu / (count * n) * 1e9)
                if v != {"Pass": count}:
                    row["unexpected"] = True
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------- 2. locations

def chain_interaction(k):
    """`k` lifelines: a strict loop of a chain of messages through all of them, then a loop of
    a choice between a message from l1 and one from l2."""
    msgs = ", ".join(f"l{i} -- m{i} -> l{i % k + 1}" for i in range(1, k + 1))
    return (f"seq(\n  loopS(strict({msgs})),\n"
            f"  loopS(alt(l1 -- x -> l{k // 2 + 1}, l2 -- y -> l{k}))\n)\n")


def by_locations(b, work, groups, timeout):
    rows = []
    k = 16
    model = work / "chain16.hif"
    model.write_text(chain_interaction(k))
    for g in groups:
        size = k // g
        locs = ";".join(",".join(f"l{i}" for i in range(j * size + 1, (j + 1) * size + 1))
                        for j in range(g))
        opts = ["--locations", locs]
        mtm = work / f"chain16-{g}.mtm"
        c = measure([b, "compile", model, *opts, "-o", mtm])
        f = gen(b, model, opts, "pass", 2000, "200..200", work / f"loc-{g}")
        args = ["check", mtm, f, "--mode", "complete", "--jobs", "1"]
        m = measure([b, *args, "-q"], timeout=timeout)
        row = {"curve": "locations", "locations": g, "runs": 2000, "actions": 200,
               "compile_s": c[1], "compile_wall_s": c[0], "compile_rss_mb": c[2], "artifact_kb": mtm.stat().st_size / 1024,
               "load": load()}
        if m is None:
            row["timeout_s"] = timeout
        else:
            v = verdicts(b, args)
            row.update(wall_s=m[0], cpu_s=m[1], rss_mb=m[2], verdicts=v,
                       us_per_run=m[1] / 2000 * 1e6)
            if v != {"Pass": 2000}:
                row["unexpected"] = True
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------- 3. model size

def timbuk(n, letters=8, seed=1):
    """A deterministic automaton of `n` states: a ring (q_i -a-> q_i+1) and one more transition
    per state to a random state on another letter; every state final."""
    rng = random.Random(seed)
    names = [f"a{i}" for i in range(letters)]
    lines = ["Ops " + " ".join(f"{a}:1" for a in names) + " x:0", "", f"Automaton R{n}",
             "States " + " ".join(f"q{i}" for i in range(n)),
             "Final States " + " ".join(f"q{i}" for i in range(n)), "Transitions", "x -> q0"]
    for i in range(n):
        a = rng.randrange(letters)
        c = (a + 1 + rng.randrange(letters - 1)) % letters
        lines.append(f"{names[a]}(q{i}) -> q{(i + 1) % n}")
        lines.append(f"{names[c]}(q{i}) -> q{rng.randrange(n)}")
    lines += ["Systems", "    [l1] " + " ".join(names), ""]
    return "\n".join(lines)


def by_model(b, work, sizes, timeout):
    rows = []
    for n in sizes:
        model = work / f"ring{n}.timbuk"
        model.write_text(timbuk(n))
        mtm = work / f"ring{n}.mtm"
        row = {"curve": "model", "states": n, "transitions": 2 * n, "load": load()}
        try:
            c = measure([b, "compile", model, "-o", mtm], timeout=timeout)
        except Failed as e:
            # A model past a cap is refused (a precise message, exit 2): a point of the curve.
            row["refused"] = str(e).split("multitrace: ")[-1].strip()
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
            continue
        if c is None:
            row["timeout_s"] = timeout
            rows.append(row)
            continue
        f = gen(b, model, [], "pass", 1000, "200..200", work / f"model-{n}")
        args = ["check", mtm, f, "--mode", "complete", "--jobs", "1"]
        m = measure([b, *args, "-q"], timeout=timeout)
        v = verdicts(b, args)
        row.update(compile_s=c[1], compile_wall_s=c[0], compile_rss_mb=c[2],
                   artifact_kb=mtm.stat().st_size / 1024, check_wall_s=m[0], check_cpu_s=m[1],
                   check_rss_mb=m[2], us_per_run=m[1] / 1000 * 1e6,
                   verdicts=v)
        if v != {"Pass": 1000}:
            row["unexpected"] = True
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------- 4. number of runs

def by_runs(b, work, counts, timeout):
    rows = []
    mtm = work / "mqtt-three.mtm"
    if not mtm.exists():
        run([b, "compile", MQTT, "-o", mtm])
    for runs in counts:
        ev = work / f"events-{runs}.jsonl"
        if not ev.exists():
            subprocess.run([sys.executable, ROOT / "benches/data/events.py", MQTT, ev,
                            "--runs", str(runs), "--kinds", "pass", "--bin", str(b)],
                           check=True, stdout=subprocess.DEVNULL)
        with open(ev, "rb") as f:
            events = sum(1 for _ in f)
        # `check --events` holds an unsorted log in memory, at most 10 M events unless told
        # (--max-buffered-events): past that, the cap is raised to the log's size.
        cap = ["--max-buffered-events", str(events)] if events > 10_000_000 else []
        for name, cmd in (("check --events", ["check", mtm, "--events", ev, "--jobs", "1",
                                               *cap, "--format", "json"]),
                          ("monitor", ["monitor", mtm, ev, "--no-follow", "--format", "json"])):
            out = work / "records.jsonl"
            with open(out, "w") as o:
                m = measure([b, *cmd], stdout=o, timeout=timeout)
            row = {"curve": "runs", "tool": name, "runs": runs, "events": events, "load": load()}
            if cap and name == "check --events":
                row["cap"] = events
            if m is None:
                row["timeout_s"] = timeout
            else:
                v = {}
                for line in open(out):
                    k = json.loads(line).get("verdict")
                    v[k] = v.get(k, 0) + 1
                row.update(wall_s=m[0], cpu_s=m[1], rss_mb=m[2], verdicts=v,
                           events_per_s=events / m[1] if m[1] else None)
                if v != {"Pass": runs}:
                    row["unexpected"] = True
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------- plots and tables

def plots(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "multitrace"
    import matplotlib.pyplot as plt

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(out / name, metadata={"Date": None})
        plt.close(fig)
        print(f"wrote {out / name}", file=sys.stderr)

    ok = [r for r in rows if "timeout_s" not in r and "refused" not in r]
    ln = [r for r in ok if r["curve"] == "length"]
    if ln:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
        for cfg in dict.fromkeys(r["config"] for r in ln):
            rs = [r for r in ln if r["config"] == cfg]
            a1.plot([r["actions"] for r in rs], [r["us_per_run"] for r in rs], "o-", label=cfg)
            a2.plot([r["actions"] for r in rs], [r["ns_per_action"] for r in rs], "o-",
                    label=cfg)
        a1.set(xscale="log", yscale="log", xlabel="actions per run", ylabel="µs of CPU per run",
               title="time per run")
        a2.set(xscale="log", xlabel="actions per run", ylabel="ns of CPU per action",
               title="time per action")
        a2.set_ylim(bottom=0)
        for a in (a1, a2):
            a.grid(True, which="both", alpha=0.3)
        a1.legend(fontsize=7)
        save(fig, "scaling-length.svg")
    lc = [r for r in ok if r["curve"] == "locations"]
    if lc:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
        x = [r["locations"] for r in lc]
        a1.plot(x, [r["us_per_run"] for r in lc], "o-", label="check, µs of CPU per run")
        a1.plot(x, [r["compile_s"] * 1e3 for r in lc], "s--", label="compile, ms of CPU")
        a1.set(xlabel="locations (16 lifelines)", xscale="log", title="time")
        a1.set_xticks(x, [str(v) for v in x])
        a1.legend(fontsize=7)
        a2.plot(x, [r["artifact_kb"] for r in lc], "o-", label="artifact, KiB")
        a2.plot(x, [r["rss_mb"] for r in lc], "s--", label="check peak RSS, MiB")
        a2.set(xlabel="locations (16 lifelines)", xscale="log", title="space")
        a2.set_xticks(x, [str(v) for v in x])
        a2.legend(fontsize=7)
        for a in (a1, a2):
            a.grid(True, alpha=0.3)
            a.set_ylim(bottom=0)
        save(fig, "scaling-locations.svg")
    md = [r for r in ok if r["curve"] == "model"]
    if md:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
        x = [r["states"] for r in md]
        a1.plot(x, [r["compile_s"] * 1e3 for r in md], "o-", label="compile, ms of CPU")
        a1.plot(x, [r["us_per_run"] for r in md], "s--", label="check, µs of CPU per run")
        a1.set(xscale="log", yscale="log", xlabel="NFA states", title="time")
        a1.legend(fontsize=7)
        a2.plot(x, [r["artifact_kb"] for r in md], "o-", label="artifact, KiB")
        a2.plot(x, [r["compile_rss_mb"] for r in md], "s--", label="compile peak RSS, MiB")
        a2.plot(x, [r["check_rss_mb"] for r in md], "^:", label="check peak RSS, MiB")
        a2.set(xscale="log", yscale="log", xlabel="NFA states", title="space")
        a2.legend(fontsize=7)
        refused = [r["states"] for r in rows if r["curve"] == "model" and "refused" in r]
        for a in (a1, a2):
            a.grid(True, which="both", alpha=0.3)
            if refused:
                a.axvspan(min(refused), max(refused), color="0.85")
                a.text(min(refused), a.get_ylim()[1], " refused (area cap)", fontsize=7,
                       va="top")
        save(fig, "scaling-model.svg")
    rn = [r for r in ok if r["curve"] == "runs"]
    if rn:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
        for tool in dict.fromkeys(r["tool"] for r in rn):
            rs = [r for r in rn if r["tool"] == tool]
            a1.plot([r["events"] for r in rs], [r["cpu_s"] for r in rs], "o-", label=tool)
            a2.plot([r["events"] for r in rs], [r["rss_mb"] for r in rs], "o-", label=tool)
        a1.set(xscale="log", yscale="log", xlabel="events in the log", ylabel="s of CPU",
               title="time")
        a2.set(xscale="log", yscale="log", xlabel="events in the log",
               ylabel="peak RSS, MiB", title="space")
        for a in (a1, a2):
            a.grid(True, which="both", alpha=0.3)
            a.legend(fontsize=7)
        save(fig, "scaling-runs.svg")


def tables(rows):
    out = []
    ln = [r for r in rows if r["curve"] == "length"]
    if ln:
        out += ["| config | actions per run | runs | wall | CPU | µs of CPU per run | ns of CPU per "
                "action | peak RSS | load |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in ln:
            if "timeout_s" in r:
                out.append(f"| {r['config']} | {r['actions']:,} | {r['runs']:,} | over "
                           f"{r['timeout_s']:g} s | | | | | {r['load']:.1f} |")
                continue
            flag = " (unexpected verdicts)" if r.get("unexpected") else ""
            out.append(f"| {r['config']} | {r['actions']:,} | {r['runs']:,} "
                       f"| {r['wall_s']:.3f} s{flag} | {r['cpu_s']:.3f} s | {r['us_per_run']:,.1f} "
                       f"| {r['ns_per_action']:,.1f} | {r['rss_mb']:.0f} MiB "
                       f"| {r['load']:.1f} |")
        out.append("")
    lc = [r for r in rows if r["curve"] == "locations"]
    if lc:
        out += ["| locations | compile (CPU) | compile peak RSS | artifact | check 2,000 runs (wall) "
                "| µs of CPU per run | check peak RSS | load |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in lc:
            chk = (f"over {r['timeout_s']:g} s | | " if "timeout_s" in r else
                   f"{r['wall_s']:.3f} s | {r['us_per_run']:,.1f} | {r['rss_mb']:.0f} MiB")
            out.append(f"| {r['locations']} | {r['compile_s'] * 1e3:.1f} ms "
                       f"| {r['compile_rss_mb']:.0f} MiB | {r['artifact_kb']:,.1f} KiB "
                       f"| {chk} | {r['load']:.1f} |")
        out.append("")
    md = [r for r in rows if r["curve"] == "model"]
    if md:
        out += ["| NFA states | compile (CPU) | compile peak RSS | artifact | check: µs of CPU per "
                "run | check peak RSS | load |", "|---:|---:|---:|---:|---:|---:|---:|"]
        for r in md:
            if "refused" in r:
                out.append(f"| {r['states']:,} | refused: {r['refused']} | | | | "
                           f"| {r['load']:.1f} |")
                continue
            if "timeout_s" in r:
                out.append(f"| {r['states']:,} | over {r['timeout_s']:g} s | | | | "
                           f"| {r['load']:.1f} |")
                continue
            out.append(f"| {r['states']:,} | {r['compile_s'] * 1e3:,.1f} ms "
                       f"| {r['compile_rss_mb']:.0f} MiB | {r['artifact_kb']:,.1f} KiB "
                       f"| {r['us_per_run']:,.1f} | {r['check_rss_mb']:.0f} MiB "
                       f"| {r['load']:.1f} |")
        out.append("")
    rn = [r for r in rows if r["curve"] == "runs"]
    if rn:
        out += ["| command | runs | events | wall | CPU | events/s (CPU) | peak RSS | load |",
                "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in rn:
            if "timeout_s" in r:
                out.append(f"| {r['tool']} | {r['runs']:,} | {r['events']:,} | over "
                           f"{r['timeout_s']:g} s | | | | {r['load']:.1f} |")
                continue
            eps = f"{r['events_per_s']:,.0f}" if r["events_per_s"] else ""
            tool = r["tool"] + (" --max-buffered-events N" if r.get("cap") else "")
            out.append(f"| {tool} | {r['runs']:,} | {r['events']:,} | {r['wall_s']:.3f} s "
                       f"| {r['cpu_s']:.3f} s | {eps} | {r['rss_mb']:.0f} MiB "
                       f"| {r['load']:.1f} |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=str(ROOT / "target/release/multitrace"))
    ap.add_argument("-o", "--output", default=str(ROOT / "target/scaling"))
    ap.add_argument("--curves", default="length,locations,model,runs")
    ap.add_argument("--actions", type=int, default=2_000_000,
                    help="actions per set of the length curve (default 2,000,000)")
    ap.add_argument("--lengths", default="10,100,1000,10000,100000")
    ap.add_argument("--locations", default="1,2,4,8,16")
    ap.add_argument("--states", default="10,100,1000,3000,10000,30000,100000")
    ap.add_argument("--runs", default="1,10,100,1000,10000",
                    help="runs of the event logs (about 135 events each)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per command")
    ap.add_argument("--figures", metavar="DIR",
                    help="also write the plots there (docs/img for the guide's figures)")
    ap.add_argument("--replot", metavar="JSON",
                    help="draw the plots again from a scaling.json, measuring nothing")
    args = ap.parse_args()
    out = Path(args.output)
    if args.replot:
        out.mkdir(parents=True, exist_ok=True)
        plots(json.load(open(args.replot)), out)
        if args.figures:
            plots(json.load(open(args.replot)), Path(args.figures))
        return
    b = Path(args.binary)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
    curves = args.curves.split(",")
    rows = []
    start = os.getloadavg()
    try:
        if "length" in curves:
            rows += by_length(b, work, args.actions, ints(args.lengths), args.timeout)
        if "locations" in curves:
            rows += by_locations(b, work, ints(args.locations), args.timeout)
        if "model" in curves:
            rows += by_model(b, work, ints(args.states), args.timeout)
        if "runs" in curves:
            rows += by_runs(b, work, ints(args.runs), args.timeout)
    except Failed as e:
        print(f"scaling: {e}", file=sys.stderr)
        sys.exit(1)
    end = os.getloadavg()
    head = (f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared); load average "
            f"(1, 5, 15 min) {start[0]:.2f} {start[1]:.2f} {start[2]:.2f} at the start, "
            f"{end[0]:.2f} {end[1]:.2f} {end[2]:.2f} at the end.\n")
    text = head + "\n" + tables(rows)
    print(text)
    (out / "scaling.md").write_text(text)
    (out / "scaling.json").write_text(json.dumps(rows, indent=1))
    plots(rows, out)
    if args.figures:
        plots(rows, Path(args.figures))
    sys.exit(1 if any(r.get("unexpected") for r in rows) else 0)


if __name__ == "__main__":
    main()
