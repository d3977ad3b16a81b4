"""Input files are bounded before anything is built from them: their size, and JSON's depth."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from importers.tabular import json_depth, read_file_bytes, read_table
from ratings.errors import InputError


def test_a_file_larger_than_the_limit_is_refused_after_reading_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("wb") as stream:  # sparse: 3 GB on the disk's books, nothing written
        stream.truncate(3 * 1024**3)
    with pytest.raises(
        InputError,
        match=(
            r"^1 problem found:\n  big\.csv: larger than the input limit of 256 MB "
            r"\(setting input_limit_bytes\)$"
        ),
    ):
        read_file_bytes(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this platform")
def test_a_device_that_never_ends_is_refused() -> None:
    with pytest.raises(InputError, match=r"zero: larger than the input limit of 1 KB "):
        read_file_bytes(Path("/dev/zero"), limit=1024)


def test_json_nested_too_deep_is_one_problem() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(
        InputError, match=r"^1 problem found:\n  deep\.json: nested more than 32 levels deep$"
    ):
        read_table(deep, "deep.json", "json")


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps([{"name": "[[[[" * 100, "note": {"a": [1, 2]}}]).encode()
    assert json_depth(text) == 4
    assert json_depth(b'["\\"[[[["]') == 1
    assert json_depth(b"") == 0
