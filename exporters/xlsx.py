"""XLSX output. Every text cell is written as text: a name such as ``=HYPERLINK(...)`` or ``-2``
arrives in the spreadsheet as those characters, never as a formula or a number (SPEC 4.4). A
number is a number cell: an exact rating (a decimal with 10 places) is written as the double
nearest to it, whose shortest text is that decimal again for any value below 100,000 points
(a double keeps 15 significant digits), so that the cell shows and reads back its 10 decimals.

The workbook is rust_xlsxwriter's (through ``rustpy_xlsxwriter``): its parts, styles, column
widths, frozen header and filter. A large sheet's rows are the one part built here instead, by
polars in native code, cell for cell the XML rust_xlsxwriter writes for them, and compressed by
ISA-L: rust_xlsxwriter spends most of a million-row sheet building that XML and compressing it at
zlib's default level, holds the interpreter's lock while it does, and has no setting for either.
A frame whose cells it writes in a way not copied here (floats that are not finite, dates before
March 1900, text with control characters or ``_xHHHH_`` escapes, integers beyond 2**53) is
written by rust_xlsxwriter whole.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import IO, BinaryIO, cast

import polars as pl
from isal import isal_zlib
from rustpy_xlsxwriter import FastExcel

from exporters.writers import joined_text, text_pieces

MIN_WIDTH = 10
MAX_WIDTH = 60
SHEET_PART = "xl/worksheets/sheet1.xml"
WORKBOOK_PART = "xl/workbook.xml"
ROWS_FROM = 1_000
"""Rows from which the sheet's rows are built here; a smaller sheet costs milliseconds either way."""
SLICE = 100_000
"""Rows built and compressed at a time: the sheet's text (about 500 bytes a row) is never whole."""
LEVEL = 1
"""ISA-L's compression level: at 1 a ranking's workbook is 16 % larger than rust_xlsxwriter's, its
sheet deflated in a fifth of the time zlib takes at its fastest level."""
ZIP32_LIMIT = 0xFFFFFFFF
"""Sizes and offsets from which a ZIP file records them in its ZIP64 fields."""
_EXACT_INTEGERS = 2**53
"""rust_xlsxwriter writes a number as a double: integers beyond this are not whole numbers any more."""
_FIRST_SERIAL_DAY = date(1900, 3, 1)
"""Excel's serial days count a 29 February 1900 that never was; from this day on they are plain."""
_EPOCH_SERIAL = 25_569
"""Excel's serial day of 1970-01-01."""
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
"""What rust_xlsxwriter escapes in a text cell."""
_ESCAPED = "[&<>]"
"""A text with one of these needs escaping."""
_ROW = "\x00row"
"""The column of a slice holding its rows' numbers as text (no frame's own column is named so)."""
_UNCOPIED_TEXT = r"[\x00-\x1f\x{FFFE}\x{FFFF}]|_x[0-9A-Fa-f]{4}_"
"""Text rust_xlsxwriter writes in forms not copied here: control characters and ``_xHHHH_``."""


def write_xlsx(frame: pl.DataFrame, stream: IO[bytes], *, sheet: str = "list") -> None:
    # rust_xlsxwriter leaves a column of decimals out of the sheet: it gets their doubles.
    decimals = [name for name, dtype in frame.schema.items() if dtype.is_decimal()]
    if decimals:
        frame = frame.with_columns(pl.col(decimals).cast(pl.Float64))
    widths = _widths(frame)
    layout = None
    if frame.height >= ROWS_FROM and copied(frame):
        layout = _layout(frame, sheet[:31], widths)
    if layout is None:
        _write_rust(frame, cast(BinaryIO, stream), sheet[:31], widths)
    else:
        _write_built(frame, stream, layout)


def _write_rust(frame: pl.DataFrame, stream: BinaryIO, sheet: str, widths: list[float]) -> None:
    (
        FastExcel(stream, sanitize_formulas=False)
        .format(bold_headers=True, datetime_format="yyyy-mm-dd")
        .freeze(row=1, col=0)
        .sheet(sheet, frame, column_widths=widths, autofilter=frame.height > 0)
        .save()
    )


def _widths(frame: pl.DataFrame) -> list[float]:
    """Each column as wide as its heading or its longest text (at most ``MAX_WIDTH``)."""
    widths = []
    for name, dtype in frame.schema.items():
        width = len(name)
        if dtype == pl.String and frame.height:
            longest = frame.select(pl.col(name).str.len_chars().max().fill_null(0)).item()
            width = max(width, min(int(longest), MAX_WIDTH))
        widths.append(float(max(width, MIN_WIDTH) + 2))
    return widths


def copied(frame: pl.DataFrame) -> bool:
    """Whether every cell of ``frame`` is of a kind whose XML is built here exactly as
    rust_xlsxwriter writes it: integers up to 2**53, finite floats (polars writes a double's
    text as rust_xlsxwriter does, shortest first), booleans, dates from 1 March 1900, text
    without control characters or ``_xHHHH_``."""
    checks = []
    for name, dtype in frame.schema.items():
        value = pl.col(name)
        if dtype == pl.Float64:
            checks.append(value.is_finite().all(ignore_nulls=True))
        elif dtype.is_integer():
            checks.append((value.abs().cast(pl.UInt64) < _EXACT_INTEGERS).all(ignore_nulls=True))
        elif dtype == pl.Date:
            checks.append((value >= _FIRST_SERIAL_DAY).all(ignore_nulls=True))
        elif dtype == pl.String:
            checks.append(~value.str.contains(_UNCOPIED_TEXT).any(ignore_nulls=True))
        elif dtype != pl.Boolean:
            return False
    return not checks or all(frame.select(checks).row(0))


def _column_name(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def _template(frame: pl.DataFrame, sheet: str, widths: list[float]) -> bytes:
    """rust_xlsxwriter's workbook for ``frame``'s columns and one row of values in each."""
    values: dict[str, object] = {}
    for name, dtype in frame.schema.items():
        if dtype.is_integer():
            values[name] = pl.Series(name, [0], dtype=dtype)
        elif dtype == pl.Float64:
            values[name] = pl.Series(name, [0.5], dtype=dtype)
        elif dtype == pl.Date:
            values[name] = pl.Series(name, [_FIRST_SERIAL_DAY], dtype=pl.Date)
        elif dtype == pl.Boolean:
            values[name] = pl.Series(name, [True])
        else:
            values[name] = pl.Series(name, ["x"], dtype=pl.String)
    buffer = io.BytesIO()
    _write_rust(pl.DataFrame(list(values.values())), buffer, sheet, widths)
    return buffer.getvalue()


def _cells(frame: pl.DataFrame, attributes: list[str]) -> pl.Expr:
    """Each row's ``<row>`` element as rust_xlsxwriter writes it, or an empty text for a row
    with no cell (it writes none for nulls and empty texts), from the slice's row numbers as text
    in its column ``_row``.

    A column with a value in every row adds its pieces to the row's one concatenation; only a
    column with gaps is concatenated on its own first, so that a missing value drops its whole
    cell: every text built on the way is a copy of a column of hundreds of megabytes. For the
    same reason a text column is escaped, and its cells' spaces kept, only when one of its texts
    needs it."""
    number = pl.col(_ROW)
    pieces: list[pl.Expr | str] = []
    complete = False
    for index, (name, dtype) in enumerate(frame.schema.items()):
        value = pl.col(name)
        column = frame.get_column(name)
        gaps = column.null_count() > 0 or (dtype == pl.String and bool((column == "").any()))
        content: list[pl.Expr | str]
        if dtype.is_integer():
            content = ["<v>", value.cast(pl.String), ".0</v>"]
        elif dtype == pl.Float64:
            content = ["<v>", value.cast(pl.String), "</v>"]
        elif dtype == pl.Date:
            serial = value.cast(pl.Int64) + _EPOCH_SERIAL
            content = ["<v>", serial.cast(pl.String), ".0</v>"]
        elif dtype == pl.Boolean:
            content = [
                pl.when(value).then(pl.lit("<v>1</v>")).when(~value).then(pl.lit("<v>0</v>"))
            ]
        else:
            text = value
            if column.str.contains(_ESCAPED).any():
                text = value.str.replace_many(list(_ESCAPES), list(_ESCAPES.values()))
            spaced = value.str.starts_with(" ") | value.str.ends_with(" ")
            opening: pl.Expr | str = "<t>"
            if (column.str.starts_with(" ") | column.str.ends_with(" ")).any():
                preserved = pl.when(spaced).then(pl.lit('<t xml:space="preserve">'))
                opening = preserved.otherwise(pl.lit("<t>"))
            content = ["<is>", opening, text, "</t></is>"]
        cell: list[pl.Expr | str] = [
            f'<c r="{_column_name(index)}', number, f'"{attributes[index]}>', *content, "</c>",
        ]  # fmt: skip
        if gaps:
            whole = pl.concat_str(text_pieces(cell))
            pieces.append(pl.when(value != "").then(whole) if dtype == pl.String else whole)
        else:
            pieces.extend(cell)
            complete = True
    if complete:
        row = ['<row r="', number, '">', *pieces, "</row>"]
        return pl.concat_str(text_pieces(row), ignore_nulls=True).alias("row")
    cells = pl.concat_str(text_pieces(pieces), ignore_nulls=True)
    return (
        pl.when(cells != "")
        .then(pl.concat_str(pl.lit('<row r="'), number, pl.lit('">'), cells, pl.lit("</row>")))
        .otherwise(pl.lit(""))
        .alias("row")
    )


def _rows(frame: pl.DataFrame, attributes: list[str]) -> Iterator[bytes | memoryview]:
    """The sheet's data rows as XML, a slice at a time."""
    expression = _cells(frame, attributes)
    for start in range(0, frame.height, SLICE):
        part = frame.slice(start, SLICE)
        # The row's number is in every cell's reference: written as text once per row.
        first = start + 2
        numbers = pl.int_range(first, first + part.height, dtype=pl.Int64, eager=True)
        part = part.with_columns(numbers.cast(pl.String).alias(_ROW))
        yield joined_text(part.select(expression).to_series())


@dataclass(frozen=True, slots=True)
class _Layout:
    """rust_xlsxwriter's workbook for a frame, around the rows built here."""

    parts: list[tuple[str, bytes]]
    head: bytes
    tail: bytes
    attributes: list[str]
    """Each column's cell attributes after its reference (its type, its style)."""


def _layout(frame: pl.DataFrame, sheet: str, widths: list[float]) -> _Layout | None:
    """The workbook around ``frame``'s rows; None when rust_xlsxwriter's one-row workbook is not
    laid out as this module expects (then it writes the whole sheet itself)."""
    template = zipfile.ZipFile(io.BytesIO(_template(frame, sheet, widths)))
    xml = template.read(SHEET_PART).decode("utf-8")
    last = _column_name(frame.width - 1)
    head, found, rest = xml.partition('<row r="2">')
    end = rest.find("</sheetData>")
    attributes = [
        cell.group(1) for cell in re.finditer(r'<c r="[A-Z]+2"([^>]*)>', rest[: max(end, 0)])
    ]
    # The sheet's size ends at its last row with a cell, the filter at the frame's last row, and
    # the filter's range is named in the workbook too.
    anchors = {
        SHEET_PART: [
            (f'<dimension ref="A1:{last}2"/>', f'<dimension ref="A1:{last}{_last_row(frame)}"/>'),
            (f'<autoFilter ref="A1:{last}2"/>', f'<autoFilter ref="A1:{last}{frame.height + 1}"/>'),
        ],
        WORKBOOK_PART: [(f"$A$1:${last}$2<", f"$A$1:${last}${frame.height + 1}<")],
    }  # fmt: skip
    parts = [
        (item.filename, template.read(item.filename).decode("utf-8", "surrogateescape"))
        for item in template.infolist()
    ]
    text = dict(parts) | {SHEET_PART: head + "\x00" + rest[end:]}
    for name, changes in anchors.items():
        for old, new in changes:
            if text.get(name, "").count(old) != 1:
                return None
            text[name] = text[name].replace(old, new)
    if not found or end < 0 or len(attributes) != frame.width:
        return None
    head, _, tail = text[SHEET_PART].partition("\x00")
    return _Layout(
        [(name, text[name].encode("utf-8", "surrogateescape")) for name, _ in parts],
        head.encode(),
        tail.encode(),
        attributes,
    )


def _write_built(frame: pl.DataFrame, stream: IO[bytes], layout: _Layout) -> None:
    archive = _Archive(stream)
    for name, data in layout.parts:
        if name == SHEET_PART:
            archive.add(name, _chain(layout.head, _rows(frame, layout.attributes), layout.tail))
        else:
            archive.add(name, iter([data]))
    archive.close()


def _last_row(frame: pl.DataFrame) -> int:
    """The sheet's last row with a cell in it: the header's, or a data row's (a row of nulls and
    empty texts has none)."""
    filled = [
        pl.col(name).is_not_null() & (pl.col(name) != "") if dtype == pl.String
        else pl.col(name).is_not_null()
        for name, dtype in frame.schema.items()
    ]  # fmt: skip
    found = frame.select(pl.arg_where(pl.any_horizontal(filled)).max()).item()
    return 1 if found is None else int(found) + 2


def _chain(
    head: bytes, middle: Iterator[bytes | memoryview], tail: bytes
) -> Iterator[bytes | memoryview]:
    yield head
    yield from middle
    yield tail


class _Archive:
    """A ZIP file of deflated parts, each compressed by ISA-L as its pieces arrive (ZIP64 where a
    part or the file reaches 4 GiB)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._offset = 0
        self._central: list[bytes] = []

    def _write(self, data: bytes) -> None:
        self._stream.write(data)
        self._offset += len(data)

    def add(self, name: str, pieces: Iterator[bytes | memoryview]) -> None:
        compressor = isal_zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
        compressed: list[bytes] = []
        crc = size = 0
        for piece in pieces:
            crc = isal_zlib.crc32(piece, crc)
            size += len(piece)
            compressed.append(compressor.compress(piece))
        compressed.append(compressor.flush())
        packed = sum(len(c) for c in compressed)
        encoded = name.encode()
        offset = self._offset
        large = max(size, packed, offset) >= ZIP32_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, size, packed) if large else b""
        version = 45 if large else 20
        clipped = (0xFFFFFFFF, 0xFFFFFFFF) if large else (packed, size)
        self._write(
            struct.pack("<IHHHHHIIIHH", 0x04034B50, version, 0, 8, 0, 0x21, crc, *clipped,
                        len(encoded), len(extra)) + encoded + extra
        )  # fmt: skip
        for chunk in compressed:
            self._write(chunk)
        central_extra = struct.pack("<HHQQQ", 1, 24, size, packed, offset) if large else b""
        self._central.append(
            struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, (3 << 8) | version, version, 0, 8, 0,
                        0x21, crc, *clipped, len(encoded), len(central_extra), 0, 0, 0,
                        0o100644 << 16, 0xFFFFFFFF if large else offset)
            + encoded + central_extra
        )  # fmt: skip

    def close(self) -> None:
        start = self._offset
        for entry in self._central:
            self._write(entry)
        length = self._offset - start
        count = len(self._central)
        if start >= ZIP32_LIMIT:
            record = self._offset
            self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count,
                                    length, start))  # fmt: skip
            self._write(struct.pack("<IIQI", 0x07064B50, 0, record, 1))
            start = 0xFFFFFFFF
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, length, start, 0))


def xlsx_bytes(frame: pl.DataFrame, sheet: str) -> bytes:
    """The workbook :func:`write_xlsx` writes, as bytes."""
    buffer = io.BytesIO()
    write_xlsx(frame, buffer, sheet=sheet)
    return buffer.getvalue()
