"""Dates as tournament files write them in records 042 and 052 of a TRF.

TRF16 prescribes no form for these dates and the programs that write TRF files use the one of their
locale; TRF-2026 asks for ``YYYY/MM/DD``. :func:`read_date` reads every form seen in real files:

* year first, 4 digits: ``2020/05/29``, ``2020-05-29``, ``2009.09.09``;
* day first, 4-digit year: ``25.02.2011``, ``28. 07. 2005`` (dots are always day first),
  ``24/09/2010``, ``24-09-2010``; with ``/`` or ``-`` and both leading numbers 12 or less the
  form could be American (month first): it is read day first, and said so;
* month names in English: ``May 29, 2020``, ``Sep 5, 2021`` (what lichess writes), ``29 May 2020``;
* three two-digit numbers, ``10.09.13``: read year first, ``YY.MM.DD``, the form TRF itself
  prescribes for round dates (record 132) and the one the Irish Chess Union's tools write; when that
  is not a date, day first ``DD.MM.YY``. Either way it is said so. Two-digit years are 2000-2069
  for 00-69 and 1970-1999 for 70-99.
"""

from __future__ import annotations

import re
from datetime import date

__all__ = ["read_date"]

_SEP = r"\s*[/.-]\s*"
_YEAR_FIRST = re.compile(rf"(\d{{4}}){_SEP}(\d{{1,2}}){_SEP}(\d{{1,2}})", re.ASCII)
_DAY_FIRST = re.compile(rf"(\d{{1,2}})\s*([/.-])\s*(\d{{1,2}}){_SEP}(\d{{4}})", re.ASCII)
_SHORT = re.compile(rf"(\d{{1,2}}){_SEP}(\d{{1,2}}){_SEP}(\d{{1,2}})", re.ASCII)
_MONTH_FIRST = re.compile(r"([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", re.ASCII)
_MONTH_MIDDLE = re.compile(r"(\d{1,2})\.?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})", re.ASCII)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
            ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
            ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _century(year: int) -> int:
    return 2000 + year if year < 70 else 1900 + year


def read_date(text: str) -> tuple[date | None, str | None]:
    """The date ``text`` means, and the guess made to read it (None when the form is certain);
    ``(None, None)`` when it is not a date in any form known."""
    value = text.strip()
    if match := _YEAR_FIRST.fullmatch(value):
        return _date(int(match[1]), int(match[2]), int(match[3])), None
    if match := _DAY_FIRST.fullmatch(value):
        first, separator, second, year = int(match[1]), match[2], int(match[3]), int(match[4])
        if separator != "." and first <= 12 < second:
            return _date(year, first, second), None
        when = _date(year, second, first)
        if when is not None and separator != "." and first != second and first <= 12:
            return when, "read day first, DD/MM/YYYY"
        return when, None
    if match := _MONTH_FIRST.fullmatch(value):
        month = _MONTHS.get(match[1].lower())
        return (_date(int(match[3]), month, int(match[2])) if month else None), None
    if match := _MONTH_MIDDLE.fullmatch(value):
        month = _MONTHS.get(match[2].lower())
        return (_date(int(match[3]), month, int(match[1])) if month else None), None
    if match := _SHORT.fullmatch(value):
        a, b, c = int(match[1]), int(match[2]), int(match[3])
        when = _date(_century(a), b, c)
        if when is not None:
            return when, "two-digit date read year first, YY.MM.DD"
        when = _date(_century(c), b, a)
        if when is not None:
            return when, "two-digit date read day first, DD.MM.YY"
    return None, None
