"""multitrace.spark on pyspark in local mode (local[2]): both functions give the command
line's verdicts (``multitrace check --events`` and the same runs as JSON Lines multitraces) on
10,000+ runs generated from the fixtures and from an AutomatArk model; events in shuffled
order, runs split across files with the same run ids, bad events, the ten-line README example.

Skipped when pyspark or pyarrow is missing (``python/test.sh`` installs them).
"""

import json
import os
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

# The executors' Python must be this one (where multitrace is installed).
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

import multitrace  # noqa: E402
from multitrace import spark as mts  # noqa: E402

from conftest import cli_records  # noqa: E402

LOC = "a0,a1,a2,a3,a4,a5,a16;a6,a7,a8,a9,a10,a17,a18;a11,a12,a13,a14,a15"


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    s = (
        SparkSession.builder.master("local[2]")
        .appName("multitrace-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def runs_of(model, kinds, count, length, seed, prefix):
    """Generated multitraces with at least one event, named ``PREFIX-N``."""
    out = []
    for k in kinds:
        for it in model.generate(k, count=count, length=length, seed=seed):
            if any(it["traces"].values()):
                out.append((f"{prefix}-{len(out)}", it["traces"]))
    return out


def events_of(runs, rng):
    """One event per action: (run, action, order), order keys spaced out, rows shuffled."""
    ev = []
    for rid, traces in runs:
        for acts in traces.values():
            for i, a in enumerate(acts):
                ev.append((rid, a, i * 3 + rng.randrange(3)))
    rng.shuffle(ev)
    return ev


def cli_verdicts(cli, model_path, runs, tmp, *args):
    """The CLI's (verdict, reason) per run id on the runs written as JSON Lines multitraces."""
    p = tmp / "runs.jsonl"
    with p.open("w") as f:
        for rid, traces in runs:
            f.write(json.dumps({"id": rid, "traces": traces}) + "\n")
    return {r["id"]: (r["verdict"], r["reason"]) for r in cli_records(cli, model_path, [p], *args)}


def spark_verdicts(df):
    return {r.run: (r.verdict, r.reason) for r in df.select("run", "verdict", "reason").collect()}


@pytest.fixture(scope="module")
def mqtt_set(fixtures, cli, tmp_path_factory):
    path = fixtures / "seed004-mqtt" / "model.hif"
    model = multitrace.compile(str(path))
    kinds = ["pass", "local-error", "inter-error", "central-error-mixed", "prefix", "noise",
             "swap-actions", "swap-components"]
    runs = runs_of(model, kinds, 1000, (1, 16), 11, "mqtt")
    tmp = tmp_path_factory.mktemp("mqtt")
    expected = cli_verdicts(cli, path, runs, tmp)
    return path, model, runs, expected, tmp


def test_check_events_and_semi_equal_the_cli_on_fixture_runs(spark, mqtt_set, cli):
    path, model, runs, expected, tmp = mqtt_set
    assert len(runs) >= 7000
    rng = random.Random(5)
    ev = events_of(runs, rng)
    # The same events through `multitrace check --events` (JSON Lines, shuffled).
    ep = tmp / "events.jsonl"
    with ep.open("w") as f:
        for r, a, o in ev:
            f.write(json.dumps({"run": r, "action": a, "order": o}) + "\n")
    cli_events = {r["id"]: (r["verdict"], r["reason"]) for r in cli_records(cli, path, ["--events", ep])}
    assert cli_events == expected
    df = spark.createDataFrame(ev, "run string, action string, order long")
    got = spark_verdicts(mts.check_events(df, model))
    assert got == expected
    semi = spark_verdicts(mts.check_events_semi(df, model))
    assert semi == expected
    kinds = {v for v in expected.values()}
    assert ("Fail", "LocalError") in kinds and ("Fail", "InterError") in kinds


def test_automatark_runs_equal_the_cli(spark, data, cli, tmp_path):
    path = data / "automatark" / "NFA" / "Bakery-4P-BinEnc-BwBad" / "armcNFA_inclTest_6.timbuk"
    if not path.exists():
        pytest.skip(f"{path} not found")
    model = multitrace.compile(str(path), locations=LOC)
    mtm = tmp_path / "nfa6.mtm"
    model.save(str(mtm))
    runs = runs_of(model, ["pass", "local-error", "inter-error", "noise", "swap-components"],
                   700, (1, 30), 4, "nfa6")
    assert len(runs) >= 3000
    for mode in ("complete", "prefix"):
        expected = cli_verdicts(cli, mtm, runs, tmp_path, "--mode", mode)
        ev = events_of(runs, random.Random(8))
        # Timestamps as order keys (a Spark timestamp column, taken in microseconds).
        rows = [(r, a, 1_700_000_000_000_000 + o * 1000) for r, a, o in ev]
        df = spark.createDataFrame(rows, "run string, action string, us long")
        from pyspark.sql import functions as F

        df = df.withColumn("ts", F.timestamp_micros("us")).drop("us")
        assert spark_verdicts(mts.check_events(df, model, order="ts", mode=mode)) == expected
        assert spark_verdicts(mts.check_events_semi(df, model.to_bytes(), order="ts", mode=mode)) == expected


def test_duplicate_run_ids_across_files_and_bad_events(spark, fixtures, cli, tmp_path):
    path = fixtures / "seed004-mqtt" / "model.hif"
    model = multitrace.compile(str(path))
    runs = runs_of(model, ["pass", "local-error", "inter-error"], 100, (2, 10), 2, "d")
    rng = random.Random(1)
    ev = events_of(runs, rng)
    half = len(ev) // 2
    # Two files holding parts of the same runs (same ids), in CSV with other column names.
    for name, part in (("a.csv", ev[:half]), ("b.csv", ev[half:])):
        with (tmp_path / name).open("w") as f:
            f.write("session,act,seq\n")
            for r, a, o in part:
                f.write(f"{r},{a},{o}\n")
    with (tmp_path / "bad.csv").open("w") as f:
        f.write("session,act,seq\n")
        f.write("bad-unknown,clt1!nope,1\n")
        f.write("bad-order,clt1!begin,soon\n")
        f.write("bad-missing,,3\n")
        f.write("d-0,clt1!begin,x\n")  # a bad event in a run otherwise good
    files = [tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "bad.csv"]
    cli_recs = {r["id"]: r for r in cli_records(
        cli, path, ["--events", *files, "--run-field", "session", "--action-field", "act",
                    "--order-field", "seq"])}
    df = (spark.read.option("header", True).schema("session string, act string, seq string")
          .csv([str(f) for f in files]))
    for fn in (mts.check_events, mts.check_events_semi):
        got = {r.run: r for r in fn(df, model, run="session", action="act", order="seq").collect()}
        assert set(got) == set(cli_recs)
        for rid, rec in cli_recs.items():
            assert (got[rid].verdict, got[rid].reason) == (rec["verdict"], rec["reason"]), rid
        for rid, what in (("bad-unknown", "unknown action"), ("bad-order", "order key"),
                          ("bad-missing", "missing"), ("d-0", "order key")):
            assert got[rid].verdict == "Error", rid
            assert what in got[rid].explanation, got[rid].explanation
            assert what in cli_recs[rid]["explanation"]


def test_readme_example_writes_parquet(spark, fixtures, tmp_path):
    events = tmp_path / "events"
    model_path = fixtures / "seed004-mqtt" / "model.hif"
    m = multitrace.compile(str(model_path))
    rows = events_of(runs_of(m, ["pass", "local-error"], 50, (1, 8), 1, "r"), random.Random(2))
    spark.createDataFrame(rows, "run string, action string, order long").write.parquet(str(events))
    out = tmp_path / "verdicts"
    # The README's example, as written there (the session is the test's).
    import multitrace.spark as mts2

    model = multitrace.compile(str(model_path))
    df = spark.read.parquet(str(events))
    verdicts = mts2.check_events(df, model, run="run", action="action", order="order", mode="prefix")
    verdicts.write.mode("overwrite").parquet(str(out))
    back = spark.read.parquet(str(out))
    assert back.count() == 100
    assert {r.verdict for r in back.select("verdict").collect()} <= {"WeakPass", "Pass", "Fail"}


def test_an_event_without_a_run_gets_the_same_error_row_in_both(spark, fixtures):
    m = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    rows = [("r1", "clt1!begin", 1), (None, "clt1!begin", 2)]
    df = spark.createDataFrame(rows, "run string, action string, order long")
    got = {fn.__name__: {r.run: r for r in fn(df, m).collect()}
           for fn in (mts.check_events, mts.check_events_semi)}
    plain, semi = got["check_events"], got["check_events_semi"]
    assert set(plain) == set(semi) == {"r1", None}
    assert plain[None].verdict == semi[None].verdict == "Error"
    assert plain[None].explanation == semi[None].explanation
    assert json.loads(semi[None].record)["verdict"] == "Error"
    assert (plain["r1"].verdict, semi["r1"].verdict) == ("WeakPass", "WeakPass")


def test_workers_that_cannot_import_the_package_get_an_error_saying_what_to_set(
        spark, fixtures, monkeypatch):
    """The README's snippet run with workers on a Python without the package (PYSPARK_PYTHON
    unset on a machine whose `python3` is not the package's): one error naming the variable,
    before any task of the job, for each of the three functions."""
    import subprocess

    bare = os.path.realpath(sys.executable)  # the venv's interpreter without the venv
    probe = subprocess.run([bare, "-c", "import multitrace"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip(f"{bare} has the package: no Python without it to run workers on")
    m = multitrace.compile(str(fixtures / "seed004-mqtt" / "model.hif"))
    df = spark.createDataFrame([("r1", "clt1!begin", 1)], "run string, action string, order long")
    # The workers' Python of the jobs started from now on (as PYSPARK_PYTHON sets it).
    monkeypatch.setattr(spark.sparkContext, "pythonExec", bare)
    for fn in (mts.check_events, mts.check_events_semi, mts.local_summaries):
        with pytest.raises(multitrace.MultitraceError) as e:
            fn(df, m)
        msg = str(e.value)
        assert "PYSPARK_PYTHON" in msg and sys.executable in msg, msg
        assert f"workers' Python ({bare}) cannot import multitrace" in msg, msg
        assert "No module named 'multitrace'" in msg, msg
    # Back on this Python, the same call works.
    monkeypatch.undo()
    assert [r.verdict for r in mts.check_events(df, m).collect()] == ["WeakPass"]


def test_spark_zips_keep_their_directory_when_caches_are_invalidated(tmp_path):
    """Spark's worker calls importlib.invalidate_caches() before every task; on Python 3.10
    and 3.11 that re-read pyspark.zip's whole directory each time. After _keep_spark_zips,
    Spark's own archives keep their directory, and any other archive is still re-read."""
    import zipfile
    import zipimport

    (tmp_path / "lib").mkdir()
    spark_zip, other_zip = tmp_path / "lib" / "pyspark.zip", tmp_path / "jobfiles.zip"
    for z in (spark_zip, other_zip):
        with zipfile.ZipFile(z, "w") as f:
            f.writestr("old_mod.py", "X = 1\n")
    cache = {str(z): zipimport.zipimporter(str(z)) for z in (spark_zip, other_zip)}
    cache[str(tmp_path)] = None  # not an importer: left alone
    changed = mts._keep_spark_zips(cache)
    if sys.version_info[:2] not in ((3, 10), (3, 11)):
        assert changed == 0  # zipimport's invalidation is lazy there already
        return
    assert changed == 1
    assert mts._keep_spark_zips(cache) == 0  # once per importer
    # Both archives change on disk; the caches are invalidated as Spark's worker does.
    for z in (spark_zip, other_zip):
        with zipfile.ZipFile(z, "a") as f:
            f.writestr("new_mod.py", "Y = 2\n")
        cache[str(z)].invalidate_caches()
    assert cache[str(spark_zip)].find_spec("new_mod") is None
    assert cache[str(spark_zip)].find_spec("old_mod") is not None
    assert cache[str(other_zip)].find_spec("new_mod") is not None
    assert mts._is_spark_zip("/opt/spark/python/lib/py4j-0.10.9.9-src.zip")
    assert mts._is_spark_zip("/opt/spark/jars/spark-core_2.13-4.0.5.jar")
    assert not mts._is_spark_zip("/opt/spark/jars/spark-sql_2.13-4.0.5.jar")
    assert not mts._is_spark_zip("/opt/spark/python/lib/pyspark-extras.zip")
