"""Reading a table (CSV, XLSX, JSON, Parquet) into a frame of text cells with their line numbers.

Every cell comes back as text (or null when empty) so that checking types is the importer's job,
with messages that name the cell; nothing is silently converted on the way in. The ``line``
column holds what a person finds in the file: the line of a CSV file, the row of a spreadsheet,
the position (1-based) of an object in a JSON array, the row of a Parquet file.

A reader that can check typed values may ask for some columns as they are stored when they are
whole numbers or dates (a Parquet file's integer and date columns): turning them into text only
for the reader to parse them back cost more than all of the checks. A large table can be read
in slices of whole groups of rows (``read_table_slices``): a Parquet file is then decoded a batch
at a time, so that its cells are never all in memory at once.
"""

from __future__ import annotations

import io
import json
import re
import typing
import zipfile
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from importers.formats import TABLES
from importers.limits import TABLES as TABLE_LIMITS
from importers.limits import TableLimits
from ratings.errors import InputError, Problem

LINE = "__line__"
"""Name of the column holding each row's line number."""


def read_table(
    data: bytes,
    source: str,
    fmt: str,
    limits: TableLimits = TABLE_LIMITS,
    typed: Collection[str] = (),
) -> pl.DataFrame:
    """The file's rows as text cells, column names stripped and lower-cased, plus ``LINE``.

    ``limits`` are checked before the cells are decoded: a file beyond them is one problem,
    found at the cost of reading its header, its zip directory or its Parquet footer. The
    columns named in ``typed`` stay as stored when they hold whole numbers or dates.
    """
    if not data.strip():
        raise InputError([Problem(source, None, None, None, "the file is empty")])
    if fmt == "csv":
        frame = _read_csv(data, source, limits)
    elif fmt == "xlsx":
        frame = _read_xlsx(data, source, limits)
    elif fmt == "json":
        frame = _read_json(data, source, limits)
    elif fmt == "parquet":
        frame = _read_parquet(data, source, limits, typed)
    else:
        raise ValueError(f"format must be one of {', '.join(TABLES)}, not {fmt!r}")
    if frame.height == 0:
        raise InputError([Problem(source, None, None, None, "the file has a header but no rows")])
    _check_shape(source, limits, rows=frame.height, columns=frame.width - 1)
    return frame


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
) -> Iterator[pl.DataFrame]:
    """The rows of ``read_table`` in slices of about ``rows`` rows (None: one slice), each made
    of whole groups: ``group`` gives each row of a frame its group (a tournament's key), and a
    slice ends only where the group changes. A Parquet file is decoded a batch at a time; the
    other formats are read whole and then cut.

    Raises :class:`ScatteredGroups` when a group's rows turn out not to be next to each other
    (slices may already have been given out): read the table again with ``rows=None``.
    """
    if rows is None:
        yield read_table(data, source, fmt, limits, typed)
        return
    if fmt != "parquet" or not data.strip():
        frame = read_table(data, source, fmt, limits, typed)
        yield from _cut(frame, group(frame), rows)
        return
    seen: set[object] = set()
    carry: pl.DataFrame | None = None
    for batch in _parquet_batches(data, source, limits, typed, rows):
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
    text = [
        pl.col(c) if c in typed and _stays_typed(frame.schema[c]) else as_text(c) for c in names
    ]
    return (
        frame.select(text)
        .with_row_index(LINE, offset=first_line)
        .with_columns(pl.col(LINE).cast(pl.Int64))
    )


def as_text(column: str) -> pl.Expr:
    """``column`` as the text cells a reader gives: stripped, and null where empty."""
    return pl.col(column).cast(pl.String).str.strip_chars().replace("", None).alias(column)


def _stays_typed(dtype: pl.DataType) -> bool:
    """Whole numbers and dates need no text to be checked: their values are exact as stored. A
    64-bit float stays too, for the reader to say whether its text is needed
    (``importers.results``); a reader that asks for a column as stored turns it into text
    (:func:`as_text`) when it does not check floats."""
    return dtype.is_integer() or dtype == pl.Date or dtype == pl.Float64


def _read_csv(data: bytes, source: str, limits: TableLimits) -> pl.DataFrame:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError([_encoding_problem(data, source, error.start)]) from None
    separator = check_csv_header(data, source, limits)
    header = text.split("\n", 1)[0]
    try:
        frame = pl.read_csv(
            io.StringIO(text),
            separator=separator,
            infer_schema=False,
            truncate_ragged_lines=False,
            # One row past the limit tells that there are too many, without reading them all.
            n_rows=None if limits.rows is None else limits.rows + 1,
        )
    except (pl.exceptions.ComputeError, pl.exceptions.NoDataError) as error:
        raise InputError(
            [Problem(source, None, None, None, f"not a readable CSV table ({_first_line(error)})")]
        ) from None
    if "\r" in header:
        frame = frame.rename({c: c.rstrip("\r") for c in frame.columns})
    return _normalise(frame, source, first_line=2)


def check_csv_header(data: bytes, source: str, limits: TableLimits = TABLE_LIMITS) -> str:
    """The separator of a CSV file's header line (``;`` or ``,``, whichever it has more of),
    once its columns are counted within ``limits``: a header of a million columns is refused
    before anything is built from it, by every reader of CSV files."""
    header = data.split(b"\n", 1)[0].split(b"\r", 1)[0]
    separator = ";" if header.count(b";") > header.count(b",") else ","
    _check_shape(source, limits, rows=0, columns=header.count(separator.encode()) + 1)
    return separator


def _encoding_problem(data: bytes, source: str, at: int) -> Problem:
    """Name the line, column and cell of the first byte that is not UTF-8."""
    line_start = data.rfind(b"\n", 0, at) + 1
    line_end = data.find(b"\n", at)
    row = data[line_start : line_end if line_end >= 0 else len(data)]
    header = data.split(b"\n", 1)[0].decode("utf-8-sig", errors="replace").strip()
    separator = ";" if header.count(";") > header.count(",") else ","
    index = data[line_start:at].count(separator.encode())
    names = header.split(separator)
    cells = row.split(separator.encode())
    column = names[index].strip().lower() if index < len(names) else None
    cell = (
        cells[index].decode("utf-8", errors="backslashreplace").strip()
        if index < len(cells)
        else None
    )
    line = data[:at].count(b"\n") + 1
    return Problem(source, line, column, cell, "the file is not UTF-8 text (save it as UTF-8)")


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

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def json_depth(data: bytes) -> int:
    """How deeply the arrays and objects of a JSON document nest (brackets inside strings do
    not count), counted at the speed of numpy rather than of a recursive reader."""
    bare = np.frombuffer(_JSON_STRING.sub(b'""', data), dtype=np.uint8)
    opening = (bare == ord("[")) | (bare == ord("{"))
    closing = (bare == ord("]")) | (bare == ord("}"))
    steps = opening.astype(np.int64) - closing.astype(np.int64)
    return int(np.cumsum(steps).max()) if steps.size else 0


def json_rows(data: bytes) -> int:
    """How many objects open at the second level of a JSON document: the rows of a table that
    is an array of objects, counted before any is built."""
    bare = np.frombuffer(_JSON_STRING.sub(b'""', data), dtype=np.uint8)
    opening = (bare == ord("[")) | (bare == ord("{"))
    closing = (bare == ord("]")) | (bare == ord("}"))
    depth = np.cumsum(opening.astype(np.int64) - closing.astype(np.int64))
    return int(np.count_nonzero((bare == ord("{")) & (depth == 2)))


def _read_json(data: bytes, source: str, limits: TableLimits) -> pl.DataFrame:
    if json_depth(data) > MAX_JSON_DEPTH:
        raise InputError(
            [Problem(source, None, None, None, f"nested more than {MAX_JSON_DEPTH} levels deep")]
        )
    if limits.rows is not None and json_rows(data) > limits.rows:
        _check_shape(source, limits, rows=limits.rows + 1, columns=0)
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
    footer = pq.ParquetFile(pa.BufferReader(data)).metadata
    _check_shape(source, limits, rows=footer.num_rows, columns=footer.num_columns)
    unpacked = sum(footer.row_group(i).total_byte_size for i in range(footer.num_row_groups))
    _check_decoded(source, limits, unpacked, "unpacks to")
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
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
    )  # fmt: skip


def _text_size(table: pa.Table, columns: list[str]) -> int:
    """The bytes of ``columns`` (dictionary-encoded) once every cell is written out."""
    total = 0
    for name in columns:
        for chunk in table.column(name).chunks:
            lengths = pc.binary_length(chunk.dictionary)
            total += pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0
    return total


def _plain(schema: pa.Schema, texts: list[str]) -> pa.Schema:
    """``schema`` with its dictionary columns as plain text again."""
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
