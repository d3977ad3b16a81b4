"""One entry point for every crosstable format: pick the reader, read, check both sides of games.

The format comes from the caller, else from the file name's extension, else from the content:

* ``.h9`` → EGD h9; ``.xml`` → OpenGotha; ``.trf`` → FIDE TRF; ``.csv`` → crosstable CSV;
* ``.txt`` (or anything else) is sniffed: TRF when a line starts with ``001``, EGD h9 when header
  lines ``; KEY[...]`` or a ``; Pl Name`` column line are there, MacMahon when a ``Pl Name`` header
  line is there, OpenGotha when the text opens an XML ``Tournament``.

Readers are imported only when used, so that one broken or missing reader does not stop the others.
"""

from __future__ import annotations

import importlib
import io
import pathlib
import re
import typing

from importers.tabular import read_file_bytes
from ratings.crosstable import Crosstable
from ratings.errors import InputError, Problem
from ratings.tiebreaks.validation import validate

__all__ = ["FORMATS", "detect_format", "read_crosstable"]

FORMATS: dict[str, tuple[str, str]] = {
    "h9": ("importers.h9", "read_h9"),
    "opengotha": ("importers.opengotha", "read_opengotha"),
    "trf": ("importers.trf", "read_trf"),
    "csv": ("importers.crosstable_csv", "read_crosstable_csv"),
    "macmahon": ("importers.macmahon", "read_macmahon"),
}
"""Format name → (module, function) of its reader."""

_EXTENSIONS = {".h9": "h9", ".xml": "opengotha", ".trf": "trf", ".csv": "csv"}
_TRF_PLAYER = re.compile(rb"^001 ", re.MULTILINE)
_H9_HEADER = re.compile(rb"^;\s*(?:[A-Z]{2}\[|Pl\s+Name)", re.MULTILINE)
_MACMAHON_HEADER = re.compile(rb"^\s*Pl\.?\s+Name\b", re.MULTILINE | re.IGNORECASE)
_XML = re.compile(rb"^\s*(?:<\?xml[^>]*>\s*)?<Tournament\b")


class _Reader(typing.Protocol):
    def __call__(self, stream: typing.BinaryIO, source: str) -> Crosstable: ...


def detect_format(name: str, head: bytes) -> str | None:
    """The format of a file called ``name`` whose first bytes are ``head``; None if unknown."""
    extension = pathlib.PurePath(name).suffix.lower()
    if extension in _EXTENSIONS:
        return _EXTENSIONS[extension]
    if _XML.match(head):
        return "opengotha"
    if _TRF_PLAYER.search(head):
        return "trf"
    if _H9_HEADER.search(head):
        return "h9"
    if _MACMAHON_HEADER.search(head):
        return "macmahon"
    return None


def read_crosstable(
    path: pathlib.Path, format: str | None = None, data: bytes | None = None
) -> Crosstable:
    """Read the crosstable in ``path`` with the reader of ``format`` (detected when None).

    Raises :class:`InputError` naming the file when it cannot be read, is empty, its format is
    unknown, or its content has problems (all of them, from the reader and from the game checks).
    ``data`` is the file's content when the caller has read it already: the file is read once,
    so one deleted or changed meanwhile cannot be read half old, half new.
    """
    source = path.name
    if data is None:
        data = read_file_bytes(path)
    if not data.strip():
        raise InputError([Problem(source, None, None, None, "a non-empty file")])
    chosen = format or detect_format(source, data[:65536])
    if chosen not in FORMATS:
        raise InputError(
            [
                Problem(
                    source,
                    None,
                    None,
                    chosen,
                    f"a crosstable in one of the formats {', '.join(FORMATS)}",
                )
            ]
        )
    module, function = FORMATS[chosen]
    reader: _Reader = getattr(importlib.import_module(module), function)
    crosstable = reader(io.BytesIO(data), source)
    problems = validate(crosstable)
    if problems:
        raise InputError(problems)
    return crosstable
