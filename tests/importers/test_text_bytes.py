"""The line checks made on a text file's bytes before it is read as a table."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from importers.text_bytes import lines_within, longest_line


@given(
    data=st.binary(max_size=60).map(lambda b: bytes(b"ab\n\r"[x % 4] for x in b)),
    end=st.sampled_from([b"\n", b"\r"]),
    longest=st.integers(0, 12),
)
def test_lines_within_agrees_with_the_longest_line(data: bytes, end: bytes, longest: int) -> None:
    assert lines_within(data, end, longest) is (longest_line(data, end)[1] <= longest)


def test_a_long_last_line_without_its_end_is_found() -> None:
    assert lines_within(b"ab\nabc", b"\n", 3)
    assert not lines_within(b"ab\nabcd", b"\n", 3)
    assert not lines_within(b"abcd\nab\n", b"\n", 3)
    assert lines_within(b"", b"\n", 0)
