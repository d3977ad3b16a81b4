"""Readers for the golden files in ``tests/data/golden`` whose formats the service does not import.

They turn a published tie-break exercise and a pairing program's web pages into crosstables, so that
tests can compare the tie-break engine with values a real program printed.
"""

from __future__ import annotations

from tests.support.data import GOLDEN

DATA = GOLDEN
"""The golden files (``tests/data/golden``, sources in ``tests/data/SOURCES.md``)."""
