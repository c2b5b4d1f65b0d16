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
]
