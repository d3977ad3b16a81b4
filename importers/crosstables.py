"""One entry point for every crosstable format: pick the reader, read, check both sides of games.

The format comes from the caller, else from the file name's suffix, else from the content (see
:mod:`importers.formats`): ``.h9`` is EGD h9, ``.xml`` OpenGotha, ``.trf`` FIDE TRF, ``.csv`` a
crosstable CSV; any other file is TRF when a line starts with ``001``, EGD h9 when header lines
``; KEY[...]`` or a ``; Pl Name`` column line are there, MacMahon when a ``Pl Name`` header line is
there, OpenGotha when the text opens an XML ``Tournament``.

Readers are imported only when used, so that one broken or missing reader does not stop the others.
"""

from __future__ import annotations

import importlib
import io
import pathlib
import typing

from importers.formats import CROSSTABLES, crosstable_format
from importers.text_bytes import is_blank
from ratings.crosstable import Crosstable
from ratings.errors import InputError, Problem

__all__ = ["parse_crosstable", "read_crosstable"]


class _Reader(typing.Protocol):
    def __call__(self, stream: typing.BinaryIO, source: str) -> Crosstable: ...


def read_crosstable(path: pathlib.Path, format: str | None = None) -> Crosstable:
    """Read the crosstable in ``path`` (once) with the reader of ``format`` (detected when None).

    Raises :class:`InputError` naming the file when it cannot be read, is empty, its format is
    unknown, or its content has problems (all of them, from the reader and from the game checks).
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(
            [Problem(path.name, None, None, None, f"a readable file ({error})")]
        ) from None
    return parse_crosstable(data, path.name, format)


def parse_crosstable(data: bytes, source: str, format: str | None = None) -> Crosstable:
    """The crosstable in the bytes ``data`` of the file called ``source``; as
    :func:`read_crosstable`, for a caller that has read the file (and hashed what it read)."""
    if is_blank(data):
        raise InputError([Problem(source, None, None, None, "a non-empty file")])
    chosen = format or crosstable_format(source, data)
    if chosen not in CROSSTABLES:
        raise InputError(
            [
                Problem(
                    source,
                    None,
                    None,
                    chosen,
                    f"a crosstable in one of the formats {', '.join(CROSSTABLES)}",
                )
            ]
        )
    module, _, function = (CROSSTABLES[chosen].reader or "").partition(":")
    reader: _Reader = getattr(importlib.import_module(module), function)
    # Every reader ends with the one check of the games (ProblemLog.finish).
    return reader(io.BytesIO(data), source)
