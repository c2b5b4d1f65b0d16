"""Exceptions of the multitrace package.

Every exception the package raises on bad input is a :class:`MultitraceError`, with the
position of the problem when it is known: ``file``, ``line`` and ``column`` (from 1, the column
in characters), as in the command line's messages ``FILE:LINE:COLUMN: ...``.
"""

from typing import Optional

__all__ = [
    "MultitraceError",
    "ParseError",
    "ReadError",
    "LoadError",
    "CompileError",
    "CheckError",
    "GenerateError",
]


class MultitraceError(Exception):
    """Base class of the package's errors.

    Attributes:
        message: the whole message (``FILE:LINE:COLUMN: what was found, what was expected``
            when the position is known).
        file: the file concerned, or None.
        line: the line, from 1, or None.
        column: the column in characters, from 1, or None.
    """

    def __init__(
        self,
        message: str,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.column))


class ParseError(MultitraceError):
    """A model, signature or multitrace file (or JSON line) is not valid: ``line`` and
    ``column`` say where."""


class ReadError(MultitraceError):
    """A file could not be read (missing, unreadable, larger than the limit) or written."""


class LoadError(MultitraceError):
    """A compiled model (``.mtm``) could not be loaded: not a compiled model, damaged,
    written by another version, or stale (its source changed since it was compiled)."""


class CompileError(MultitraceError):
    """A model could not be compiled with the options given (locations, caps, policy)."""


class CheckError(MultitraceError):
    """A multitrace could not be checked: unknown locations or actions, or a procedure that
    cannot run on this model."""


class GenerateError(MultitraceError):
    """Multitraces of the category asked for could not be generated for this model."""
