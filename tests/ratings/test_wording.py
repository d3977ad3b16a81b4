"""Counts in words: one file, two files."""

from __future__ import annotations

import pytest

from ratings.wording import counted


@pytest.mark.parametrize(
    ("count", "words", "text"),
    [
        (1, ("file",), "1 file"),
        (0, ("file",), "0 files"),
        (2, ("file",), "2 files"),
        (1, ("entry", "entries"), "1 entry"),
        (3, ("entry", "entries"), "3 entries"),
        (1, ("player differs", "players differ"), "1 player differs"),
        (24, ("player differs", "players differ"), "24 players differ"),
    ],
)
def test_counted(count: int, words: tuple[str, ...], text: str) -> None:
    assert counted(count, *words) == text
