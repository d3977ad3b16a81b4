"""Every input format the service reads: its name, the suffixes that name it, its first bytes.

Tables (CSV, XLSX, JSON, Parquet) hold results in the long format, the player registry or a
participant list; crosstables (EGD h9, OpenGotha XML, FIDE TRF, the MacMahon program's result list,
a plain crosstable CSV) hold an event's games round by round. A file's format comes from its name
when the suffix says it, else from its first bytes (:func:`sniff`). The import job, the crosstable
readers, the registry and participant readers and the web upload all ask this registry.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath

from importers.headers import canonical
from ratings.errors import InputError, Problem


class Kind(enum.Enum):
    TABLE = "table"
    """Rows of named columns: results, the registry, a participant list."""
    CROSSTABLE = "crosstable"
    """An event's games, one row per player and one cell per round."""


@dataclass(frozen=True, slots=True)
class InputFormat:
    name: str
    """The format's name (a table's for ``read_table``, a crosstable's for ``Crosstable.format``,
    stored as the tournament's ``source_format``)."""
    kind: Kind
    suffixes: tuple[str, ...]
    """Lower-case file name suffixes that stand for the format."""
    signature: re.Pattern[bytes] | None = None
    """What the first bytes of a file in the format show; None when nothing tells it apart."""
    reader: str | None = None
    """``module:function`` of a crosstable's reader, imported when used so that one broken
    reader does not stop the others."""


FORMATS = (
    InputFormat("csv", Kind.TABLE, (".csv", ".tsv", ".txt")),
    InputFormat("xlsx", Kind.TABLE, (".xlsx", ".xlsm"), re.compile(rb"\APK\x03\x04")),
    # A JSON table is an array of objects, possibly after a BOM and blanks.
    InputFormat("json", Kind.TABLE, (".json",), re.compile(rb"\A[\xef\xbb\xbf \t\r\n]*\[")),
    InputFormat("parquet", Kind.TABLE, (".parquet", ".pq"), re.compile(rb"\APAR1")),
    # h9 header lines "; KEY[...]" or its "; Pl Name" column line.
    InputFormat(
        "h9", Kind.CROSSTABLE, (".h9",),
        re.compile(rb"^;\s*(?:[A-Z]{2}\[|Pl\s+Name)", re.MULTILINE), "importers.h9:read_h9",
    ),
    InputFormat(
        "opengotha", Kind.CROSSTABLE, (".xml",),
        re.compile(rb"\A\s*(?:<\?xml[^>]*>\s*)?<Tournament\b"), "importers.opengotha:read_opengotha",
    ),
    # TRF player records start with 001.
    InputFormat(
        "trf", Kind.CROSSTABLE, (".trf",), re.compile(rb"^001 ", re.MULTILINE),
        "importers.trf:read_trf",
    ),
    InputFormat(
        "csv", Kind.CROSSTABLE, (".csv",), None, "importers.crosstable_csv:read_crosstable_csv"
    ),
    # The MacMahon program's "Pl Name Str Cl MMS ..." header.
    InputFormat(
        "macmahon", Kind.CROSSTABLE, (),
        re.compile(rb"^\s*Pl\.?\s+Name\b", re.MULTILINE | re.IGNORECASE),
        "importers.macmahon:read_macmahon",
    ),
)  # fmt: skip
"""Every format, tables then crosstables, each kind in the order its names are listed to users."""

TABLES: tuple[str, ...] = tuple(f.name for f in FORMATS if f.kind is Kind.TABLE)
CROSSTABLES: dict[str, InputFormat] = {f.name: f for f in FORMATS if f.kind is Kind.CROSSTABLE}

IMPORT_FORMATS: dict[str, str | None] = {
    "results": None, "h9": "h9", "trf": "trf", "opengotha": "opengotha", "macmahon": "macmahon",
    "crosstable": "csv",
}  # fmt: skip
"""The import job's ``--format`` names: a results table (None), or the crosstable format."""

SNIFF_BYTES = 65536
"""How much of a file :func:`sniff` looks at."""

_RESULTS_HEADER = re.compile(rb"\A[^\n]*(?:wins|buchholz)", re.IGNORECASE)
"""A CSV file whose header names these columns is results in the long format, not a crosstable."""
_TEXT = ".txt"


def _suffix(name: str) -> str:
    return PurePath(name).suffix.lower()


def _of_kind(kind: Kind) -> Iterable[InputFormat]:
    return (f for f in FORMATS if f.kind is kind)


def by_suffix(name: str, kind: Kind) -> InputFormat | None:
    """The format of ``kind`` that the suffix of ``name`` stands for, if any."""
    suffix = _suffix(name)
    return next((f for f in _of_kind(kind) if suffix in f.suffixes), None)


def sniff(head: bytes, kind: Kind) -> InputFormat | None:
    """The first format of ``kind`` whose signature the bytes ``head`` show, if any."""
    head = head[:SNIFF_BYTES]
    return next(
        (f for f in _of_kind(kind) if f.signature is not None and f.signature.search(head)), None
    )


def table_format(name: str, head: bytes) -> str:
    """The table format of a file called ``name`` whose first bytes are ``head``: from the suffix,
    else from the content, else CSV (a browser may send a file without a suffix)."""
    found = by_suffix(name, Kind.TABLE) or sniff(head, Kind.TABLE)
    return "csv" if found is None else found.name


def table_format_of(path: PurePath) -> str:
    """The table format of ``path`` from its suffix; an :class:`InputError` naming the file
    when the suffix is not a table's."""
    found = by_suffix(path.name, Kind.TABLE)
    if found is not None:
        return found.name
    expected = "expected a .csv, .xlsx, .json or .parquet file"
    raise InputError([Problem(path.name, None, None, path.suffix, expected)])


def crosstable_format(name: str, head: bytes) -> str | None:
    """The crosstable format of a file called ``name`` whose first bytes are ``head``: from the
    suffix, else from the content; None when neither tells."""
    found = by_suffix(name, Kind.CROSSTABLE) or sniff(head, Kind.CROSSTABLE)
    return None if found is None else found.name


def results_table(name: str, head: bytes) -> str | None:
    """The table format of a file the import job reads as results in the long format; None when
    it is to be read as a crosstable.

    XLSX, JSON and Parquet files are results. A CSV file is results when its header names
    ``wins`` or ``buchholz`` (or ``draws``, ``losses``, by any of their names), else a crosstable
    CSV. A ``.txt`` file is always a crosstable: TRF,
    h9 and MacMahon lists are text files, and a TRF title may well contain "wins".
    """
    table = by_suffix(name, Kind.TABLE)
    if table is None or _suffix(name) == _TEXT:
        return None
    if table.name == "csv" and not (_RESULTS_HEADER.search(head) or _results_headings(head)):
        return None
    return table.name


_RESULTS_ONLY = ("wins", "draws", "losses", "buchholz")
"""Columns of a results table that a crosstable never has."""


def _results_headings(head: bytes) -> bool:
    """Whether the first line of ``head`` names a column of ``_RESULTS_ONLY`` by one of its
    names (``importers.headers``): ``W;D;L;BH`` is a results table too."""
    line = re.split(rb"[\r\n]", head[:SNIFF_BYTES], maxsplit=1)[0]
    text = line.decode("utf-8", "replace")
    return any(canonical(cell, _RESULTS_ONLY) for cell in re.split(r"[;,]", text))
