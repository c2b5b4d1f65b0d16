"""Type stubs of the Rust extension ``multitrace._native`` (re-exported by ``multitrace``)."""

from datetime import datetime, timedelta
from os import PathLike
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

_Path = Union[str, "PathLike[str]"]
#: A multitrace: local traces by location name, or ``{"traces": ..., "id": ..., "trace": ...}``
#: (what :meth:`Model.read` returns), or ``(id, traces)``.
Traces = Union[Mapping[str, Sequence[str]], Mapping[str, Any], Tuple[Any, Mapping[str, Sequence[str]]]]

RECORD_SCHEMA: int
DEFAULT_JOBS: int

class Result:
    """The result of checking one multitrace: the fields of the JSON record."""

    @property
    def schema(self) -> int: ...
    @property
    def trace(self) -> str: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def verdict(self) -> str:
        """``Pass``, ``WeakPass``, ``Fail``, ``Inconclusive`` or ``Error``."""
    @property
    def procedure(self) -> Optional[str]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def explanation(self) -> Optional[str]: ...
    @property
    def local_error(self) -> Optional[Dict[str, Any]]: ...
    @property
    def diagnosis(self) -> Optional[Dict[str, Any]]: ...
    @property
    def budget(self) -> Optional[Dict[str, Any]]: ...
    @property
    def error(self) -> Optional[Dict[str, Any]]: ...
    @property
    def witness(self) -> Optional[List[str]]: ...
    @property
    def vertices(self) -> int: ...
    @property
    def time_us(self) -> int: ...
    @property
    def monitor(self) -> Optional[Dict[str, Any]]:
        """A live monitor's record: closed, cut, at, order, events, state_bytes."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as a dict (the JSON record's keys, in its order)."""
    def to_json(self) -> str:
        """The record as one line of JSON, as ``multitrace check --format jsonl`` writes it."""

class ResultIterator(Iterator[Result]):
    """Results of :meth:`Model.check_many` and :meth:`Model.check_files`, in input order.

    Results stream as they are checked (memory does not grow with the input), so they cannot
    be indexed: take ``list(...)`` to index them (indexing raises a TypeError saying so)."""

    def __iter__(self) -> "ResultIterator": ...
    def __next__(self) -> Result: ...

class Model:
    """A compiled model, ready to check multitraces; immutable and thread-safe; pickles as its
    ``.mtm`` bytes."""

    @property
    def locations(self) -> List[str]: ...
    @property
    def alphabet(self) -> List[str]: ...
    @property
    def letters(self) -> Dict[str, List[str]]: ...
    @property
    def kind(self) -> str:
        """``"automata"`` or ``"term-only"``."""
    @property
    def digest(self) -> int:
        """The digest as an int: ``int(model.digest_hex, 16)``."""
    @property
    def digest_hex(self) -> str:
        """The digest as ``multitrace inspect`` prints it: 16 lowercase hexadecimal digits."""
    @property
    def source(self) -> str: ...
    @property
    def notices(self) -> List[str]: ...
    def to_bytes(self) -> bytes: ...
    def save(self, path: _Path) -> None: ...
    def check(
        self,
        traces: Traces,
        mode: str = "prefix",
        procedure: str = "auto",
        witness: bool = False,
        timeout_ms: int = 10_000,
        max_vertices: int = 5_000_000,
        diagnosis: bool = True,
        max_diagnosis_vertices: int = 1_000_000,
        por: bool = True,
        loc: bool = True,
        memo: bool = True,
        trace: Optional[str] = None,
        id: Optional[str] = None,
    ) -> Result: ...
    def check_many(
        self,
        iterable: Iterable[Traces],
        jobs: Optional[int] = None,
        mode: str = "prefix",
        procedure: str = "auto",
        witness: bool = False,
        timeout_ms: int = 10_000,
        max_vertices: int = 5_000_000,
        diagnosis: bool = True,
        max_diagnosis_vertices: int = 1_000_000,
        por: bool = True,
        loc: bool = True,
        memo: bool = True,
        errors: str = "record",
    ) -> ResultIterator: ...
    def check_files(
        self,
        paths: Sequence[_Path],
        jobs: Optional[int] = None,
        mode: str = "prefix",
        procedure: str = "auto",
        witness: bool = False,
        timeout_ms: int = 10_000,
        max_vertices: int = 5_000_000,
        diagnosis: bool = True,
        max_diagnosis_vertices: int = 1_000_000,
        por: bool = True,
        loc: bool = True,
        memo: bool = True,
        errors: str = "record",
        max_line_bytes: int = 256 << 20,
    ) -> ResultIterator: ...
    def read(self, path: _Path, max_line_bytes: int = 256 << 20) -> List[Dict[str, Any]]: ...
    def monitor(
        self,
        mode: str = "prefix",
        procedure: str = "auto",
        witness: bool = False,
        timeout_ms: int = 10_000,
        max_vertices: int = 5_000_000,
        diagnosis: bool = True,
        max_diagnosis_vertices: int = 1_000_000,
        por: bool = True,
        loc: bool = True,
        memo: bool = True,
        idle_timeout: Optional[Union[float, timedelta]] = None,
        end_action: Optional[str] = None,
        arrival: str = "auto",
        first_position: int = 0,
        reorder_window: Union[int, float, timedelta, str, None] = None,
        idleness: Optional[Union[float, timedelta]] = None,
        max_live_runs: int = 1_000_000,
        max_live_vertices: int = 4096,
        otel: bool = False,
        otel_map: Union[str, "PathLike[str]", Dict[str, str], None] = None,
        source: str = "<python>",
        state: Optional[bytes] = None,
    ) -> "Monitor": ...
    def generate(
        self,
        kind: str,
        count: int = 100,
        length: Union[int, Tuple[int, int], None] = None,
        seed: int = 0,
        max_attempts: Optional[int] = None,
        max_vertices: int = 5_000_000,
        allow_fewer: bool = False,
    ) -> List[Dict[str, Any]]: ...

class Monitor:
    """A live monitor of many runs (``Model.monitor``)."""

    @property
    def live_runs(self) -> int: ...
    @property
    def state_size(self) -> int: ...
    @property
    def events(self) -> int: ...
    @property
    def model(self) -> Model: ...
    def push(
        self, run: Optional[str], action: Optional[str], order: Any, end: bool = False,
        time_unit: Optional[str] = None, at: Optional[str] = None,
    ) -> List[Result]: ...
    def push_many(
        self, runs: Any, actions: Any, orders: Any, ends: Any = None,
        time_unit: Optional[str] = None, ats: Any = None,
    ) -> List[Result]: ...
    def close(self, run: str, why: Optional[str] = None) -> List[Result]: ...
    def close_idle(self, now: Any = None) -> List[Result]: ...
    def advance(self, now: Union[float, datetime, None] = None) -> List[Result]: ...
    def push_otel(self, spans: Union[str, bytes], at: Optional[str] = None) -> List[Result]: ...
    def push_spans(
        self,
        runs: Sequence[Any],
        actions: Sequence[Any],
        orders: Sequence[Any],
        spans: Sequence[Any],
        parents: Sequence[Any],
        kinds: Sequence[Any],
        services: Sequence[Any],
        errors: Optional[Sequence[Any]] = None,
        time_unit: Optional[str] = None,
        ats: Optional[Sequence[Any]] = None,
    ) -> List[Result]:
        """Spans as rows (a monitor made with ``otel=True``), the columns of
        ``multitrace.spark.events_from_otel(spans=True)``, taken as one line of ``push_otel``
        (the ``parents`` arrival model); returns the records decided, in order."""
        ...
    def close_all(self, why: Optional[str] = None) -> List[Result]: ...
    def state(self) -> bytes: ...
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...

def compile(
    path: _Path,
    signature: Optional[_Path] = None,
    locations: Union[str, Sequence[Sequence[str]], None] = None,
    random_locations: Optional[int] = None,
    seed: int = 0,
    state_cap: Optional[int] = None,
    dfa_cap: Optional[int] = None,
    area_cap_mb: Optional[int] = None,
    policy: str = "auto",
) -> Model: ...
def load(path_or_bytes: Union[bytes, _Path], allow_stale: bool = False) -> Model: ...
def _result_from_json(json: str) -> Result: ...
def _is_compiled(path: _Path) -> bool: ...
