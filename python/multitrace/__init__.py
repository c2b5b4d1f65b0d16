"""multitrace: offline runtime verification of distributed systems.

Check multitraces (one local trace per location, no global clock) against an interaction
model, exactly as the ``multitrace`` command line does, from Python::

    import multitrace
    model = multitrace.compile("fixtures/seed004-mqtt/model.hif")
    result = model.check({"clt1": ["clt1!begin"], "brok": ["brok?pub"]})
    print(result.verdict, result.reason, result.explanation)

- :func:`compile` compiles a source model (``.hif`` or Timbuk); :func:`load` loads a compiled
  ``.mtm`` (bytes or path). A :class:`Model` pickles as its ``.mtm`` bytes (Spark can broadcast
  it).
- :meth:`Model.check` checks one multitrace; :meth:`Model.check_many` checks an iterable of
  them in parallel without the GIL and yields results in input order with bounded memory;
  :meth:`Model.check_files` checks files and directories like ``multitrace check``.
- A :class:`Result` has the fields of the command line's JSON record (``schema``, ``trace``,
  ``id``, ``verdict``, ``procedure``, ``reason``, ``explanation``, ``local_error``,
  ``diagnosis``, ``budget``, ``error``, ``witness``, ``vertices``, ``time_us``), and
  ``to_dict()`` / ``to_json()``.
- :func:`read` (or :meth:`Model.read`) reads ``.htf``, ``.mtf`` and ``.jsonl`` files into
  multitrace dicts; :func:`generate` (or :meth:`Model.generate`) generates labelled
  multitraces of the ``gen`` categories.
- :meth:`Model.monitor` gives a live :class:`Monitor`: events pushed one at a time or by
  columns, records returned as soon as a run's verdict is final (a Fail at the event that makes
  it certain); picklable for checkpoints.
- :func:`read_otel` reads OpenTelemetry span files (OTLP JSON or protobuf) into the runs that
  ``multitrace check --otel`` checks.
- Errors are :class:`MultitraceError` subclasses with ``file``, ``line`` and ``column``.
"""

from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

from ._errors import (
    CheckError,
    CompileError,
    GenerateError,
    LoadError,
    MultitraceError,
    ParseError,
    ReadError,
)
from ._native import (
    DEFAULT_JOBS,
    RECORD_SCHEMA,
    Model,
    Monitor,
    Result,
    ResultIterator,
    compile,
    load,
)

__version__ = "0.1.0"

#: The attributes of a :class:`Result`, in the order of the JSON record's keys.
RECORD_FIELDS: Tuple[str, ...] = (
    "schema",
    "trace",
    "id",
    "verdict",
    "procedure",
    "reason",
    "explanation",
    "local_error",
    "diagnosis",
    "budget",
    "error",
    "witness",
    "vertices",
    "time_us",
)

#: The categories of :func:`generate` (the ``gen`` command's ``--kind``).
GENERATE_KINDS: Tuple[str, ...] = (
    "pass",
    "local-error",
    "inter-error",
    "central-error",
    "central-error-mixed",
    "prefix",
    "noise",
    "swap-actions",
    "swap-components",
)


def read(path: Union[str, "PathLike[str]"], model: Model) -> List[Dict[str, Any]]:
    """Reads a multitrace file (``.htf``, ``.mtf`` or ``.jsonl``) into multitrace dicts.

    The model is needed to name the actions (``.mtf`` and JSON Lines are read over its
    alphabet, ``.htf`` over its signature). Same as ``model.read(path)``; each dict is
    ``{"trace": ..., "id": ..., "traces": {location: [actions]}}`` and can be given to
    :meth:`Model.check` or :meth:`Model.check_many` as it is.

    Raises:
        ParseError: the file is not valid (``file``, ``line``, ``column`` say where).
        ReadError: the file cannot be read.
    """
    return model.read(path)


def _otel_map(map: Any) -> Tuple[Optional[str], str]:
    """The text of a mapping (``--otel-map``'s file), and the name of its file."""
    if map is None:
        return None, "<map>"
    if isinstance(map, dict):
        keys = {"lifeline", "run", "message", "reply_suffix"}
        unknown = set(map) - keys
        if unknown:
            raise ValueError(f"map: unknown keys {sorted(unknown)} (keys: {sorted(keys)})")
        return "".join(f"{k} = {v}\n" for k, v in map.items()), "<map>"
    import os

    path = os.fspath(map)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except OSError as e:
        raise ReadError(f"{path}: cannot read: {e}", path, None, None) from None


def read_otel(
    paths: Union[str, "PathLike[str]", List[Union[str, "PathLike[str]"]]],
    model: Model,
    map: Optional[Union[str, "PathLike[str]", Dict[str, str]]] = None,
) -> List[Dict[str, Any]]:
    """Reads OpenTelemetry span files into the runs ``multitrace check MODEL --otel FILE...``
    checks, in the order of each run's first span.

    ``paths`` are OTLP JSON files (the Collector's file exporter: one ExportTraceServiceRequest
    per line) or OTLP protobuf files; the spans of one trace may be in several lines and files.
    Spans become actions by the rules of the guide (OpenTelemetry formats): the lifeline is the
    resource's ``service.name``; a PRODUCER span is an emission at its start, a CONSUMER span a
    reception; a CLIENT span emits the request and receives the reply, a SERVER span the
    reverse; the run is the trace id; the order within a location is the span times. ``map``
    overrides the rules: the path of a mapping file (``--otel-map``) or a dict with its keys
    (``lifeline``, ``run``, ``message``, ``reply_suffix``).

    Each run is ``{"trace", "id", "traces"}``, ready for :meth:`Model.check_many`; a run that
    cannot be checked (a span whose action is not the model's, a span without the lifeline
    attribute) is ``{"trace", "id", "error"}`` with the Error record's ``error`` object (which
    names the span and the rule), and an unreadable file such an item after the runs: nothing
    is dropped.

    Raises:
        ReadError: a path does not exist or the mapping file cannot be read.
        ParseError: the mapping is not valid.
    """
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    text, name = _otel_map(map)
    from ._native import _read_otel

    return _read_otel(model, list(paths), text, name)


def generate(
    model: Model,
    kind: str,
    count: int = 100,
    length: Union[int, Tuple[int, int]] = (10, 20),
    seed: int = 0,
    max_attempts: Optional[int] = None,
    max_vertices: int = 5_000_000,
    allow_fewer: bool = False,
) -> List[Dict[str, Any]]:
    """Generates ``count`` multitraces of a category (see :data:`GENERATE_KINDS`), each
    checked before it is labelled, reproducibly for a ``seed``; same as ``model.generate``.

    ``length`` is the total number of actions: an int or an inclusive ``(min, max)``. Each
    dict has ``trace``, ``id``, ``traces``, the ``verdict`` and ``reason`` it was checked to
    have (``reason`` is None for Pass and WeakPass, as in a :class:`Result`, else the ``gen``
    label such as ``LocalError(brok)``), the ``mode`` it was checked in, and its ``length``.

    Raises:
        GenerateError: the category cannot be generated for this model (or fewer than
            ``count`` were found, unless ``allow_fewer``).
    """
    return model.generate(
        kind,
        count=count,
        length=length,
        seed=seed,
        max_attempts=max_attempts,
        max_vertices=max_vertices,
        allow_fewer=allow_fewer,
    )


__all__ = [
    "CheckError",
    "CompileError",
    "DEFAULT_JOBS",
    "GENERATE_KINDS",
    "GenerateError",
    "LoadError",
    "Model",
    "Monitor",
    "MultitraceError",
    "ParseError",
    "RECORD_FIELDS",
    "RECORD_SCHEMA",
    "ReadError",
    "Result",
    "ResultIterator",
    "compile",
    "generate",
    "load",
    "read",
    "read_otel",
]
