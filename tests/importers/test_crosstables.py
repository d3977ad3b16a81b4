"""The crosstable dispatcher, and a fuzz test of the Go readers: random bytes and random mutations
of the golden files either read as a crosstable or raise InputError, never anything else."""

from __future__ import annotations

import contextlib
import io
import pathlib
import shutil
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from importers.crosstables import read_crosstable
from importers.formats import CROSSTABLES, crosstable_format
from importers.h9 import read_h9
from importers.macmahon import read_macmahon
from importers.opengotha import read_opengotha
from ratings.crosstable import Crosstable
from ratings.errors import InputError
from ratings.tiebreaks import McMahonScale, Policy, compute
from tests.support.data import GOLDEN

DATA = GOLDEN
GO = DATA / "go_opengotha"
MACMAHON = pathlib.Path(__file__).parent / "fixtures" / "macmahon_sample.txt"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (GO / "juvisy2019.h9", "h9"),
        (GO / "juvisy2019.xml", "opengotha"),
        (MACMAHON, "macmahon"),
    ],
)
def test_reads_by_extension_or_content(path: pathlib.Path, expected: str) -> None:
    assert read_crosstable(path).format == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (GO / "ioct_20_02.h9", "h9"),
        (GO / "juvisy2019.xml", "opengotha"),
        (MACMAHON, "macmahon"),
        (DATA / "chess_trf_samples" / "bbp_dutch_2025_C5.trf", "trf"),
    ],
)
def test_sniffs_a_txt_file(source: pathlib.Path, expected: str, tmp_path: pathlib.Path) -> None:
    target = tmp_path / "upload.txt"
    shutil.copy(source, target)
    assert crosstable_format(target.name, target.read_bytes()) == expected


def test_extension_wins_and_explicit_format_wins(tmp_path: pathlib.Path) -> None:
    assert crosstable_format("x.csv", b"001 anything") == "csv"
    target = tmp_path / "results.dat"
    shutil.copy(GO / "juvisy2019.h9", target)
    assert read_crosstable(target, format="h9").name == "Tournoi de Juvisy"
    assert set(CROSSTABLES) == {"h9", "opengotha", "trf", "csv", "macmahon"}


def test_empty_file(tmp_path: pathlib.Path) -> None:
    empty = tmp_path / "empty.h9"
    empty.write_bytes(b"\n \n")
    with pytest.raises(InputError, match=r"empty\.h9: a non-empty file"):
        read_crosstable(empty)


def test_missing_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(InputError, match=r"gone\.h9: a readable file"):
        read_crosstable(tmp_path / "gone.h9")


def test_unknown_format(tmp_path: pathlib.Path) -> None:
    unknown = tmp_path / "notes.txt"
    unknown.write_text("dear rating officer,\nplease rate this.\n")
    with pytest.raises(InputError, match=r"notes\.txt: a crosstable in one of the formats h9, "):
        read_crosstable(unknown)
    with pytest.raises(InputError, match=r"value 'pdf': a crosstable in one of the formats"):
        read_crosstable(unknown, format="pdf")


def test_reader_problems_name_the_file(tmp_path: pathlib.Path) -> None:
    broken = tmp_path / "broken.h9"
    broken.write_bytes((GO / "juvisy2019.h9").read_bytes().replace(b"2+/w0", b"2+/w0 7"))
    with pytest.raises(InputError, match=r"broken\.h9, line 12"):
        read_crosstable(broken)


Reader = Callable[[io.BytesIO, str], Crosstable]
GOLDEN: list[tuple[Reader, bytes]] = [
    (read_h9, (GO / "juvisy2019.h9").read_bytes()),
    (read_h9, (GO / "ioct_20_02.h9").read_bytes()),
    (read_opengotha, (GO / "juvisy2019.xml").read_bytes()),
    (read_macmahon, MACMAHON.read_bytes()),
]
POLICY = Policy(mcmahon=McMahonScale())


def _only_crosstable_or_input_error(reader: Reader, data: bytes) -> None:
    try:
        table = reader(io.BytesIO(data), "fuzz")
    except InputError:
        return
    assert isinstance(table, Crosstable)
    # Whatever a reader accepts, the engine computes or rejects as bad input.
    with contextlib.suppress(InputError):
        compute(table, POLICY)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[Reader, bytes]:
    reader, data = draw(st.sampled_from(GOLDEN))
    edits = draw(st.lists(st.tuples(st.integers(0, len(data)), st.binary(max_size=6)), max_size=4))
    cut = draw(st.integers(0, len(data)))
    for position, replacement in edits:
        data = data[:position] + replacement + data[position + len(replacement) :]
    if draw(st.booleans()):
        data = data[:cut]
    return reader, data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_golden_files(case: tuple[Reader, bytes]) -> None:
    _only_crosstable_or_input_error(*case)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([read_h9, read_opengotha, read_macmahon]), st.binary(max_size=300))
def test_random_bytes(reader: Reader, data: bytes) -> None:
    _only_crosstable_or_input_error(reader, data)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([read_h9, read_macmahon]),
    st.lists(
        st.sampled_from(
            [
                "1",
                "2",
                "0",
                "+",
                "-",
                "=",
                "/",
                "!",
                "w",
                "b",
                "?",
                "½",
                " ",
                "\n",
                "3d",
                "10k",
                "Pl",
                "Name",
                "MMS",
                "Pt",
                "SOS",
                "; ",
                "[",
                "]",
                "Ab",
            ]
        ),
        max_size=60,
    ),
)
def test_random_token_soup(reader: Reader, tokens: list[str]) -> None:
    header = "Pl Name Str Cl MMS 1 2 Pt SOS\n" if reader is read_macmahon else ""
    _only_crosstable_or_input_error(reader, (header + "".join(tokens)).encode("utf-8"))
