"""The bytes of a text file before it is read as a table: its encoding (UTF-8, or a spreadsheet's
Windows-1252), its lines and whether it holds anything, each found without copying a large file
whole."""

from __future__ import annotations

import codecs

import numpy as np

from ratings.errors import InputError, Problem


def longest_line(data: bytes, end: bytes) -> tuple[int, int]:
    """The number (from 1) and the length of the longest line of ``data`` whose lines end with
    ``end``, found a few megabytes at a time."""
    view = np.frombuffer(data, dtype=np.uint8)
    mark = end[0]
    previous = -1
    """Where the last line end before the chunk is (-1: none yet)."""
    counted = 0
    longest, number = 0, 1
    for start in range(0, view.size, _UTF8_CHUNK):
        ends = np.flatnonzero(view[start : start + _UTF8_CHUNK] == mark) + start
        if not ends.size:
            continue
        lengths = np.diff(ends, prepend=previous) - 1
        widest = int(lengths.argmax())
        if lengths[widest] > longest:
            longest, number = int(lengths[widest]), counted + widest + 1
        counted += ends.size
        previous = int(ends[-1])
    if view.size - 1 - previous > longest:
        longest, number = view.size - 1 - previous, counted + 1
    return number, longest


def lines_within(data: bytes, end: bytes, longest: int) -> bool:
    """Whether every line of ``data`` whose lines end with ``end`` holds at most ``longest``
    bytes: from each line's start, the last line end within ``longest`` bytes is looked for
    backwards, and the next look starts after it, so the file is read once at the speed of a
    byte search, with a step per ``longest`` bytes rather than per line (:func:`longest_line`
    numbers every line, ten times slower on a file of a hundred megabytes)."""
    start, size = 0, len(data)
    while size - start > longest:
        last = data.rfind(end, start, start + longest + 1)
        if last < 0:
            return False
        start = last + 1
    return True


def line_end(data: bytes, start: int) -> int:
    """Where the line that starts at ``start`` ends (LF, CR or the end), without copying the rest
    of a large file as a split would."""
    ends = [at for at in (data.find(b"\n", start), data.find(b"\r", start)) if at >= 0]
    return min(ends, default=len(data))


def is_blank(data: bytes) -> bool:
    """Whether a file holds nothing but blanks (a test that copies nothing, as a strip would)."""
    return not data or data.isspace()


def utf8_text(data: bytes, source: str, warnings: list[Problem]) -> bytes:
    """A CSV file's bytes as UTF-8 without a BOM. A file that is not UTF-8 was saved by a
    spreadsheet in its Windows code page: it is read as Windows-1252 (the code page of Western
    European spreadsheets, whose ä, é and ß are single bytes), with a warning naming the file.
    A byte that Windows-1252 does not define either is refused where it is."""
    try:
        _check_utf8(data)
    except UnicodeDecodeError as error:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            raise InputError([_encoding_problem(data, source, error.start)]) from None
        warnings.append(
            Problem(
                source, None, None, None,
                "not UTF-8 text: read as Windows-1252, the encoding of a spreadsheet saved as "
                "CSV in Western Europe (save it as 'CSV UTF-8' to be sure of its letters)",
            )
        )  # fmt: skip
        return text.encode("utf-8")
    return data.removeprefix(b"\xef\xbb\xbf")


_UTF8_CHUNK = 16 * 1024 * 1024


def _check_utf8(data: bytes) -> None:
    """Raise the UnicodeDecodeError of the first byte of ``data`` that is not UTF-8 (its
    ``start`` counted from the beginning of ``data``), decoding a few megabytes at a time, so
    that a file at the size limit is not held as text besides its bytes."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for start in range(0, len(data), _UTF8_CHUNK):
        # The bytes of a character the chunk before ended in the middle of.
        pending = len(decoder.getstate()[0])
        try:
            decoder.decode(view[start : start + _UTF8_CHUNK], start + _UTF8_CHUNK >= len(data))
        except UnicodeDecodeError as error:
            at = start - pending + error.start
            raise UnicodeDecodeError("utf-8", data, at, at + 1, error.reason) from None


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
    return Problem(
        source,
        line,
        column,
        cell,
        "the file is neither UTF-8 nor Windows-1252 text (save it as UTF-8)",
    )
