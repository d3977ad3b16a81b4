"""Finding the player each result row belongs to (SPEC 4.1, player matching).

In order, the first that answers wins:

1. the officer's answer for this name (``--map``: a player id, or ``new``);
2. the row's ``player_id`` (an unknown id with a name creates the player);
3. a remembered spelling (an alias: in files of this scheme, this spelling is this player);
4. the row's external id (FIDE id, EGD PIN), when a player holds it and the names agree;
5. the folded name (:func:`ratings.names.name_key`), with the country when the row gives one.

A confident match is taken. A row none of them answers is a new player, unless a known player's
name is close (score at least ``review_score``), the name lost a letter to a wrong encoding, or
its external id belongs to a player of another name: such a row is *uncertain*, and the import
asks the officer instead of creating anyone. Pure: the caller passes the known players in and
writes the outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from importers.close_names import DISPLAY_SCORE, candidates_by, close_players
from importers.external_ids import (
    SCHEME_COLUMNS,
    SCHEME_NAMES,
    by_external_id,
    identifiers_to_store,
    other_person_dropped,
)
from importers.known_players import Known, KnownPlayers, empty_known, known_players, with_optional
from ratings.errors import Candidate, Problem, Uncertain
from ratings.names import (
    ANY_SCHEME,
    HANDLE,
    LOST_LETTER,
    display_names,
    name_key,
    name_key_expr,
)

__all__ = [
    "ALIASES",
    "BY_NAME",
    "DISPLAY_SCORE",
    "IDENTIFIERS",
    "NEW",
    "SCHEME_COLUMNS",
    "SCHEME_NAMES",
    "Known",
    "Matched",
    "close_players",
    "empty_known",
    "match_players",
    "next_ids",
    "spellings_kept",
]

NEW = "new"
"""The answer that makes a name a new player."""


@dataclass(frozen=True, slots=True)
class Matched:
    results: pl.DataFrame
    """The input rows plus ``federation_id`` (known or newly given) and ``player`` (the database
    id of a known player, null for a new one)."""
    new_players: pl.DataFrame
    """federation_id, name, name_key, country, club, and spelling and scheme: players to create,
    each ``name`` in its display form (:func:`ratings.names.display_name`), ``spelling`` as the
    file wrote it, in a file of ``scheme`` (:func:`spellings_kept` says which are kept)."""
    problems: tuple[Problem, ...]
    uncertain: tuple[Uncertain, ...] = ()
    identifiers: pl.DataFrame | None = None
    """federation_id, scheme, value: external ids to store."""
    aliases: pl.DataFrame | None = None
    """scheme, spelling, federation_id: the officer's answers to remember."""
    closest: Mapping[str, tuple[Candidate, ...]] | None = None
    """federation id of each new player → the known players closest to it."""
    warnings: tuple[Problem, ...] = ()
    """External ids not stored because they disagree with what is stored (an id another player
    holds, another id of the scheme than the player holds) or with another row of the files:
    for the officer to review; the rows themselves are matched by their player_id."""
    by_name: pl.DataFrame | None = None
    """Rows matched to a known player by the name alone (no id, alias or external id), each
    way a file writes a player once: source, line, name, country, and the player's
    federation_id, known_name, known_country."""
    remembered: pl.DataFrame | None = None
    """scheme, spelling: the spellings remembered before for the players of the files. A new
    player written so is another person than the one the spelling remembers (another id of the
    scheme), and the spelling stays that one's."""


IDENTIFIERS = {"federation_id": pl.String, "scheme": pl.String, "value": pl.String}
ALIASES = {"scheme": pl.String, "spelling": pl.String, "federation_id": pl.String}
BY_NAME = {
    "source": pl.String, "line": pl.Int64, "name": pl.String, "country": pl.String,
    "federation_id": pl.String, "known_name": pl.String, "known_country": pl.String,
}  # fmt: skip


def spellings_kept(
    new_players: pl.DataFrame, remembered: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The spellings of new players kept as aliases (scheme, spelling, federation_id): where the
    display form differs from the spelling, or a later file's row would otherwise be a match by
    the name alone that is asked about (no country, a handle), so that the next file written
    the same way matches the player without a question. A spelling two new players share in one
    scheme is kept for neither, and one ``remembered`` (scheme, spelling) for another player
    stays that player's."""
    if remembered is not None:
        new_players = new_players.join(
            remembered.select("scheme", "spelling"), on=["scheme", "spelling"], how="anti"
        )
    kept = new_players.filter(
        pl.col("scheme").is_not_null()
        & (
            (pl.col("spelling") != pl.col("name"))
            | pl.col("country").is_null()
            | pl.col("spelling").str.strip_chars().str.contains(HANDLE.pattern)
        )
    )
    return kept.filter(pl.struct("scheme", "spelling").is_unique()).select(
        "scheme", "spelling", "federation_id"
    )


def next_ids(known_ids: pl.Series, count: int) -> list[str]:
    """``count`` fresh numeric federation ids after the largest numeric one in use."""
    numeric = known_ids.filter(known_ids.str.contains(r"^\d{1,18}$")).cast(pl.Int64)
    start = int(numeric.max() or 0) + 1 if numeric.len() else 1  # type: ignore[arg-type]
    return [str(start + i) for i in range(count)]


def match_players(
    results: pl.DataFrame,
    known: Known | pl.DataFrame,
    *,
    review_score: float = 85.0,
    answers: Mapping[str, str] | None = None,
    closest: bool = False,
) -> Matched:
    """Match ``results`` (columns source, line, player_id, name, name_key, country, club; and
    optionally id_scheme, id_value, the row's external id, and scheme, the file's format for
    aliases) to the ``known`` players. ``answers`` maps names as the officer wrote them to a
    federation id or ``new``; ``closest`` adds each new player's closest known players."""
    players = known_players(known, review_score)
    rows = with_optional(results, "id_scheme", "id_value", "scheme").with_row_index("_row")
    rows, problems = _answered(rows, answers or {}, players)
    id_matches, by_id_problems = _by_player_id(rows, players)
    problems += by_id_problems
    by_name = rows.filter(pl.col("player_id").is_null()).with_columns(
        pl.lit(None, dtype=pl.Int64).alias("player")
    )
    by_name = _by_alias(by_name, players)
    by_name, disputed, uncertain = by_external_id(by_name, players)
    by_name, ambiguous, ambiguous_problems = _by_folded_name(by_name, disputed, players)
    problems += ambiguous_problems
    by_name, unsure, by_name_alone, unsure_by_name = _asked_by_name(by_name, players)
    uncertain += unsure_by_name
    excluded = pl.concat([ambiguous["_row"], disputed["_row"], unsure["_row"]])
    unknown_named, doubtful = _not_found(by_name, excluded, players)
    uncertain += doubtful
    fresh = _fresh(unknown_named, players, id_matches)
    by_name = _with_federation_ids(by_name, fresh, unknown_named, players)
    new_players = _new_players(id_matches, fresh)
    keep = [*results.columns, "federation_id", "player"]
    extra = [c for c in ("id_scheme", "id_value", "scheme", "_answer") if c not in keep]
    both = pl.concat(
        [
            id_matches.select("_row", *keep, *extra),
            by_name.select("_row", *keep, *extra),
        ],
        how="vertical_relaxed",
    ).sort("_row")
    identifiers, warnings = identifiers_to_store(both, id_matches, players)
    remembered_answers = (
        both.filter(pl.col("_answer").is_not_null() & pl.col("federation_id").is_not_null())
        .select(
            pl.col("scheme").fill_null(""),
            pl.col("name").alias("spelling"),
            "federation_id",
        )
        .unique(["scheme", "spelling"], keep="first", maintain_order=True)
    )
    return Matched(
        both.select(keep),
        new_players,
        tuple(problems),
        tuple(uncertain),
        identifiers.cast(IDENTIFIERS),  # type: ignore[arg-type]
        remembered_answers.cast(ALIASES),  # type: ignore[arg-type]
        _nearest(new_players, players) if closest else {},
        tuple(sorted(warnings, key=lambda p: (p.file, p.line or 0))),
        by_name_alone.cast(BY_NAME),  # type: ignore[arg-type]
        players.known.aliases.select("scheme", "spelling").unique(),
    )


def _answered(
    rows: pl.DataFrame, answers: Mapping[str, str], players: KnownPlayers
) -> tuple[pl.DataFrame, list[Problem]]:
    """Step 1, the officer's answers, by folded name: an id becomes the row's player_id."""
    rows = rows.join(_answers(answers), on="name_key", how="left").with_columns(
        pl.when(pl.col("player_id").is_null() & (pl.col("_answer") != NEW))
        .then(pl.col("_answer"))
        .otherwise(pl.col("player_id"))
        .alias("player_id"),
        (pl.col("_answer") == NEW).fill_null(False).alias("_new"),
    )
    unknown_answers = rows.filter(
        pl.col("_answer").is_not_null() & (pl.col("_answer") != NEW)
    ).join(
        players.everyone.select("federation_id"),
        left_on="_answer", right_on="federation_id", how="anti",
    )  # fmt: skip
    problems = [
        Problem(source, line, "name", name, f"the answer {answer!r} is no player id (nor 'new')")
        for source, line, name, answer in unknown_answers.select(
            "source", "line", "name", "_answer"
        )
        .unique(["name"], maintain_order=True)
        .rows()
    ]
    return rows, problems


def _by_player_id(rows: pl.DataFrame, players: KnownPlayers) -> tuple[pl.DataFrame, list[Problem]]:
    """Step 2, a player_id: that player (or whom it was merged into)."""
    id_matches = rows.filter(pl.col("player_id").is_not_null()).join(
        players.everyone.select("federation_id", "_target", "_target_federation_id"),
        left_on="player_id",
        right_on="federation_id",
        how="left",
    )
    problems = [
        Problem(source, line, "player_id", player_id, "unknown player id and no name to create it")
        for source, line, player_id in id_matches.filter(
            pl.col("_target").is_null() & pl.col("name").is_null()
        )
        .select("source", "line", "player_id")
        .rows()
    ]
    id_matches = id_matches.with_columns(
        pl.coalesce("_target_federation_id", "player_id").alias("federation_id"),
        pl.col("_target").alias("player"),
    )
    return id_matches, problems


def _by_alias(by_name: pl.DataFrame, players: KnownPlayers) -> pl.DataFrame:
    """Step 3, a remembered spelling in this scheme."""
    everyone = players.everyone
    aliases = players.known.aliases
    remembered = aliases.select(
        "scheme",
        name_key_expr("spelling").alias("name_key"),
        pl.col("player").alias("_alias"),
    ).unique(["scheme", "name_key"], keep="last")
    remembered = remembered.join(
        everyone.select(pl.col("id").alias("_alias"), pl.col("_target").alias("_alias_target")),
        on="_alias",
    ).drop("_alias")
    # A spelling of every format (a name the player had before a rename) answers where the
    # file's own format has none.
    anywhere = remembered.filter(pl.col("scheme") == ANY_SCHEME).select(
        "name_key", pl.col("_alias_target").alias("_any_target")
    )
    # A spelling remembered exactly as the row writes it comes first: two players whose names
    # fold alike (EGC 2011's "Parity Three" and "Three Parity") are each found by their own.
    spelled = (
        aliases.filter(pl.col("scheme") != ANY_SCHEME)
        .select("scheme", pl.col("spelling").alias("name"), pl.col("player").alias("_alias"))
        .unique(["scheme", "name"], keep="last")
        .join(
            everyone.select(pl.col("id").alias("_alias"), pl.col("_target").alias("_exact_target")),
            on="_alias",
        )
        .drop("_alias")
    )
    by_name = (
        by_name.join(
            remembered.filter(pl.col("scheme") != ANY_SCHEME),
            on=["scheme", "name_key"],
            how="left",
        )
        .join(spelled, on=["scheme", "name"], how="left")
        .join(anywhere, on="name_key", how="left")
        .with_columns(
            pl.when(~pl.col("_new"))
            .then(pl.coalesce("_exact_target", "_alias_target", "_any_target"))
            .alias("player")
        )
    )
    other_person = (
        by_name.filter(pl.col("player").is_not_null() & pl.col("id_value").is_not_null())
        .select("_row", "id_scheme", "id_value", pl.col("player").alias("_candidate"))
        .join(players.schemes_held, on=["_candidate", "id_scheme"], how="semi")
        .join(
            players.ids_held.rename({"value": "id_value"}),
            on=["_candidate", "id_scheme", "id_value"],
            how="anti",
        )
    )
    return by_name.with_columns(
        pl.when(pl.col("_row").is_in(other_person["_row"].implode()))
        .then(None)
        .otherwise(pl.col("player"))
        .alias("player")
    )


def _by_folded_name(
    by_name: pl.DataFrame, disputed: pl.DataFrame, players: KnownPlayers
) -> tuple[pl.DataFrame, pl.DataFrame, list[Problem]]:
    """Step 5, the folded name, and the country when the row gives one. A known player who
    holds another id of the row's scheme is never its candidate (as in step 3). The rows more
    than one player matches (``ambiguous``) are problems."""
    pending = (
        pl.col("player").is_null()
        & ~pl.col("_new")
        & ~pl.col("_row").is_in(disputed["_row"].implode())
    )
    candidates = (
        by_name.filter(pending)
        .select("_row", "name_key", "country", "name", "id_scheme", "id_value")
        .join(
            players.live.select(
                "name_key",
                pl.col("country").alias("_known_country"),
                pl.col("id").alias("_candidate"),
                pl.col("federation_id").alias("_candidate_federation_id"),
                pl.col("name").alias("_known_name"),
            ),
            on="name_key",
        )
        .filter(pl.col("country").is_null() | (pl.col("country") == pl.col("_known_country")))
    )
    candidates = other_person_dropped(candidates, players.schemes_held)
    # Players whose names are the same words in another order (two entries of one event,
    # "Parity Three" and "Three Parity"): the one stored exactly as the row writes it is the
    # row's. Names that differ otherwise (an accent) stay ambiguous.
    exact = pl.col("_known_name") == pl.col("name")
    reordered = _words(pl.col("_known_name")) == _words(pl.col("name"))
    candidates = candidates.filter(
        exact | ~(exact.any().over("_row") & reordered.all().over("_row"))
    )
    counted = candidates.group_by("_row").agg(
        pl.col("_candidate").alias("_candidates"),
        pl.col("_candidate_federation_id").alias("_candidate_ids"),
    )
    by_name = by_name.join(counted, on="_row", how="left")
    ambiguous = by_name.filter(pl.col("_candidates").list.len() > 1)
    problems = [
        Problem(
            source,
            line,
            "name",
            name,
            f"{len(ids)} players match this name ({', '.join(sorted(ids))}): give the player_id",
        )
        for source, line, name, ids in ambiguous.select(
            "source", "line", "name", "_candidate_ids"
        ).rows()
    ]
    single = pl.col("_candidates").list.len() == 1
    by_name = by_name.with_columns(
        (pl.col("player").is_null() & single).fill_null(False).alias("_by_name")
    ).with_columns(
        pl.when(pl.col("_by_name"))
        .then(pl.col("_candidates").list.first())
        .otherwise(pl.col("player"))
        .alias("player")
    )
    return by_name, ambiguous, problems


def _asked_by_name(
    by_name: pl.DataFrame, players: KnownPlayers
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[Uncertain]]:
    """A match by the name alone is told (``by_name_alone``); without a country to agree, or
    by a name written as a handle (``Klaus_Klein``), it is asked about instead (``unsure``)."""
    named = by_name.filter(pl.col("_by_name") & pl.col("player").is_not_null()).join(
        players.holders.select(
            pl.col("_target").alias("player"),
            pl.col("federation_id").alias("_known_id"),
            pl.col("name").alias("_known_name"),
            pl.col("country").alias("_known_country"),
        ),
        on="player",
        how="left",
    )
    handle = pl.col("name").str.strip_chars().str.contains(HANDLE.pattern)
    unsure = named.filter(pl.col("country").is_null() | handle)
    uncertain: list[Uncertain] = []
    for source, line, name, country, player, fid, known_name, known_country in (
        unsure.unique(["name", "country"], maintain_order=True)
        .select(
            "source", "line", "name", "country", "player", "_known_id", "_known_name",
            "_known_country",
        )
        .rows()
    ):  # fmt: skip
        reason = (
            "matched by the name alone, written as a handle"
            if HANDLE.search(name.strip())
            else "matched by the name alone, and the file gives no country"
        )
        uncertain.append(
            Uncertain(
                source, line, name, country, reason,
                (Candidate(100.0, player, fid, known_name, known_country),),
            )
        )  # fmt: skip
    by_name = by_name.with_columns(
        pl.when(pl.col("_row").is_in(unsure["_row"].implode()))
        .then(None)
        .otherwise(pl.col("player"))
        .alias("player")
    )
    by_name_alone = (
        named.filter(~pl.col("_row").is_in(unsure["_row"].implode()))
        .unique(["source", "name", "country", "player"], maintain_order=True)
        .select(
            "source", pl.col("line").cast(pl.Int64), "name", "country",
            pl.col("_known_id").alias("federation_id"), pl.col("_known_name").alias("known_name"),
            pl.col("_known_country").alias("known_country"),
        )
    )  # fmt: skip
    return by_name, unsure, by_name_alone, uncertain


def _not_found(
    by_name: pl.DataFrame, excluded: pl.Series, players: KnownPlayers
) -> tuple[pl.DataFrame, list[Uncertain]]:
    """The rows no step matched and none asked about (``excluded``: ambiguous, disputed,
    asked): new players, unless a known one is close or the name lost a letter, which are
    asked about instead."""
    unknown_named = by_name.filter(
        pl.col("player").is_null() & ~pl.col("_row").is_in(excluded.implode())
    )
    asked = unknown_named.filter(~pl.col("_new"))
    close = close_players(asked.select("name_key"), players.live, min_score=players.review_score)
    close_rows = other_person_dropped(
        asked.select("_row", "name_key", "id_scheme", "id_value")
        .join(close, on="name_key", maintain_order="left_right")
        .rename({"candidate": "_candidate"}),
        players.schemes_held,
    ).rename({"_candidate": "candidate"})
    lost = asked.filter(pl.col("name").str.contains(LOST_LETTER.pattern)).select("_row")
    doubtful = pl.concat([close_rows.select("_row").unique(), lost]).unique()
    close_by_row = candidates_by(close_rows, _shown(players), "_row")
    uncertain: list[Uncertain] = []
    for source, line, name, country, row in (
        unknown_named.filter(pl.col("_row").is_in(doubtful["_row"].implode()))
        .select("source", "line", "name", "country", "_row")
        .unique(["name", "country"], maintain_order=True)
        .rows()
    ):
        reason = (
            "the name has a letter lost to a wrong encoding"
            if LOST_LETTER.search(name)
            else "known players have a close name"
        )
        uncertain.append(Uncertain(source, line, name, country, reason, close_by_row.get(row, ())))
    return unknown_named.filter(~pl.col("_row").is_in(doubtful["_row"].implode())), uncertain


def _shown(players: KnownPlayers) -> pl.DataFrame:
    """What a candidate shows of a live player."""
    return players.live.select(pl.col("id").alias("candidate"), "federation_id", "name", "country")


def _fresh(
    unknown_named: pl.DataFrame, players: KnownPlayers, id_matches: pl.DataFrame
) -> pl.DataFrame:
    """The new players of the rows no step matched, one per folded name and country, each
    with a fresh federation id."""
    fresh = (
        unknown_named.group_by("name_key", "country", maintain_order=True)
        .agg(pl.col("name").first(), pl.col("club").first(), pl.col("scheme").first())
        .sort("name_key", "country", nulls_last=True)
    )
    in_use = pl.concat([players.everyone["federation_id"], id_matches["player_id"]])
    return fresh.with_columns(
        pl.Series("federation_id", next_ids(in_use, fresh.height), dtype=pl.String)
    )


def _with_federation_ids(
    by_name: pl.DataFrame, fresh: pl.DataFrame, unknown_named: pl.DataFrame, players: KnownPlayers
) -> pl.DataFrame:
    """``by_name`` with each row's ``federation_id``: the new player's, or the known one's."""
    return (
        by_name.join(
            fresh.select("name_key", "country", pl.col("federation_id").alias("_fresh_id")),
            on=["name_key", "country"],
            how="left",
            nulls_equal=True,
        )
        .join(
            players.live.select(
                pl.col("id").alias("player"), pl.col("federation_id").alias("_known_id")
            ),
            on="player",
            how="left",
        )
        .with_columns(
            pl.when(pl.col("_row").is_in(unknown_named["_row"].implode()))
            .then(pl.col("_fresh_id"))
            .otherwise(pl.col("_known_id"))
            .alias("federation_id")
        )
    )


def _new_players(id_matches: pl.DataFrame, fresh: pl.DataFrame) -> pl.DataFrame:
    """The players to create: those of an unknown player_id, then the fresh ones."""
    new_by_id = (
        id_matches.filter(pl.col("player").is_null() & pl.col("name").is_not_null())
        .group_by("player_id", maintain_order=True)
        .agg(
            pl.col("name").first(),
            pl.col("name_key").first(),
            pl.col("country").first(),
            pl.col("club").first(),
            pl.col("scheme").first(),
        )
        .rename({"player_id": "federation_id"})
    )
    columns = ["federation_id", "name", "name_key", "country", "club", "scheme"]
    return pl.concat([new_by_id.select(columns), fresh.select(columns)]).with_columns(
        pl.col("name").alias("spelling"),
        pl.col("name").map_batches(display_names, return_dtype=pl.String),
    )


def _nearest(new_players: pl.DataFrame, players: KnownPlayers) -> dict[str, tuple[Candidate, ...]]:
    """The known players closest to each new player, by its federation id."""
    if not new_players.height:
        return {}
    shown_close = close_players(
        new_players.select("name_key"), players.live, min_score=DISPLAY_SCORE, limit=3
    )
    by_key = candidates_by(shown_close, _shown(players), "name_key")
    return {
        fid: by_key.get(key, ())
        for fid, key in new_players.select("federation_id", "name_key").rows()
    }


def _words(name: pl.Expr) -> pl.Expr:
    return name.str.to_lowercase().str.split(" ").list.sort()


def _answers(answers: Mapping[str, str]) -> pl.DataFrame:
    keyed: dict[str, str] = {}
    for name, answer in answers.items():
        keyed[name_key(name)] = answer.strip()
    return pl.DataFrame(
        {"name_key": list(keyed), "_answer": list(keyed.values())},
        schema={"name_key": pl.String, "_answer": pl.String},
    )
