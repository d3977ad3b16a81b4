"""Player matching on frames: external ids, aliases, answers and the review of close names."""

from __future__ import annotations

import polars as pl

from importers.matching import Known, close_players, match_players
from ratings.names import name_key


def known(
    *players: tuple[int, str, str, str | None], merged: dict[int, int] | None = None
) -> pl.DataFrame:
    merged = merged or {}
    return pl.DataFrame(
        [(pid, fid, name, name_key(name), country, merged.get(pid)) for pid, fid, name, country in players],
        schema={
            "id": pl.Int64, "federation_id": pl.String, "name": pl.String,
            "name_key": pl.String, "country": pl.String, "merged_into": pl.Int64,
        },
        orient="row",
    )  # fmt: skip


def rows(*given: tuple[str, str | None, str | None, str | None]) -> pl.DataFrame:
    """(name, country, fide id, scheme of the file) per row."""
    return pl.DataFrame(
        [
            ("f.trf", i + 1, None, name, name_key(name), country, None, "fide" if fide else None, fide, scheme)
            for i, (name, country, fide, scheme) in enumerate(given)
        ],
        schema={
            "source": pl.String, "line": pl.Int64, "player_id": pl.String, "name": pl.String,
            "name_key": pl.String, "country": pl.String, "club": pl.String,
            "id_scheme": pl.String, "id_value": pl.String, "scheme": pl.String,
        },
        orient="row",
    )  # fmt: skip


PLAYERS = known(
    (1, "P1", "Klaus Klein", "DEU"), (2, "P2", "Anna Berg", "DEU"), (3, "P3", "Old Klein", "DEU")
)
NO_IDS = pl.DataFrame(schema={"player": pl.Int64, "scheme": pl.String, "value": pl.String})
NO_ALIASES = pl.DataFrame(schema={"scheme": pl.String, "spelling": pl.String, "player": pl.Int64})


def test_an_id_held_by_a_merged_player_finds_whom_it_was_merged_into() -> None:
    players = known((1, "P1", "Klaus Klein", "DEU"), (5, "P5", "Klein, K.", "DEU"), merged={5: 1})
    ids = pl.DataFrame({"player": [5], "scheme": ["fide"], "value": ["4600001"]})
    matched = match_players(
        rows(("Klein, Klaus", "DEU", "4600001", "trf")), Known(players, ids, NO_ALIASES)
    )
    assert matched.results["federation_id"].to_list() == ["P1"]
    assert matched.uncertain == ()
    assert matched.identifiers is not None
    assert matched.identifiers.height == 0


def test_a_new_id_of_a_matched_player_is_stored_for_him() -> None:
    matched = match_players(
        rows(("KLEIN Klaus", "DEU", "4600001", "trf")), Known(PLAYERS, NO_IDS, NO_ALIASES)
    )
    assert matched.results["player"].to_list() == [1]
    assert matched.identifiers is not None
    assert matched.identifiers.rows() == [("P1", "fide", "4600001")]


def test_a_player_holding_another_id_of_the_scheme_is_another_person() -> None:
    ids = pl.DataFrame({"player": [1], "scheme": ["fide"], "value": ["4600001"]})
    matched = match_players(
        rows(("Klein, Klaus", "DEU", "4699999", "trf")), Known(PLAYERS, ids, NO_ALIASES)
    )
    assert matched.uncertain == ()
    assert matched.new_players.select("name", "country").rows() == [("Klaus Klein", "DEU")]
    (new_id,) = matched.new_players["federation_id"].to_list()
    assert matched.identifiers is not None
    assert matched.identifiers.rows() == [(new_id, "fide", "4699999")]
    # Without an id, or with one of a scheme he holds none of, he is still the name's player.
    for fide in (None, "4699999"):
        bare = match_players(
            rows(("Klein, Klaus", "DEU", fide, "trf")), Known(PLAYERS, NO_IDS, NO_ALIASES)
        )
        assert bare.results["federation_id"].to_list() == ["P1"]


def test_close_names_with_other_ids_of_the_scheme_need_no_review() -> None:
    """A tournament of players the registry does not know by id, whose names are like those of
    players holding other FIDE ids: nobody to ask about, every one new."""
    registry = known(*[(i, f"P{i}", f"Player{i} Surname{i}", "DEU") for i in range(1, 25)])
    ids = pl.DataFrame(
        {"player": list(range(1, 25)), "scheme": ["fide"] * 24,
         "value": [str(4600000 + i) for i in range(1, 25)]}
    )  # fmt: skip
    entries = [(f"Player{i} Surnam{i}", "DEU", str(4700000 + i), "trf") for i in range(1, 25)]
    matched = match_players(rows(*entries), Known(registry, ids, NO_ALIASES))
    assert matched.uncertain == ()
    assert matched.new_players.height == 24
    # The same names without ids are asked about, each with its close player.
    unsure = match_players(
        rows(*[(name, country, None, scheme) for name, country, _, scheme in entries]),
        Known(registry, ids, NO_ALIASES),
    )
    assert len(unsure.uncertain) == 24
    assert [c.federation_id for c in unsure.uncertain[0].candidates] == ["P1"]


def test_a_candidate_of_another_id_is_left_out_of_the_list_the_officer_sees() -> None:
    registry = known((1, "P1", "Klaus Klein", "DEU"), (2, "P2", "Klaus Kleine", "DEU"))
    ids = pl.DataFrame({"player": [1], "scheme": ["fide"], "value": ["4600001"]})
    matched = match_players(
        rows(("Klaus Kleinn", "DEU", "4699999", "trf")), Known(registry, ids, NO_ALIASES)
    )
    (uncertain,) = matched.uncertain
    assert [c.federation_id for c in uncertain.candidates] == ["P2"]


def test_an_alias_answers_only_in_its_own_scheme() -> None:
    aliases = pl.DataFrame({"scheme": ["csv"], "spelling": ["Ann Berg"], "player": [2]})
    in_csv = match_players(rows(("Ann Berg", "DEU", None, "csv")), Known(PLAYERS, NO_IDS, aliases))
    assert in_csv.results["federation_id"].to_list() == ["P2"]
    in_h9 = match_players(rows(("Ann Berg", "DEU", None, "h9")), Known(PLAYERS, NO_IDS, aliases))
    assert [u.name for u in in_h9.uncertain] == ["Ann Berg"]


def test_an_unrelated_name_is_created_without_asking() -> None:
    matched = match_players(
        rows(("Zoltan Nagy", "HUN", None, "csv")), Known(PLAYERS, NO_IDS, NO_ALIASES)
    )
    assert matched.uncertain == ()
    assert matched.new_players.select("name", "country").rows() == [("Zoltan Nagy", "HUN")]


def test_close_players_score_only_within_buckets() -> None:
    queries = pl.DataFrame({"name_key": [name_key("Klaus Kleim"), name_key("Xavier Klein")]})
    close = close_players(queries, PLAYERS.select("id", "name_key"), min_score=60)
    assert close.filter(pl.col("name_key") == "klaus kleim")["candidate"].to_list() == [1]
    # Xavier shares "klein" but not with an x-initial word: no bucket, not scored.
    assert close.filter(pl.col("name_key") == "klein xavier").height == 0


def test_a_match_by_name_alone_is_told_and_without_a_country_or_as_a_handle_asked() -> None:
    matched = match_players(
        rows(
            ("Klein, Klaus", "DEU", None, "trf"),
            ("Klaus_Klein", None, None, "lichess"),
            ("Anna Berg", None, None, "csv"),
            ("Berg2", "DEU", None, "csv"),
        ),
        Known(PLAYERS, NO_IDS, NO_ALIASES),
    )
    assert matched.by_name is not None
    assert matched.by_name.rows() == [
        ("f.trf", 1, "Klein, Klaus", "DEU", "P1", "Klaus Klein", "DEU")
    ]
    asked = {u.name: (u.reason, [c.federation_id for c in u.candidates]) for u in matched.uncertain}
    assert asked == {
        "Klaus_Klein": ("matched by the name alone, written as a handle", ["P1"]),
        "Anna Berg": ("matched by the name alone, and the file gives no country", ["P2"]),
    }
    # Asked about, so neither matched nor created; the handle of no known name is a new player.
    assert matched.results["player"].to_list() == [1, None, None, None]
    assert matched.new_players["name"].to_list() == ["Berg2"]


def test_an_answer_or_an_id_is_no_match_by_name_alone() -> None:
    aliases = pl.DataFrame({"scheme": ["lichess"], "spelling": ["Klaus_Klein"], "player": [1]})
    matched = match_players(
        rows(("Klaus_Klein", None, None, "lichess"), ("Anna Berg", None, None, "csv")),
        Known(PLAYERS, NO_IDS, aliases),
        answers={"Anna Berg": "P2"},
    )
    assert matched.uncertain == ()
    assert matched.by_name is not None
    assert matched.by_name.height == 0
    assert matched.results["federation_id"].to_list() == ["P1", "P2"]


def test_of_two_players_with_the_same_words_the_one_written_so_is_taken() -> None:
    # EGC 2011's two placeholders, stored as two players; other spellings stay ambiguous, and
    # so do names differing by an accent (two registered people).
    players = known(
        (1, "1", "Parity Three", "FRA"), (2, "2", "Three Parity", "FRA"),
        (3, "3", "Jan Novák", "CZE"), (4, "4", "Jan Novak", "SVK"),
    )  # fmt: skip
    matched = match_players(
        rows(
            ("Three Parity", "FRA", None, None),
            ("Parity Three", "FRA", None, None),
            ("Parity three", "FRA", None, None),
            ("Jan Novak", None, None, None),
        ),
        players,
    )
    assert matched.results["player"].to_list() == [2, 1, None, None]
    assert [(p.line, p.expected) for p in matched.problems] == [
        (3, "2 players match this name (1, 2): give the player_id"),
        (4, "2 players match this name (3, 4): give the player_id"),
    ]
