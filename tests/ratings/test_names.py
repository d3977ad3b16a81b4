"""One folding of names for every comparison: each format's way of writing a person is one key."""

from __future__ import annotations

import polars as pl
import pytest
from anyascii import anyascii
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.names import (
    block_keys,
    is_suspect,
    name_key,
    name_key_expr,
    page_forms,
    search_words,
    search_words_expr,
    similarity,
    word_patterns,
    word_range,
)


@pytest.mark.parametrize(
    ("spellings", "key"),
    [
        (["Klein, Klaus", "KLEIN Klaus", "Klaus Klein", "klein  klaus"], "klaus klein"),
        (["de_Vries Dirk", "Vries, Dirk de", "Dirk de Vries", "DeVries Dirk"], "devries dirk"),
        (["van der Berg, Jan", "Jan van der Berg", "Vanderberg Jan"], "jan vanderberg"),
        (["Łuczak Paweł", "Luczak Pawel", "ŁUCZAK, Paweł"], "luczak pawel"),
        (["Mc Donald, Ian", "Ian McDonald"], "ian mcdonald"),
        (["Jean-Pierre Dupont", "Dupont Jean Pierre"], "dupont jean pierre"),
        (["O'Brien, Sean", "Sean OBrien"], "obrien sean"),
        (["Müller, Jürgen", "Jurgen Muller"], "jurgen muller"),
    ],
)
def test_each_format_s_spelling_folds_to_one_key(spellings: list[str], key: str) -> None:
    assert [name_key(s) for s in spellings] == [key] * len(spellings)


def test_mc_and_mac_stay_different_spellings() -> None:
    assert name_key("Ian McDonald") != name_key("Ian MacDonald")
    assert similarity(name_key("Ian McDonald"), name_key("Ian MacDonald")) > 85


def test_the_expression_folds_as_the_function_does() -> None:
    names = ["Klein, Klaus", "de_Vries Dirk", None, "Łuczak Paweł", "Klein, Klaus"]
    folded = pl.DataFrame({"name": names}, schema={"name": pl.String}).select(name_key_expr("name"))
    assert folded["name"].to_list() == [None if n is None else name_key(n) for n in names]


@pytest.mark.parametrize(
    ("name", "suspect"),
    [
        ("?uczak Pawe?", True),
        ("\ufffduczak", True),
        ("Å\x81uczak", True),
        ("MÃ¼ller", True),
        ("Łuczak", False),
        ("Müller", False),
        ("Klein", False),
    ],
)
def test_a_letter_lost_to_a_wrong_encoding_is_seen(name: str, suspect: bool) -> None:
    assert is_suspect(name) is suspect


def test_a_typo_in_one_word_still_shares_a_bucket() -> None:
    assert set(block_keys(name_key("Klaus Klein"))) & set(block_keys(name_key("Klein Klaus")))
    assert set(block_keys(name_key("Klaus Klein"))) & set(block_keys(name_key("Klaus Kleim")))
    # A word with a lost letter is matched by pattern instead (word_patterns).
    assert block_keys("?uczak pawel") == []
    assert word_patterns("?uczak pawel") == ["^.uczak$", "^pawel$"]


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Höller, Anna", ["anna", "holler"]),
        ("Maria  HÖLLER", ["holler", "maria"]),
        ("Dirk van der Berg", ["berg", "der", "dirk", "van", "vanderberg"]),
        ("de_Vries Dirk", ["de", "devries", "dirk", "vries"]),
        ("O'Brien, Seán", ["obrien", "sean"]),
    ],
)
def test_a_name_is_found_by_each_of_its_words(name: str, words: list[str]) -> None:
    assert search_words(name) == words
    # What a person types is folded the same way: each of its words starts one of these.
    for typed in (name, name.upper()):
        assert all(any(word.startswith(part) for word in words) for part in name_key(typed).split())
    column = pl.DataFrame({"name": [name, None]}).select(search_words_expr("name"))
    assert column.to_series().to_list() == [" ".join(words), None]


def test_the_words_starting_with_a_word_are_a_range() -> None:
    low, high = word_range("holler")
    words = sorted(["holle", "holler", "hollera", "hollerz", "hollers", "holles", "holm"])
    assert [w for w in words if low <= w < high] == ["holler", "hollera", "hollers", "hollerz"]
    assert not any(w.startswith("aut") for w in search_words("Henri Gauthier"))


_NAME_PARTS = st.sampled_from([
    "Höller", "van", "der", "Berg", "de_Vries", "Dirk", "O'Brien", "Seán", "Łuczak", "?uczak",
    "\ufffduczak", "Straße", "İnan", "Ǆuro", "Иванов", "李", "Mc", "Donald", "José-María", "d",
    "Mustermann", "’t", "Hooft", "\u00a0", "\t", "  ", ",", ", ", "_", "-", ".", "(", ")",
])  # fmt: skip


_ASCII_PARTS = st.sampled_from([
    "Klein", "KLAUS", "van", "VAN", "Der", "berg", "St.", "mac", "Mc", "O'Neil", "d`Arc", "a", "B",
    "de_Vries", "Smith-Jones", "[x]", '"Bob"', "\x1c", "\x1f", "\t", "\n", " ", "  ", ",", ";", "/",
])  # fmt: skip
_NAMES = st.one_of(
    st.lists(_NAME_PARTS, max_size=8).map("".join),
    # Plain ASCII names are folded by polars, the others one by one: both must agree.
    st.lists(_ASCII_PARTS, max_size=8).map("".join),
    st.lists(_ASCII_PARTS, max_size=8).map(" ".join),
)


@given(st.lists(_NAMES, max_size=6))
def test_the_page_forms_are_the_alphabetical_form_and_the_search_words(names: list[str]) -> None:
    # Folded once for both columns, each is still exactly its own definition, row by row.
    column = pl.Series("name", [*names, None, *names], dtype=pl.String)
    forms = page_forms(column)
    expected = [
        None if n is None else (" ".join(anyascii(n).casefold().split()), " ".join(search_words(n)))
        for n in column.to_list()
    ]
    got = list(zip(forms["alphabetical"].to_list(), forms["words"].to_list(), strict=True))
    assert got == [(None, None) if e is None else e for e in expected]


def test_one_score_forgives_a_word_sorted_elsewhere_by_a_lost_first_letter() -> None:
    from ratings.names import similarities, similarity

    garbled, known = name_key("?uczak Jakub"), name_key("Jakub Łuczak")
    assert (garbled, known) == ("?uczak jakub", "jakub luczak")
    assert similarity(garbled, known) == pytest.approx(200 * 11 / 24)
    assert similarity(name_key("Glein Klaus"), name_key("Klaus Klein")) > 90
    # The order of the words does not count for more than one moved word, nor makes a subset
    # of the words a close name.
    scores = similarities(
        pl.Series(["klaus", "anna berg", ""]), pl.Series(["klaus klein", "anna berg", "x"])
    )
    assert scores.to_list() == [pytest.approx(200 * 5 / 16), 100.0, 0.0]


_KEY_WORDS = st.lists(
    st.text(alphabet="abklnu?\ufffd", min_size=0, max_size=6), min_size=1, max_size=5
).map(" ".join)


@settings(max_examples=40)
@given(st.lists(st.tuples(_KEY_WORDS, _KEY_WORDS), min_size=1, max_size=30))
def test_a_few_pairs_are_scored_one_by_one_as_many_are_together(
    pairs: list[tuple[str, str]],
) -> None:
    # A search scores a few pairs one by one, without numpy; an import scores thousands as
    # arrays. Both give every pair the same score, to the last bit.
    from ratings import names

    first = pl.Series([a for a, _ in pairs], dtype=pl.String)
    second = pl.Series([b for _, b in pairs], dtype=pl.String)
    one_by_one = names.similarities(first, second).to_list()
    times = names.PAIR_BY_PAIR_UP_TO // len(pairs) + 1
    together = names.similarities(pl.concat([first] * times), pl.concat([second] * times)).to_list()
    assert together[: len(pairs)] == one_by_one


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("Klaus Klein", "Klaus Klein"),
        ("Whalley, Anthony", "Anthony Whalley"),
        ("EVAIN Andéol", "Andéol Evain"),
        ("Le_Flochmoen Eric", "Eric Le Flochmoen"),
        ("Pham Minh_Quang", "Minh Quang Pham"),
        ("de_Vries Dirk", "Dirk de Vries"),
        ("Vries, Dirk de", "Dirk de Vries"),
        ("VAN DER BERG Sofia", "Sofia van der Berg"),
        ("KLEIN, Klaus", "Klaus Klein"),
        ("Klaus KLEIN", "Klaus Klein"),
        ("MCDONALD Ian", "Ian McDonald"),
        ("DUPONT Jean-Pierre", "Jean-Pierre Dupont"),
        ("O'NEIL, Sean", "Sean O'Neil"),
        ("Klaus_Klein", "Klaus Klein"),
        # Family and given names cannot be told: the order written, in the usual case.
        ("KLAUS KLEIN", "Klaus Klein"),
        ("Klein Klaus", "Klein Klaus"),
        ("Jean EVAIN Martin", "Jean Evain Martin"),
        ("kklein92", "kklein92"),
        ("?uczak Jakub", "?uczak Jakub"),
        ("  Anna   Berg ", "Anna Berg"),
    ],
)
def test_a_new_player_is_shown_given_name_first_in_the_usual_case(written: str, shown: str) -> None:
    from ratings.names import display_name, display_names

    assert display_name(written) == shown
    assert display_names(pl.Series([written, None])).to_list() == [shown, None]
    assert name_key(shown) == name_key(written)


@given(st.text(max_size=40))
def test_the_display_form_never_changes_how_a_name_compares(text: str) -> None:
    from ratings.names import display_name

    assert name_key(display_name(text)) == name_key(text)


@pytest.mark.parametrize(
    ("name", "handle"),
    [("Klaus_Klein", True), ("kklein92", True), ("Klein2 Klaus", True), ("de_Vries Dirk", False),
     ("Klaus Klein", False), ("Pham Minh_Quang", False)],
)  # fmt: skip
def test_a_handle_is_told_from_a_name(name: str, handle: bool) -> None:
    from ratings.names import is_handle

    assert is_handle(name) is handle


@given(
    st.lists(
        st.from_regex(
            r"\A(?:[A-ZÖ][a-zö]{0,6}|[A-ZÖ]{2,7}|de|van|Mc[A-Z]?[a-z]{0,3}|MC[A-Z]{2}),"
            r" (?:[A-Z][a-z]{0,5}|[A-Z]{2,4}|de|van)(?: (?:[A-Z][a-z]{0,5}|de|van)){0,2}\Z"
        ),
        max_size=8,
    )
)
def test_a_column_of_names_is_shown_as_each_name_alone(names: list[str]) -> None:
    from ratings.names import display_name, display_names

    assert display_names(pl.Series(names, dtype=pl.String)).to_list() == [
        display_name(n) for n in names
    ]


@pytest.mark.parametrize("written", ['=HYPERLINK("http://x","y")', "Smith, J. (captain)", "a/b, c"])
def test_a_text_no_person_writes_is_shown_as_written(written: str) -> None:
    # A comma inside a formula or a remark is no "Family, Given": turned round, the text would
    # be another text, and a formula guard or a reader of the file could not find it again.
    from ratings.names import display_name, display_names

    assert display_name(written) == written
    assert display_names(pl.Series([written])).to_list() == [written]
