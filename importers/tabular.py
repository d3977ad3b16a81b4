"""Reading a table (CSV, XLSX, JSON, Parquet) into a frame of text cells with their line numbers.

Every cell comes back as text (or null when empty) so that checking types is the importer's job,
with messages that name the cell; nothing is silently converted on the way in. The ``line``
column holds what a person finds in the file: the line of a CSV file, the row of a spreadsheet,
the position (1-based) of an object in a JSON array, the row of a Parquet file.

A reader that can check typed values may ask for some columns as they are stored when they are
whole numbers or dates (a Parquet file's integer and date columns): turning them into text only
for the reader to parse them back cost more than all of the checks. A large table can be read
in slices of whole groups of rows (``read_table_slices``): a Parquet file is then decoded a batch
at a time, so that its cells are never all in memory at once. pyarrow is loaded only to read a
Parquet file (a twentieth of a second of every other import's start).
"""

from __future__ import annotations

import dataclasses
import io
import json
import typing
import zipfile
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from importers.csv_rows import unreadable
from importers.formats import TABLES
from importers.headers import canonical
from importers.limits import CELL_BYTES, HEADER_CELL_BYTES, JSON_ROW_BYTES, TableLimits
from importers.limits import TABLES as TABLE_LIMITS
from importers.problems import problem_rows
from importers.text_bytes import is_blank, line_end, lines_within, longest_line, utf8_text
from ratings.errors import InputError, Problem

if typing.TYPE_CHECKING:
    import pyarrow as pa
    from numpy.typing import NDArray

LINE = "__line__"
"""Name of the column holding each row's line number."""


def read_table(
    data: bytes,
    source: str,
    fmt: str,
    limits: TableLimits = TABLE_LIMITS,
    typed: Collection[str] = (),
    warnings: list[Problem] | None = None,
    known: Collection[str] = (),
) -> pl.DataFrame:
    """The file's rows as text cells, column names stripped and lower-cased, plus ``LINE``; a
    column whose heading stands for one of ``known`` (``importers.headers``) takes its name.

    ``limits`` are checked before the cells are decoded: a file beyond them is one problem,
    found at the cost of reading its header, its line ends, its zip directory or its Parquet
    footer. The columns named in ``typed`` stay as stored when they hold whole numbers or dates.
    A guess the reader makes (a CSV file read as Windows-1252) is added to ``warnings``.
    """
    if is_blank(data):
        raise InputError([Problem(source, None, None, None, "the file is empty")])
    if fmt == "csv":
        frame = _read_csv(data, source, limits, [] if warnings is None else warnings)
    elif fmt == "xlsx":
        frame = _read_xlsx(data, source, limits)
    elif fmt == "json":
        frame = _read_json(data, source, limits)
    elif fmt == "parquet":
        frame = _read_parquet(data, source, limits, typed)
    else:
        raise ValueError(f"format must be one of {', '.join(TABLES)}, not {fmt!r}")
    frame = known_names(frame, source, fmt, known)
    if frame.height == 0:
        raise InputError([Problem(source, None, None, None, "the file has a header but no rows")])
    _check_shape(source, limits, rows=frame.height, columns=frame.width - 1)
    return frame


def known_names(frame: pl.DataFrame, source: str, fmt: str, known: Collection[str]) -> pl.DataFrame:
    """``frame`` with each column whose heading stands for one of ``known`` renamed to it; two
    headings that stand for one column are a problem."""
    if not known:
        return frame
    names = [c if c == LINE else canonical(c, known) or c for c in frame.columns]
    header = 1 if fmt in ("csv", "xlsx") else None
    problems = [
        Problem(
            source, header, name, None,
            f"the column appears twice (as {frame.columns[names.index(name)]!r} and "
            f"{frame.columns[i]!r})",
        )
        for i, name in enumerate(names)
        if name in names[:i]
    ]  # fmt: skip
    if problems:
        raise InputError(problems)
    return frame.rename(dict(zip(frame.columns, names, strict=True)))


class ScatteredGroups(Exception):
    """The rows of one group are not all next to each other: the table cannot be cut into slices
    of whole groups as it is read; the caller reads it as one slice instead."""


def read_table_slices(
    data: bytes,
    source: str,
    fmt: str,
    group: Callable[[pl.DataFrame], pl.Series],
    rows: int | None,
    limits: TableLimits = TABLE_LIMITS,
    typed: Collection[str] = (),
    warnings: list[Problem] | None = None,
    known: Collection[str] = (),
) -> Iterator[pl.DataFrame]:
    """The rows of ``read_table`` in slices of about ``rows`` rows (None: one slice), each made
    of whole groups: ``group`` gives each row of a frame its group (a tournament's key), and a
    slice ends only where the group changes. A Parquet file is decoded a batch at a time; the
    other formats are read whole and then cut.

    Raises :class:`ScatteredGroups` when a group's rows turn out not to be next to each other
    (slices may already have been given out): read the table again with ``rows=None``.
    """
    if rows is None:
        yield read_table(data, source, fmt, limits, typed, warnings, known)
        return
    if fmt != "parquet" or is_blank(data):
        frame = read_table(data, source, fmt, limits, typed, warnings, known)
        yield from _cut(frame, group(frame), rows)
        return
    seen: set[object] = set()
    carry: pl.DataFrame | None = None
    for read in _parquet_batches(data, source, limits, typed, rows):
        batch = known_names(read, source, fmt, known)
        frame = batch if carry is None else pl.concat([carry, batch], how="vertical_relaxed")
        keys = group(frame)
        # The last group may go on in the next batch: it waits there.
        cut = _run_starts(keys)[-1]
        if cut < rows:
            carry = frame
            continue
        _check_runs(keys.slice(0, cut), seen)
        yield frame.slice(0, cut)
        carry = frame.slice(cut)
    if carry is not None and carry.height:
        _check_runs(group(carry), seen)
        yield carry


def _run_starts(keys: pl.Series) -> list[int]:
    """Where each run of equal keys starts (nulls are equal to each other)."""
    changed = keys.ne_missing(keys.shift(1)).fill_null(True)
    if keys.len():
        changed[0] = True
    return changed.arg_true().to_list()


def _check_runs(keys: pl.Series, seen: set[object]) -> None:
    """Record the groups of ``keys``; a group seen in an earlier run means scattered rows."""
    if keys.len() == 0:
        return
    runs = keys.gather(_run_starts(keys)).to_list()
    if len(set(runs)) != len(runs) or not seen.isdisjoint(runs):
        raise ScatteredGroups
    seen.update(runs)


def _cut(frame: pl.DataFrame, keys: pl.Series, rows: int) -> Iterator[pl.DataFrame]:
    """``frame`` in slices of whole runs of ``keys``, or whole when a group's rows are apart."""
    starts = _run_starts(keys)
    runs = keys.gather(starts).to_list()
    if len(set(runs)) != len(runs):
        yield frame
        return
    begin = 0
    for start in starts[1:]:
        if start - begin >= rows:
            yield frame.slice(begin, start - begin)
            begin = start
    yield frame.slice(begin)


def _check_shape(source: str, limits: TableLimits, *, rows: int, columns: int) -> None:
    if columns > limits.columns:
        _refuse(source, f"has {columns:,} columns, more than the limit of {limits.columns:,}")
    if limits.rows is not None and rows > limits.rows:
        _refuse(source, f"has more than {limits.rows:,} rows, the limit for this kind of file")


def _check_decoded(source: str, limits: TableLimits, size: int, what: str) -> None:
    if size > limits.decoded:
        setting = f" (setting {limits.setting})" if limits.setting else ""
        _refuse(
            source,
            f"{what} {_size(size)} once decoded, more than the limit of "
            f"{_size(limits.decoded)}{setting}",
        )


def _check_cells(source: str, limits: TableLimits, rows: int, columns: int, what: str) -> None:
    if rows * columns > limits.cells:
        setting = f" (setting {limits.setting})" if limits.setting else ""
        _refuse(
            source,
            f"has {rows:,} {what} of {columns:,} columns: more than the limit of "
            f"{limits.cells:,} cells, one for every {CELL_BYTES} bytes of the limit of "
            f"{_size(limits.decoded)}{setting}",
        )


def _refuse(source: str, expected: str) -> typing.NoReturn:
    raise InputError([Problem(source, None, None, None, expected)])


def _normalise(
    frame: pl.DataFrame, source: str, first_line: int, typed: Collection[str] = ()
) -> pl.DataFrame:
    names = [str(c).strip().lower().lstrip("\ufeff") for c in frame.columns]
    problems = [
        Problem(source, first_line - 1, name, None, "the column appears twice")
        for i, name in enumerate(names)
        if name in names[:i]
    ]
    if problems:
        raise InputError(problems)
    frame = frame.rename(dict(zip(frame.columns, names, strict=True)))
    # A column at a time: a table at the size limit is held once and a column, not twice.
    for column in names:
        if not (column in typed and _stays_typed(frame.schema[column])):
            frame = frame.with_columns(as_text(column))
    frame = frame.with_row_index(LINE, offset=first_line).with_columns(pl.col(LINE).cast(pl.Int64))
    _check_cell_lengths(frame, source)
    return frame


LONGEST_CELL = 4096
"""Most characters a cell of a table may hold: the longest stored text (a name, a club) has 200;
a longer cell is refused as soon as it is read, before the checks and the folding of names go
through a megabyte of it."""


def _check_cell_lengths(frame: pl.DataFrame, source: str) -> None:
    texts = [c for c, dtype in frame.schema.items() if dtype == pl.String]
    if not texts:
        return
    longest = frame.select(pl.col(texts).str.len_chars().max()).row(0)
    problems: list[Problem] = []
    for column, length in zip(texts, longest, strict=True):
        if length is not None and length > LONGEST_CELL:
            problems += problem_rows(
                frame, source, column, pl.col(column).str.len_chars() > LONGEST_CELL,
                f"at most {LONGEST_CELL:,} characters", line=LINE,
            )  # fmt: skip
    if problems:
        raise InputError(sorted(problems, key=lambda p: p.line or 0))


def as_text(column: str) -> pl.Expr:
    """``column`` as the text cells a reader gives: stripped, and null where empty."""
    return pl.col(column).cast(pl.String).str.strip_chars().replace("", None).alias(column)


def _stays_typed(dtype: pl.DataType) -> bool:
    """Whole numbers and dates need no text to be checked: their values are exact as stored. A
    64-bit float stays too, for the reader to say whether its text is needed
    (``importers.results``); a reader that asks for a column as stored turns it into text
    (:func:`as_text`) when it does not check floats."""
    return dtype.is_integer() or dtype == pl.Date or dtype == pl.Float64


def _read_csv(
    data: bytes, source: str, limits: TableLimits, warnings: list[Problem]
) -> pl.DataFrame:
    separator = check_csv_header(data, source, limits)
    try:
        # The CSV reader checks that every cell is UTF-8, but reads the header's bytes leniently.
        data[: line_end(data, 0)].decode("utf-8")
        frame = _csv_frame(data, separator, limits)
    except (UnicodeDecodeError, pl.exceptions.ComputeError, pl.exceptions.NoDataError):
        # Not UTF-8 (read again as Windows-1252, with a warning), or not readable at all.
        text = utf8_text(data, source, warnings)
        try:
            frame = _csv_frame(text, separator, limits)
        except (pl.exceptions.ComputeError, pl.exceptions.NoDataError) as error:
            raise InputError([unreadable(text, separator, source, _first_line(error))]) from None
    # The header's own line end, when it is CRLF.
    frame = frame.rename({c: c.rstrip("\r") for c in frame.columns})
    return _normalise(frame, source, first_line=2)


def _csv_frame(data: bytes, separator: str, limits: TableLimits) -> pl.DataFrame:
    """The cells of a CSV file's bytes (UTF-8, a BOM or not) as text, its header's names as they
    are."""
    if b"\n" not in data:
        # Line ends of CR alone (a classic Mac's), which the CSV reader does not take for ends.
        data = data.replace(b"\r", b"\n")
    return pl.read_csv(
        data,
        separator=separator,
        infer_schema=False,
        truncate_ragged_lines=False,
        # One row past the limit tells that there are too many, without reading them all.
        n_rows=None if limits.rows is None else limits.rows + 1,
    )


def check_csv_header(data: bytes, source: str, limits: TableLimits = TABLE_LIMITS) -> str:
    """The separator of a CSV file's header line (``;`` or ``,``, whichever it has more of),
    once its columns, its lines and its cells (lines times columns) are counted within
    ``limits``: a header of a million columns, or a file of little but separators and line
    ends, is refused before anything is built from it, by every reader of CSV files."""
    header = data[: line_end(data, 0)]
    separator = ";" if header.count(b";") > header.count(b",") else ","
    columns = header.count(separator.encode()) + 1
    _check_shape(source, limits, rows=0, columns=columns)
    longest = limits.columns * HEADER_CELL_BYTES
    if len(header) > longest:
        _refuse(
            source,
            f"has a header line of {len(header):,} bytes, more than the {longest:,} of "
            f"{limits.columns:,} columns of {HEADER_CELL_BYTES} bytes (is each row on a line "
            "of its own?)",
        )
    # A line ends at LF (CRLF included), or at CR in a file without any LF, as the reader splits
    # it; a quoted value may hold one, so these are at most the rows.
    end = b"\n" if b"\n" in data else b"\r"
    lines = data.count(end) + (not data.endswith((b"\n", b"\r")))
    if limits.rows is not None and lines - 1 > limits.rows:
        _check_shape(source, limits, rows=lines - 1, columns=columns)
    _check_cells(source, limits, lines, columns, "lines")
    # A line longer than its cells can be holds a cell past LONGEST_CELL: it is refused before
    # the CSV reader builds a cell of a hundred megabytes in several copies.
    widest = columns * (LONGEST_CELL + 3)
    if not lines_within(data, end, widest):
        line, length = longest_line(data, end)
        if length > widest:
            raise InputError(
                [
                    Problem(
                        source, line, None, None,
                        f"a line of {length:,} bytes, longer than {columns:,} cells of at most "
                        f"{LONGEST_CELL:,} characters can be",
                    )
                ]
            )  # fmt: skip
    return separator


MEGABYTE = 1024 * 1024


def _check_workbook(data: bytes, source: str, limits: TableLimits) -> None:
    """Refuse a workbook whose members unpack to more than ``limits.decoded`` in all, or that
    packs a large member more than ``limits.ratio`` to one, from the sizes its zip directory
    declares; then read every member through to its end (nothing is kept), so that a member
    holding more than it declares fails its length and checksum check here instead of being
    unpacked whole by the Excel engine."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            _check_decoded(source, limits, sum(m.file_size for m in members), "unpacks to")
            for member in members:
                ratio = member.file_size / max(member.compress_size, 1)
                if member.file_size > MEGABYTE and ratio > limits.ratio:
                    _refuse(
                        source,
                        f"member {member.filename} is packed {ratio:,.0f} to 1, more than "
                        f"{limits.ratio} to 1: not a spreadsheet's own compression",
                    )
            for member in members:
                with archive.open(member) as stream:
                    while stream.read(MEGABYTE):
                        pass
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError) as error:
        raise InputError(
            [
                Problem(
                    source, None, None, None, f"not a readable XLSX workbook ({_first_line(error)})"
                )
            ]
        ) from None


def _read_xlsx(data: bytes, source: str, limits: TableLimits) -> pl.DataFrame:
    _check_workbook(data, source, limits)
    try:
        frame = pl.read_excel(io.BytesIO(data), infer_schema_length=0)
    except Exception as error:  # the Excel engine raises its own, undocumented exception types
        raise InputError(
            [
                Problem(
                    source, None, None, None, f"not a readable XLSX workbook ({_first_line(error)})"
                )
            ]
        ) from None
    return _normalise(frame, source, first_line=2)


MAX_JSON_DEPTH = 32
"""Deepest nesting of a JSON input: a table is an array of objects (depth 2); Python's reader
would fail with a RecursionError near a thousand."""

_JSON_CHUNK = 2 * 1024 * 1024
"""Bytes of a JSON document :func:`json_shape` looks at a time, which bounds its memory."""
JSON_VALUES_PER_ROW = 8
"""Most values a JSON table's rows may hold on average (``TableLimits.json_rows`` times this in
all): a results row has seven to fifteen, some of them empty and left out."""


@dataclasses.dataclass(frozen=True, slots=True)
class JsonShape:
    depth: int
    """How deeply the arrays and objects nest (brackets inside strings do not count)."""
    rows: int
    """Objects that open at the second level: the rows of an array of objects."""
    values: int
    """Keys of those objects: the cells of the table, empty ones left out."""


def json_shape(data: bytes) -> JsonShape:
    """The nesting, rows and values of a JSON document, counted before anything is built, at
    the speed of numpy rather than of a recursive reader, a few megabytes at a time. Brackets,
    braces and colons count outside strings only: a quote opens or closes a string unless an
    odd number of backslashes comes before it."""
    view = np.frombuffer(data, dtype=np.uint8)
    depth = deepest = rows = values = 0
    in_string = 0
    run = 0
    """Backslashes at the end of the bytes looked at so far."""
    for start in range(0, view.size, _JSON_CHUNK):
        chunk = view[start : start + _JSON_CHUNK]
        quotes = chunk == ord('"')
        backslash = chunk == ord("\\")
        if run or backslash.any():
            quotes, run = _unescaped(quotes, backslash, run)
        # A place is in a string when an odd number of quotes comes before it (or at it).
        inside = np.bitwise_xor.accumulate(quotes.view(np.uint8)) ^ np.uint8(in_string)
        in_string = int(inside[-1])
        outside = inside == 0
        opening = ((chunk == ord("[")) | (chunk == ord("{"))) & outside
        closing = ((chunk == ord("]")) | (chunk == ord("}"))) & outside
        levels = np.cumsum(opening.view(np.int8) - closing.view(np.int8), dtype=np.int32)
        levels += depth
        deepest = max(deepest, int(levels.max()))
        at_rows = levels == 2
        rows += int(np.count_nonzero(at_rows & (chunk == ord("{")) & outside))
        values += int(np.count_nonzero(at_rows & (chunk == ord(":")) & outside))
        depth = int(levels[-1])
    return JsonShape(deepest, rows, values)


def _unescaped(
    quotes: NDArray[np.bool_], backslash: NDArray[np.bool_], run: int
) -> tuple[NDArray[np.bool_], int]:
    """The quotes of a chunk that are not escaped (after an even number of backslashes, ``run``
    of them at the end of the chunks before), and the backslashes at the chunk's end."""
    places = np.arange(backslash.size, dtype=np.int32)
    # The last place before each that is not a backslash (-1: none in the chunk).
    last = np.empty(backslash.size, dtype=np.int32)
    last[0] = -1
    np.maximum.accumulate(np.where(backslash, -1, places)[:-1], out=last[1:])
    counted = places - 1 - last + np.where(last < 0, run, 0)
    end = (
        run + backslash.size
        if not (~backslash).any()
        else int(backslash.size - 1 - np.flatnonzero(~backslash)[-1])
    )
    return quotes & (counted % 2 == 0), end


def json_depth(data: bytes) -> int:
    """How deeply the arrays and objects of a JSON document nest (brackets inside strings do
    not count)."""
    return json_shape(data).depth


def json_rows(data: bytes) -> int:
    """How many objects open at the second level of a JSON document: the rows of a table that
    is an array of objects, counted before any is built."""
    return json_shape(data).rows


def _read_json(data: bytes, source: str, limits: TableLimits) -> pl.DataFrame:
    shape = json_shape(data)
    if shape.depth > MAX_JSON_DEPTH:
        raise InputError(
            [Problem(source, None, None, None, f"nested more than {MAX_JSON_DEPTH} levels deep")]
        )
    if limits.rows is not None and shape.rows > limits.rows:
        _check_shape(source, limits, rows=limits.rows + 1, columns=0)
    setting = f" (setting {limits.setting})" if limits.setting else ""
    if shape.rows > limits.json_rows:
        _refuse(
            source,
            f"has {shape.rows:,} rows: more than the limit of {limits.json_rows:,} of a JSON "
            f"table, one for every {JSON_ROW_BYTES} bytes of the limit of "
            f"{_size(limits.decoded)}{setting}",
        )
    most = limits.json_rows * JSON_VALUES_PER_ROW
    if shape.values > most:
        _refuse(
            source,
            f"has {shape.values:,} values: more than the limit of {most:,} of a JSON table, "
            f"{JSON_VALUES_PER_ROW} for each row it may have{setting}",
        )
    try:
        records = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(
            [Problem(source, None, None, None, "the file is not UTF-8 text")]
        ) from None
    except json.JSONDecodeError as error:
        raise InputError(
            [Problem(source, error.lineno, None, None, f"not valid JSON: {error.msg}")]
        ) from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InputError([Problem(source, None, None, None, "expected a JSON array of objects")])
    if not records:
        raise InputError([Problem(source, None, None, None, "the JSON array is empty")])
    columns: dict[str, list[str | None]] = {}
    for record in records:
        for key in record:
            columns.setdefault(str(key), [])
    for column in columns:
        columns[column] = [_json_text(r.get(column)) for r in records]
    del records
    return _normalise(pl.DataFrame(columns, schema=dict.fromkeys(columns, pl.String)), source, 1)


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _read_parquet(
    data: bytes, source: str, limits: TableLimits, typed: Collection[str] = ()
) -> pl.DataFrame:
    """A Parquet file's rows, after its footer has said how many rows and columns it holds and
    how large its pages are unpacked. Text columns are read as dictionaries (a few distinct
    values and the index of each cell), whose written-out size is checked before any text cell
    is built: a kilobyte of Parquet can repeat one long text a million times."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        texts = _parquet_footer_checked(data, source, limits)
        table = pq.read_table(pa.BufferReader(data), read_dictionary=texts)
        _check_decoded(source, limits, _text_size(table, texts), "holds text of")
        frame = pl.from_arrow(table.cast(_plain(table.schema, texts)))
    except InputError:
        raise
    except Exception as error:  # pyarrow raises several exception types for corrupt files
        raise _unreadable_parquet(source, error) from None
    assert isinstance(frame, pl.DataFrame)
    return _normalise(frame, source, first_line=1, typed=typed)


def _parquet_footer_checked(data: bytes, source: str, limits: TableLimits) -> list[str]:
    """The text columns of a Parquet file whose footer's rows, columns and unpacked size are
    within ``limits``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    footer = pq.ParquetFile(pa.BufferReader(data)).metadata
    _check_shape(source, limits, rows=footer.num_rows, columns=footer.num_columns)
    unpacked = sum(footer.row_group(i).total_byte_size for i in range(footer.num_row_groups))
    _check_decoded(source, limits, unpacked, "unpacks to")
    _check_cells(source, limits, footer.num_rows, footer.num_columns, "rows")
    if footer.num_rows == 0:
        raise InputError([Problem(source, None, None, None, "the file has a header but no rows")])
    schema = footer.schema.to_arrow_schema()
    return [field.name for field in schema if _is_text(field.type)]


def _unreadable_parquet(source: str, error: Exception) -> InputError:
    return InputError(
        [Problem(source, None, None, None, f"not a readable Parquet file ({_first_line(error)})")]
    )


def _parquet_batches(
    data: bytes, source: str, limits: TableLimits, typed: Collection[str], rows: int
) -> Iterator[pl.DataFrame]:
    """A Parquet file's rows a batch of ``rows`` at a time, checked as ``_read_parquet`` checks
    the whole file: the footer first; the text cells are counted in their dictionary form batch
    by batch, and once they pass the limit the rest is only counted, so that the refusal names
    the whole file's size, as when it is read at once."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        texts = _parquet_footer_checked(data, source, limits)
        reader = pq.ParquetFile(pa.BufferReader(data), read_dictionary=texts)
        size = 0
        line = 1
        for batch in reader.iter_batches(batch_size=rows):
            table = pa.Table.from_batches([batch])
            size += _text_size(table, texts)
            if size > limits.decoded:
                continue
            frame = pl.from_arrow(table.cast(_plain(table.schema, texts)))
            assert isinstance(frame, pl.DataFrame)
            yield _normalise(frame, source, first_line=line, typed=typed)
            line += frame.height
        _check_decoded(source, limits, size, "holds text of")
    except InputError:
        raise
    except Exception as error:  # pyarrow raises several exception types for corrupt files
        raise _unreadable_parquet(source, error) from None


def _is_text(kind: pa.DataType) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
    )  # fmt: skip


def _text_size(table: pa.Table, columns: list[str]) -> int:
    """The bytes of ``columns`` (dictionary-encoded) once every cell is written out."""
    import pyarrow.compute as pc

    total = 0
    for name in columns:
        for chunk in table.column(name).chunks:
            lengths = pc.binary_length(chunk.dictionary)
            total += pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0
    return total


def _plain(schema: pa.Schema, texts: list[str]) -> pa.Schema:
    """``schema`` with its dictionary columns as plain text again."""
    import pyarrow as pa

    return pa.schema(
        [field.with_type(pa.large_string()) if field.name in texts else field for field in schema]
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


MAX_INPUT_BYTES = 256 * 1024 * 1024
"""Largest input file read by default (the ``input_limit_bytes`` setting): a federation's whole
history in one file is a few megabytes; a file far larger is a mistake, and reading it whole
would take the memory of the machine."""


def read_file_bytes(
    path: Path, limit: int = MAX_INPUT_BYTES, setting: str = "input_limit_bytes"
) -> bytes:
    """The bytes of an input file; a file that cannot be read, or is larger than ``limit``
    (the value of ``setting``), is an InputError naming it. At most ``limit`` bytes are read, so
    a device such as /dev/zero, which says it is empty and never ends, is refused too."""
    try:
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except OSError as error:
        raise InputError(
            [Problem(path.name, None, None, None, f"cannot be read ({error.strerror})")]
        ) from None
    if len(data) > limit:
        raise InputError(
            [
                Problem(
                    path.name, None, None, None,
                    f"larger than the input limit of {_size(limit)} (setting {setting})",
                )
            ]
        )  # fmt: skip
    return data


def _size(count: int) -> str:
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if count >= size:
            return f"{count / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"
