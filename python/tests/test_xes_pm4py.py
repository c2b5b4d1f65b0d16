"""XES written by ``multitrace gen --format xes`` reads back in pm4py (an independent XES
reader) as the same multitraces that ``gen --format jsonl`` writes with the same seed; and a
log pm4py writes is checked by ``multitrace check --xes``."""

import json
import subprocess
from pathlib import Path

import pytest

pm4py = pytest.importorskip("pm4py", reason="pm4py is installed by python/test.sh")


def gen(cli: Path, model: Path, out: Path, fmt: str, kind: str) -> None:
    subprocess.run(
        [str(cli), "gen", str(model), "--kind", kind, "--count", "8", "--seed", "11",
         "--format", fmt, "-o", str(out)],
        check=True, capture_output=True,
    )


@pytest.mark.parametrize("kind", ["pass", "central-error", "swap-actions"])
def test_gen_xes_reads_back_in_pm4py(cli, fixtures, tmp_path, kind):
    model = fixtures / "seed004-mqtt" / "model.hif"
    gen(cli, model, tmp_path / "x", "xes", kind)
    gen(cli, model, tmp_path / "j", "jsonl", kind)
    expected = {}
    for line in (tmp_path / "j" / f"{kind}.jsonl").read_text().splitlines():
        row = json.loads(line)
        expected[row["id"]] = {loc: acts for loc, acts in row["traces"].items() if acts}
    log = pm4py.read_xes(str(tmp_path / "x" / f"{kind}.xes"))
    got = {}
    # Each location's events in the order pm4py gives them (its own timestamp sort included).
    for case, events in log.groupby("case:concept:name", sort=False):
        per = {}
        for _, ev in events.iterrows():
            per.setdefault(ev["org:resource"], []).append(ev["concept:name"])
        got[case] = per
    # Runs without any event have no trace in pm4py's data frame.
    assert got == {k: v for k, v in expected.items() if v}


def test_a_log_written_by_pm4py_is_checked(cli, fixtures, tmp_path):
    import pandas as pd

    rows = []
    for case, actions in [("ok", ["clt1!begin", "brok?begin", "clt1!end", "brok?end"]),
                          ("bad", ["clt1!begin", "brok?pub", "brok?begin"])]:
        for i, a in enumerate(actions):
            rows.append({"case:concept:name": case, "concept:name": a,
                         "time:timestamp": pd.Timestamp("2024-05-01T12:00:00Z") + pd.Timedelta(seconds=i)})
    df = pm4py.format_dataframe(pd.DataFrame(rows), case_id="case:concept:name",
                                activity_key="concept:name", timestamp_key="time:timestamp")
    path = tmp_path / "log.xes"
    pm4py.write_xes(df, str(path))
    out = subprocess.run(
        [str(cli), "check", str(fixtures / "seed004-mqtt" / "model.hif"), "--xes", str(path),
         "--format", "jsonl"],
        capture_output=True, text=True,
    )
    records = {r["id"]: r["verdict"] for r in map(json.loads, out.stdout.splitlines())}
    # In "bad", the broker receives a publication before the topic begins.
    assert records == {"ok": "Pass", "bad": "Fail"}, out.stderr
