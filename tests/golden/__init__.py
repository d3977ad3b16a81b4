"""Readers for the golden files in ``shared/data`` whose formats the service does not import.

They turn a published tie-break exercise and a pairing program's web pages into crosstables, so that
tests can compare the tie-break engine with values a real program printed.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
"""The shared data folder next to the repository (``/work/shared/data``)."""
