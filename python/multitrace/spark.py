"""multitrace on Spark: event logs to verdicts, one row per run.

``pip install 'multitrace[spark]'`` (pyspark and pyarrow). Two functions, same verdicts:

- :func:`check_events`: the events are shuffled by run id, and each partition's runs are
  grouped and checked by the runtime (``multitrace_runtime::events``, the code of
  ``multitrace check --events``) on whole Arrow batches: no Python call per event.
- :func:`check_events_semi`: seed 004's semi-centralized architecture. The local step runs
  where each (run, location)'s events are and gives the local verdict and ``Area(μi)`` as a
  compact summary (bytes); only the summaries are shuffled by run; the central step per run
  intersects the areas and runs AC on ``Inter`` (the verdict of ``check --procedure as``).

The executors' Python must have this package: before the first job of a Spark context (and
of a worker Python), one task checks that the workers can import it, and
:class:`multitrace.MultitraceError` says to set ``PYSPARK_PYTHON`` (or
``spark.pyspark.python``) when they cannot.

The model travels as its ``.mtm`` bytes in a Spark broadcast and is loaded once per Python
worker process (a module-level cache keyed by the bytes' SHA-256); no driver-local path is
needed on executors.

The location of an event comes from the model (the location of its action or letter), never
from the event. Within a location, events are sorted by the order key (an integer, a number,
an RFC 3339 string, or a Spark timestamp, taken in microseconds); Spark does not keep row order
through a shuffle, so events of one location with equal keys have no defined order: give
distinct keys.

Output columns: ``run`` (string), ``verdict``, ``reason``, ``explanation``, ``local_error``
and ``diagnosis`` (JSON strings, as in the record), ``record`` (the whole JSON record of
``multitrace check --format jsonl``). A bad event (unknown action, missing action, unparsable
order key) gives its run an ``Error`` row; an event without a run id gives an ``Error`` row
with a null ``run``.
"""

import hashlib
import sys
from typing import Any, Dict, Iterator, Optional, Set, Tuple

from . import _native

__all__ = ["check_events", "check_events_semi", "OUTPUT_SCHEMA"]

#: The schema of the DataFrames returned (Spark DDL).
OUTPUT_SCHEMA = (
    "run string, verdict string, reason string, explanation string, "
    "local_error string, diagnosis string, record string"
)

_SUMMARY_SCHEMA = "run string, loc long, summary binary"

# Models loaded in this process, by the SHA-256 of their bytes.
_MODELS: Dict[str, Any] = {}

# (Spark application, workers' Python) whose workers were seen to import the package.
_WORKERS_OK: Set[Tuple[str, str]] = set()


def _probe(_: Any) -> Tuple[str, Optional[str]]:
    """On a worker: its Python, and why it cannot import the package (None when it can)."""
    import sys

    try:
        import multitrace._native  # noqa: F401

        return sys.executable, None
    except Exception as e:  # noqa: BLE001 (any failure to import is the answer)
        return sys.executable, f"{type(e).__name__}: {e}"


# Not importable by this name, so Spark's cloudpickle sends the function by value: the probe
# runs even where `multitrace` (hence `multitrace.spark`) cannot be imported.
_probe.__module__ = "_multitrace_probe"


def _check_workers(spark: Any) -> None:
    """Raises MultitraceError, saying what to set, when the workers' Python cannot import the
    package (else every task would fail with a long ModuleNotFoundError from the worker)."""
    sc = spark.sparkContext
    key = (sc.applicationId, str(sc.pythonExec))
    if key in _WORKERS_OK:
        return
    ((exe, why),) = sc.parallelize([0], 1).map(_probe).collect()
    if why is not None:
        from . import MultitraceError

        raise MultitraceError(
            f"the Spark workers' Python ({exe}) cannot import multitrace ({why}): set "
            f"PYSPARK_PYTHON (or spark.pyspark.python) to a Python that has the multitrace "
            f"package installed before the SparkSession is created, e.g. "
            f"PYSPARK_PYTHON={sys.executable} for a local session; on a cluster, install the "
            f"wheel in that Python on every node or ship it with --archives (README, Spark)"
        )
    _WORKERS_OK.add(key)


def _model_of(key: str, broadcast: Any) -> Any:
    m = _MODELS.get(key)
    if m is None:
        from . import load

        m = load(broadcast.value)
        _MODELS[key] = m
    return m


def _share(spark: Any, model: Any):
    """The model's bytes as a broadcast, and their digest (the cache key on executors), once
    the workers are known to have the package."""
    _check_workers(spark)
    blob = model.to_bytes() if hasattr(model, "to_bytes") else bytes(model)
    return hashlib.sha256(blob).hexdigest(), spark.sparkContext.broadcast(blob)


def _select(df: Any, run: str, action: str, order: str) -> Any:
    from pyspark.sql import functions as F
    from pyspark.sql.types import DateType, TimestampType

    for c in (run, action, order):
        if c not in df.columns:
            raise ValueError(f"no column {c!r} in the DataFrame (columns: {', '.join(df.columns)})")
    otype = df.schema[order].dataType
    if isinstance(otype, (TimestampType, DateType)):
        o = F.unix_micros(F.col(order).cast("timestamp"))
    else:
        o = F.col(order)
    return df.select(
        F.col(run).cast("string").alias("_run"),
        F.col(action).cast("string").alias("_action"),
        o.alias("_order"),
    )


def _partitions(df: Any, partitions: Optional[int]) -> int:
    if partitions is not None:
        if partitions < 1:
            raise ValueError(f"partitions={partitions}: at least 1")
        return partitions
    return int(df.sparkSession.conf.get("spark.sql.shuffle.partitions"))


def _columns(batches: Iterator[Any]):
    """The partition's events as three Python lists (None when the partition is empty)."""
    import pyarrow as pa

    batches = [b for b in batches if b.num_rows]
    if not batches:
        return None
    t = pa.Table.from_batches(batches)
    return (
        t.column("_run").to_pylist(),
        t.column("_action").to_pylist(),
        t.column("_order").to_pylist(),
    )


def _rows_batch(rows: list):
    import pyarrow as pa

    cols = list(zip(*rows)) if rows else [()] * 7
    names = ["run", "verdict", "reason", "explanation", "local_error", "diagnosis", "record"]
    return pa.RecordBatch.from_arrays([pa.array(list(c), pa.string()) for c in cols], names=names)


def check_events(
    df: Any,
    model: Any,
    run: str = "run",
    action: str = "action",
    order: str = "order",
    mode: str = "prefix",
    procedure: str = "auto",
    partitions: Optional[int] = None,
    diagnosis: bool = True,
) -> Any:
    """Checks the runs of an events DataFrame: one row per run (:data:`OUTPUT_SCHEMA`).

    ``model`` is a :class:`multitrace.Model` (or its ``.mtm`` bytes); ``run``, ``action`` and
    ``order`` name the columns; ``mode`` and ``procedure`` are those of ``Model.check``. The
    events are shuffled by run into ``partitions`` partitions (default
    ``spark.sql.shuffle.partitions``); a partition's events are held in memory while it is
    checked, so raise ``partitions`` for very large inputs.
    """
    key, bc = _share(df.sparkSession, model)
    _native_mode = str(mode)
    _native._events_check  # fail early when the extension is too old
    sel = _select(df, run, action, order).repartition(_partitions(df, partitions), "_run")

    def check(batches):
        cols = _columns(batches)
        if cols is None:
            return
        m = _model_of(key, bc)
        rows = _native._events_check(m, cols, "events", mode=_native_mode, procedure=procedure, diagnosis=diagnosis)
        yield _rows_batch(rows)

    return sel.mapInArrow(check, OUTPUT_SCHEMA)


def local_summaries(
    df: Any,
    model: Any,
    run: str = "run",
    action: str = "action",
    order: str = "order",
    mode: str = "prefix",
    partitions: Optional[int] = None,
    placed: bool = False,
) -> Any:
    """The local step alone: ``(run, loc, summary)`` rows, one per (run, location) with events.

    With ``placed=True`` the DataFrame's partitions are taken as the hosts: every (run,
    location)'s events must be in one partition (as when each host's log is one partition),
    and nothing is shuffled before the local step. Else the events are first placed by (location,
    run), standing for logs held where they were written.
    """
    from pyspark.sql import functions as F

    spark = df.sparkSession
    key, bc = _share(spark, model)
    m = model if hasattr(model, "alphabet") else None
    sel = _select(df, run, action, order)
    if not placed:
        if m is None:
            from . import load

            m = load(bytes(model))
        names = list(m.alphabet)
        locs = _native._action_locations(m, names)
        letters = spark.createDataFrame(list(zip(names, locs)), "_action string, _loc long")
        sel = (
            sel.join(F.broadcast(letters), "_action", "left")
            .repartition(_partitions(df, partitions), "_loc", "_run")
            .select("_run", "_action", "_order")
        )

    def local(batches):
        cols = _columns(batches)
        if cols is None:
            return
        mm = _model_of(key, bc)
        rows = _native._events_local(mm, cols, mode, "events")
        import pyarrow as pa

        r, k, s = zip(*rows) if rows else ((), (), ())
        yield pa.RecordBatch.from_arrays(
            [pa.array(list(r), pa.string()), pa.array(list(k), pa.int64()), pa.array(list(s), pa.binary())],
            names=["run", "loc", "summary"],
        )

    return sel.mapInArrow(local, _SUMMARY_SCHEMA)


def check_events_semi(
    df: Any,
    model: Any,
    run: str = "run",
    action: str = "action",
    order: str = "order",
    mode: str = "prefix",
    partitions: Optional[int] = None,
    placed: bool = False,
    diagnosis: bool = True,
) -> Any:
    """Seed 004's semi-centralized check on Spark: the same rows as :func:`check_events` with
    ``procedure="as"`` (the same verdicts as ``auto`` on automata models).

    The local step (:func:`local_summaries`) gives one compact summary per (run, location);
    only those are shuffled, by run, to the central step, which combines them per run (a
    location without events has an empty local trace). The model must have automata.
    """
    key, bc = _share(df.sparkSession, model)
    summaries = local_summaries(df, model, run, action, order, mode, partitions, placed)
    summaries = summaries.repartition(_partitions(df, partitions), "run")

    def central(batches):
        import pyarrow as pa

        batches = [b for b in batches if b.num_rows]
        if not batches:
            return
        t = pa.Table.from_batches(batches)
        m = _model_of(key, bc)
        # Summaries of events without a run become their Error rows there (after the runs).
        rows = _native._events_central(m, t.column("run").to_pylist(), t.column("summary").to_pylist(), diagnosis)
        yield _rows_batch(rows)

    return summaries.mapInArrow(central, OUTPUT_SCHEMA)
