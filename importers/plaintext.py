"""Text helpers shared by the line-oriented Go crosstable readers (EGD h9, MacMahon result list)."""

from __future__ import annotations

import re
import typing
from fractions import Fraction

from ratings.errors import Problem

_NUMBER = re.compile(r"^(-?)(\d+)(½|\?|\.5|\.0)?$|^½$", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CODE_PAGES = {"iso8859_15": "ISO-8859-15", "cp1252": "Windows-1252"}


def read_bytes(stream: typing.BinaryIO, source: str) -> tuple[bytes, list[Problem]]:
    """All bytes of ``stream``; an unreadable or empty stream is a problem naming ``source``."""
    try:
        data = stream.read()
    except OSError as error:
        return b"", [Problem(source, None, None, None, f"a readable file ({error})")]
    if not data.strip():
        return b"", [Problem(source, None, None, None, "a non-empty file")]
    return data, []


def decode(data: bytes, source: str, fallback: str) -> tuple[list[str], list[Problem]]:
    """Lines of ``data``: UTF-8 when it is valid UTF-8 (BOM ignored), else the ``fallback`` code page.

    Pairing programs write their own code page (OpenGotha ISO-8859-15, older Windows programs
    Windows-1252) while files edited by hand are often UTF-8, so valid UTF-8 wins. Control
    characters (a binary file, UTF-16) are reported with their line.
    """
    expected = f"text in UTF-8 or {_CODE_PAGES.get(fallback, fallback)}"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode(fallback)
        except UnicodeDecodeError as error:
            return [], [
                Problem(
                    source,
                    data.count(b"\n", 0, error.start) + 1,
                    None,
                    repr(data[error.start : error.end]),
                    expected,
                )
            ]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    problems = [
        Problem(source, number, None, match.group(), expected)
        for number, line in enumerate(lines, start=1)
        if (match := _CONTROL.search(line))
    ]
    return lines, problems[:10]


def half_number(text: str) -> Fraction | None:
    """``408``, ``408½``, ``½``, ``408?`` (a "½" written in ISO-8859-15, which has none) or ``408.5``."""
    match = _NUMBER.match(text)
    if match is None:
        return None
    if text == "½":
        return Fraction(1, 2)
    value = Fraction(int(match.group(2)))
    if match.group(3) in ("½", "?", ".5"):
        value += Fraction(1, 2)
    return -value if match.group(1) else value


def is_whole_number(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts "²" and other digits ``int`` refuses)."""
    return text.isascii() and text.isdigit()
