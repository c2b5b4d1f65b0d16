"""multitrace on Spark: event logs to verdicts, one row per run.

``pip install 'multitrace[spark]'`` (pyspark and pyarrow). Two functions, same verdicts:

- :func:`check_events`: the events are shuffled by run id, and each partition's runs are
  grouped and checked by the runtime (``multitrace_formats::events``, the code of
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
import json
import sys
from typing import Any, Dict, Iterator, Optional, Set, Tuple

from . import _native

__all__ = [
    "check_events",
    "check_events_semi",
    "events_from_otel",
    "monitor_events",
    "EVENTS_SCHEMA",
    "MONITOR_SCHEMA",
    "SPANS_SCHEMA",
    "OUTPUT_SCHEMA",
]

#: The schema of the DataFrames returned (Spark DDL).
OUTPUT_SCHEMA = (
    "run string, verdict string, reason string, explanation string, "
    "local_error string, diagnosis string, record string"
)

#: The schema of :func:`monitor_events`' streaming DataFrame: :data:`OUTPUT_SCHEMA`, with
#: ``record`` the line of ``multitrace monitor --format jsonl`` (the record with its
#: ``monitor`` object), and ``closed``: why the record was written (``decided``, ``error``,
#: ``end-event``, ``idle``, ``evicted``).
MONITOR_SCHEMA = OUTPUT_SCHEMA + ", closed string"

#: The schema of :func:`events_from_otel`: the events columns of :func:`check_events`
#: (``order``: the span time, a timestamp), ``at`` (which span and rule made the event) and
#: ``error`` (why a span gave no action: then ``action`` is null).
EVENTS_SCHEMA = "run string, action string, order timestamp, at string, error string"

#: The schema of :func:`events_from_otel` with ``spans=True``: :data:`EVENTS_SCHEMA` and each
#: row's span: ``span`` (its span id, hex), ``parent`` (its parent's span id, null for a
#: root), ``kind`` (``SERVER``, ``CLIENT``, ``PRODUCER``, ``CONSUMER``, ``INTERNAL`` or
#: ``UNSPECIFIED``) and ``service`` (its lifeline); a span that gives no event (an
#: ``INTERNAL`` span) is a row with null ``action``, ``order`` and ``error``.
SPANS_SCHEMA = EVENTS_SCHEMA + ", span string, parent string, kind string, service string"

_SUMMARY_SCHEMA = "run string, loc long, summary binary"

# Models loaded in this process, by the SHA-256 of their bytes.
_MODELS: Dict[str, Any] = {}

# Monitors in this process, by model and options (spark.monitor_events), with their empty state.
_MONITORS: Dict[Any, Any] = {}

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


def _is_spark_zip(archive: str) -> bool:
    """Spark's own archives on a worker's ``sys.path``: ``pyspark.zip`` and ``py4j-*-src.zip``
    (``$SPARK_HOME/python/lib``) and Spark's core jar (``$SPARK_HOME/jars/spark-core_*.jar``,
    a zip of 5,000 files that Spark 4 puts on the workers' path)."""
    import os

    name = os.path.basename(archive)
    return (name == "pyspark.zip" or (name.startswith("py4j-") and name.endswith("-src.zip"))
            or (name.startswith("spark-core_") and name.endswith(".jar")))


def _keep_spark_zips(cache: Optional[Dict[str, Any]] = None) -> int:
    """On Python 3.10 and 3.11, makes ``importlib.invalidate_caches()`` leave Spark's own zip
    archives alone in this process; returns how many importers it changed.

    Spark's worker calls ``importlib.invalidate_caches()`` at the start of every task, and on
    those Pythons a zip importer's ``invalidate_caches`` reads the archive's whole directory
    again (CPython gh-103200, lazy again from 3.12): ``pyspark.zip`` and Spark's core jar are on
    every worker's path, with an importer per package imported from them, so each task paid
    about 0.14 s of CPU (measured at load 10) before any of its rows were read
    (docs/performance.md, "Spark: partitions on small inputs"). Spark's archives
    do not change while a worker lives, so their directories are kept; other archives (a job's
    ``--py-files``) are invalidated as before.
    """
    import zipimport

    if sys.version_info[:2] not in ((3, 10), (3, 11)):
        return 0
    changed = 0
    for finder in list((sys.path_importer_cache if cache is None else cache).values()):
        if (isinstance(finder, zipimport.zipimporter) and _is_spark_zip(finder.archive)
                and "invalidate_caches" not in vars(finder)):
            finder.invalidate_caches = _keep  # type: ignore[method-assign]
            changed += 1
    return changed


def _keep() -> None:
    """An archive's directory kept (see :func:`_keep_spark_zips`)."""


def _model_of(key: str, broadcast: Any) -> Any:
    # Every function of this module that runs on a worker loads the model here first.
    _keep_spark_zips()
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
    # Spark's default of 200 shuffle partitions makes a small input pay ~0.5 s per empty
    # partition (80 runs: 93 s at 200, 1.5 s at 2; docs/performance.md). The input's own
    # partition count follows its size (one per file split), so take that, at least the
    # cluster's parallelism, at most ``spark.sql.shuffle.partitions``, rounded up to whole
    # waves of tasks (a multiple of the parallelism): 3 partitions on 2 cores leave one core
    # idle for the last third of the job.
    configured = int(df.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    parallelism = max(1, int(df.sparkSession.sparkContext.defaultParallelism))
    n = max(df.rdd.getNumPartitions(), parallelism)
    return max(1, min(configured, -(-n // parallelism) * parallelism))


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
    events are shuffled by run into ``partitions`` partitions (default: the input's partition
    count, at least the cluster's default parallelism (rounded up to a multiple of it) and at most
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


def _seconds(value: Any, name: str) -> float:
    """Seconds from a number, a ``datetime.timedelta`` or a Spark interval string such as
    ``"30 seconds"``."""
    if hasattr(value, "total_seconds"):
        return float(value.total_seconds())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        units = {"ms": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3, "s": 1, "second": 1,
                 "seconds": 1, "m": 60, "minute": 60, "minutes": 60, "h": 3600, "hour": 3600,
                 "hours": 3600}
        parts = value.split()
        if len(parts) == 2 and parts[1].lower() in units:
            try:
                return float(parts[0]) * units[parts[1].lower()]
            except ValueError:
                pass
    raise ValueError(
        f"{name}={value!r}: give seconds, a datetime.timedelta or a string such as '30 seconds'"
    )


def monitor_events(
    stream_df: Any,
    model: Any,
    run: str = "run",
    action: str = "action",
    order: str = "order",
    idle_timeout: Any = "30 seconds",
    watermark: Any = "10 seconds",
    end_action: Optional[str] = None,
    mode: str = "prefix",
    procedure: str = "auto",
    diagnosis: bool = True,
    max_live_vertices: int = 4096,
    reorder_window: Any = None,
    buckets: int = 64,
    at: Optional[str] = None,
    position: Optional[str] = None,
    first_position: int = 0,
    span: Optional[str] = None,
    parent: str = "parent",
    kind: str = "kind",
    service: str = "service",
    error: Optional[str] = None,
) -> Any:
    """Live verdicts on Spark Structured Streaming: a streaming DataFrame of records
    (:data:`MONITOR_SCHEMA`), one per run, written as soon as the run's verdict is final.

    ``stream_df`` is a streaming DataFrame of events; ``order`` must be an event-time
    timestamp column (the order within each location, and the stream's event time). The runs
    are hashed into ``buckets`` groups of Spark's stateful operator ``applyInPandasWithState``
    (``xxhash64`` of the run id, modulo ``buckets``); a bucket's state is one runtime monitor's
    bytes (``Monitor.state()``: every live run of the bucket) and each live run's latest event
    time, so Spark's checkpoint holds every live run and a query restarted from its checkpoint
    location gives exactly the records of an uninterrupted one (with an exactly-once sink such
    as files). A micro-batch costs one Python call per bucket with events (one ``push_many``
    of all its events), not one per run. ``buckets`` is fixed for a checkpoint: a restart with
    another count is refused (``MultitraceError``), since its runs' states would be looked for
    in other buckets.

    Timeouts are in event time (``GroupStateTimeout.EventTimeTimeout``): the watermark is
    ``watermark`` behind the largest event time seen, and a run ends (its record is written,
    ``closed="idle"``) at the first call of its bucket (a micro-batch with events of the bucket,
    or the bucket's own timeout, set to its earliest run's) where the watermark has passed
    its latest event's time plus ``idle_timeout`` and no event of the run came in that
    micro-batch. A run also ends at an event with action ``end_action``; a Fail is written at
    the micro-batch of the event that makes it certain. Within a run, each location's events are
    held while they are within ``watermark`` of that location's newest (the monitor's reorder
    window), so events arriving out of order across micro-batches are put back in order; an
    event older than that gives its run an ``Error`` record (``reorder_window``, seconds or a
    string such as ``"5 seconds"``, sets another window; 0 when each location's events come in
    order: then a Fail is written at the micro-batch of its event). Spark does not drop events
    older than the watermark before this operator: an event of a run that is still live is
    checked as any other, and an event arriving after its run's record (the run timed out)
    starts a new run with that id, which gets its own record (as in ``multitrace monitor``):
    choose a ``watermark`` and an ``idle_timeout`` longer than the delays of the sources.

    With ``position``, the name of a column holding each event's position in its local trace
    (an integer from ``first_position``: 0, 1, 2, ...), a location's events are fed in that
    order, each once the positions before it came, whatever the micro-batch or the order they
    arrive in (the monitor's ``positions`` arrival model: exact, nothing to tune); ``order``
    then only drives the watermark and the idle timeouts, and a position still missing when its
    run times out makes the run's record an ``Error`` naming it.

    With ``span``, the name of a column holding each row's span id, the rows are
    OpenTelemetry spans (:data:`SPANS_SCHEMA`, as :func:`events_from_otel` gives them with
    ``spans=True``; columns ``parent``, ``kind`` and ``service`` name the parent span id, the
    span kind and the span's service, ``error`` optionally why a row's span gives no event):
    the monitor's ``parents`` arrival model (``multitrace monitor --otel``). A span is exported
    when it ends, so a CLIENT, PRODUCER or INTERNAL span whose parent (a span of its own
    service) has not come tells that an earlier action of that service is still to come: that
    service's events in the run are held until the parent comes, in any later micro-batch, or
    the run ends (its idle timeout); a bucket's rows of a micro-batch are taken as one line of
    spans (``Monitor.push_spans``). The held spans are in the bucket's state. No reorder
    window is needed then (``reorder_window``, when given, is added); ``order`` orders a
    service's events and drives the watermark and the idle timeouts.

    ``mode``, ``procedure`` and ``diagnosis`` are those of :func:`check_events`;
    ``max_live_vertices`` bounds one run's product (``Model.monitor``). Output mode: append.
    A record decided by an event names it in ``monitor["at"]`` of its ``record``: the string
    in the event's column ``at`` when given (for example the ``at`` column of
    :func:`events_from_otel`: span, service, rule), else the event's time,
    ``time:YYYY-MM-DDTHH:MM:SS.ffffffZ`` (UTC); with the record's run, that is the event.
    The operator has ``spark.sql.shuffle.partitions`` partitions (fixed by the checkpoint at the
    query's first start; Spark's default of 200 runs 200 tasks per micro-batch): set it to about
    the cluster's cores before the first start (a warning says so when it is above
    ``buckets``, whose extra partitions would stay empty).
    """
    from pyspark.sql import functions as F
    from pyspark.sql.streaming.state import GroupStateTimeout
    from pyspark.sql.types import TimestampType

    if order not in stream_df.columns:
        raise ValueError(f"no column {order!r} in the DataFrame (columns: {', '.join(stream_df.columns)})")
    if not isinstance(stream_df.schema[order].dataType, TimestampType):
        raise ValueError(
            f"monitor_events needs an event-time timestamp column as order (column {order!r} is "
            f"{stream_df.schema[order].dataType.simpleString()}): cast it, e.g. "
            f"F.timestamp_seconds(...) or F.to_timestamp(...)"
        )
    if isinstance(buckets, bool) or not isinstance(buckets, int) or buckets < 1:
        raise ValueError(f"buckets={buckets!r}: a whole number, at least 1")
    idle_ms = int(_seconds(idle_timeout, "idle_timeout") * 1000)
    wm = _seconds(watermark, "watermark")
    window = wm if reorder_window is None else _seconds(reorder_window, "reorder_window")
    spark = stream_df.sparkSession
    key, bc = _share(spark, model)
    options = dict(mode=mode, procedure=procedure, diagnosis=diagnosis,
                   max_live_vertices=max_live_vertices, end_action=end_action, source="events")
    if span is not None:
        if position is not None:
            raise ValueError("span (the parents model) and position are two arrival models: give one")
        options.update(otel=True, arrival="parents")
        if reorder_window is not None:
            options.update(reorder_window=window)
    elif position is None:
        options.update(reorder_window=0 if window == 0 else window)
    else:
        if reorder_window is not None:
            raise ValueError("reorder_window goes with event-time order, not with position")
        options.update(arrival="positions", first_position=first_position)
    # Fail early (on the driver) for a wrong option or action.
    mm = model if hasattr(model, "monitor") else _model_of(key, bc)
    mm.monitor(**options)
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    if partitions > buckets:
        import warnings

        warnings.warn(
            f"monitor_events: spark.sql.shuffle.partitions is {partitions}, more than the "
            f"{buckets} buckets of runs: {partitions - buckets} partitions stay empty and each "
            f"still costs a task per micro-batch; set spark.sql.shuffle.partitions (about the "
            f"cluster's cores) before the query's first start (its checkpoint keeps it)",
            stacklevel=2,
        )
    mkey = (key, repr(sorted(options.items())))
    df = stream_df.withWatermark(order, f"{int(wm * 1000)} milliseconds")
    extra = (() if at is None else (at,)) + (() if position is None else (position,))
    if span is not None:
        extra += (span, parent, kind, service) + (() if error is None else (error,))
    for c in (run, action) + extra:
        if c not in df.columns:
            raise ValueError(f"no column {c!r} in the DataFrame (columns: {', '.join(df.columns)})")
    run_id = F.col(run).cast("string")
    if at is None:
        # The event's time in UTC, to the microsecond (Spark's precision): with the run, it
        # names the event whatever the source.
        tz = spark.conf.get("spark.sql.session.timeZone")
        place = F.concat(F.lit("time:"), F.date_format(
            F.to_utc_timestamp(F.col(order), tz), "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'"))
    else:
        place = F.col(at).cast("string")
    sel = df.select(
        F.pmod(F.xxhash64(run_id), F.lit(buckets)).cast("int").alias("_bucket"),
        run_id.alias("_run"),
        F.col(action).cast("string").alias("_action"),
        F.col(order).alias("_ts"),
        F.unix_micros(F.col(order)).alias("_us"),
        place.alias("_at"),
        (F.col(position) if position is not None else F.lit(None)).cast("long").alias("_pos"),
        *([] if span is None else [
            F.col(c).cast("string").alias(f"_{n}") for c, n in
            ((span, "span"), (parent, "parent"), (kind, "kind"), (service, "service"))]),
        *([] if span is None or error is None else [F.col(error).cast("string").alias("_error")]),
    )
    names = ["run", "verdict", "reason", "explanation", "local_error", "diagnosis", "record", "closed"]

    def step(group, pdfs, state):
        import pandas as pd

        # One monitor per worker process, given each bucket's state in turn: no monitor is
        # built per group.
        cached = _MONITORS.get(mkey)
        if cached is None:
            fresh = _model_of(key, bc).monitor(**options)
            cached = _MONITORS[mkey] = (fresh, fresh.state())
        mon, empty = cached
        if state.exists:
            count, blob, latest = state.get
            if count != buckets:
                from . import MultitraceError

                raise MultitraceError(
                    f"monitor_events: the checkpoint's states are of {count} buckets, this "
                    f"query has buckets={buckets}: restart with buckets={count} (or a new "
                    f"checkpoint location)"
                )
            mon.__setstate__(blob)
            # Each live run's latest event time (ms): when it goes idle.
            last = json.loads(latest)
        else:
            mon.__setstate__(empty)
            last = {}
        watermark_ms = state.getCurrentWatermarkMs()
        records = []
        seen = ()
        frames = [p for p in pdfs if len(p)]
        if frames:
            pdf = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
            # Arrival order within a micro-batch is not defined: by event time.
            pdf = pdf.sort_values("_us", kind="stable")
            us = pdf["_us"]
            if us.isna().any():
                # (A null in a long column makes pandas floats: back to ints, None for nulls.)
                us = us.astype(object).where(us.notna(), None).map(
                    lambda u: None if u is None else int(u))
            ats = pdf["_at"]
            if ats.isna().any():
                # (An event without a time has no place: pandas makes the null a float.)
                ats = ats.astype(object).where(ats.notna(), None)
            if span is not None:
                def col(name):
                    c = pdf[name] if name in pdf else pd.Series([None] * len(pdf))
                    return c.astype(object).where(c.notna(), None).tolist()

                records = mon.push_spans(
                    col("_run"), col("_action"), us.tolist(), col("_span"), col("_parent"),
                    col("_kind"), col("_service"), errors=col("_error"), time_unit="us",
                    ats=ats.tolist())
            elif position is None:
                records = mon.push_many(pdf["_run"], pdf["_action"], us.tolist(), time_unit="us",
                                        ats=ats.tolist())
            else:
                pos = pdf["_pos"].astype(object).where(pdf["_pos"].notna(), None).map(
                    lambda p: None if p is None else int(p))
                records = mon.push_many(pdf["_run"], pdf["_action"], pos.tolist(), ats=ats.tolist())
            newest = pdf.dropna(subset=["_run", "_us"]).groupby("_run", sort=False)["_us"].max()
            seen = set()
            for r, u in zip(newest.index.tolist(), newest.tolist()):
                ms = int(u) // 1000
                seen.add(r)
                if ms > last.get(r, ms - 1):
                    last[r] = ms
            # A run whose events here all lack a time (each an Error of its run) still ends
            # when idle: from the newest time of the micro-batch.
            untimed = set(pdf["_run"].dropna().unique().tolist()) - seen
            if untimed:
                fallback = int(newest.max()) // 1000 if len(newest) else max(watermark_ms, 0)
                for r in untimed:
                    last.setdefault(r, fallback)
                    seen.add(r)
        # Runs idle past the timeout (none of their events in this micro-batch), oldest first.
        idle = sorted((ms, r) for r, ms in last.items() if r not in seen and ms + idle_ms < watermark_ms)
        for _, r in idle:
            records.extend(mon.close(r, "idle"))
            del last[r]
        if last:
            state.update((buckets, mon.state(), json.dumps(last, separators=(",", ":")).encode()))
            state.setTimeoutTimestamp(max(min(last.values()) + idle_ms, watermark_ms + 1))
        elif state.exists:
            state.remove()
        if not records:
            return
        rows = []
        for r in records:
            d = r.to_dict()
            mon_info = d.get("monitor") or {}
            rows.append((
                d["id"], d["verdict"], d["reason"], d["explanation"],
                None if d["local_error"] is None else json.dumps(d["local_error"], separators=(",", ":")),
                None if d["diagnosis"] is None else json.dumps(d["diagnosis"], separators=(",", ":")),
                r.to_json(), mon_info.get("closed", "error"),
            ))
        yield pd.DataFrame(rows, columns=names)

    return sel.groupBy("_bucket").applyInPandasWithState(
        step, MONITOR_SCHEMA, "buckets int, state binary, last binary", "append",
        GroupStateTimeout.EventTimeTimeout)


def events_from_otel(
    df: Any,
    column: str = "value",
    map: Any = None,
    spans: bool = False,
) -> Any:
    """The events of OpenTelemetry spans: a DataFrame of OTLP JSON lines (one
    ExportTraceServiceRequest per row in ``column``, as ``spark.read.text`` of the Collector's
    file exporter output gives) to the events columns :func:`check_events` and
    :func:`monitor_events` take (:data:`EVENTS_SCHEMA`): ``run`` (the trace id, or the
    mapping's run attribute), ``action`` (``service!message`` or ``service?message``),
    ``order`` (the span's start or end time, a timestamp), ``at`` and ``error``.

    The rules are those of ``multitrace check --otel`` (``multitrace.read_otel``); ``map``
    overrides them (a mapping file's path or a dict, as in :func:`multitrace.read_otel`).
    Works on streaming DataFrames too. A span that gives no action (no lifeline attribute) is a
    row with a null ``action`` and its ``error``, and a line that is not OTLP JSON a row with a
    null ``run``: :func:`check_events` makes them Error records, nothing is dropped. Rows are
    named ``spans:N`` by their position in their partition. Timestamps are kept to the
    microsecond (Spark's precision): spans of one service closer than that have no defined
    order.

    With ``spans=True``, the rows are those of :data:`SPANS_SCHEMA`: each event with its span
    (span id, parent span id, kind, service) and a row for each span that gives no event, what
    :func:`monitor_events` takes with ``span="span"`` to follow the spans' parents (give it
    ``at="at"`` and ``error="error"`` too). :func:`check_events` takes the rows without
    actions of spans that give none as bad events: give it the rows of ``spans=False``.
    """
    from pyspark.sql import functions as F

    from . import _otel_map

    if column not in df.columns:
        raise ValueError(f"no column {column!r} in the DataFrame (columns: {', '.join(df.columns)})")
    text, name = _otel_map(map)
    if text is not None:
        _native._otel_events([], text, name)  # a bad mapping fails here, on the driver

    def spans_of(batches):
        import pyarrow as pa

        _keep_spark_zips()
        for b in batches:
            if not b.num_rows:
                continue
            (runs, actions, orders, ats, errors), links = _native._otel_events(
                b.column(0).to_pylist(), text, name, spans=spans)
            cols = [pa.array(runs, pa.string()), pa.array(actions, pa.string()),
                    pa.array([None if o is None else o // 1000 for o in orders], pa.timestamp("us", tz="UTC")),
                    pa.array(ats, pa.string()), pa.array(errors, pa.string())]
            names = ["run", "action", "order", "at", "error"]
            if links is not None:
                cols += [pa.array(c, pa.string()) for c in links]
                names += ["span", "parent", "kind", "service"]
            yield pa.RecordBatch.from_arrays(cols, names=names)

    return df.select(F.col(column).cast("string")).mapInArrow(
        spans_of, SPANS_SCHEMA if spans else EVENTS_SCHEMA)
