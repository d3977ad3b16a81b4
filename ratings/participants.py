"""The participant list of an upcoming event, as the seeding reads it (SPEC 7), and the players of
a rating list that a participant given by name only may be.

:func:`importers.participants.read_participants` builds it from a file; the seed lists of
:mod:`exporters.seeding` are made from it. A name the list holds once is that player; a name
that is only part of the names the list holds (``Klein`` among several Kleins), or close to
them as :func:`~ratings.names.similarity` scores names, is not guessed: :func:`name_candidates`
finds the players it may be, and the director gives the id (or says ``new``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from ratings.countries import country_code
from ratings.errors import Problem
from ratings.names import LOST_LETTER, fits_initials, fits_lost_letters, similarity, word_patterns

NEWCOMER = "new"
"""What a participant file's ``player_id`` (or a director's answer) says for a newcomer whose
name resembles players of the rating list."""


@dataclass(frozen=True, slots=True)
class Participants:
    """A checked participant list."""

    source: str
    rows: pl.DataFrame
    """line, player_id, name, name_key, country, title, rank (``3k``/``2d``), rating (exact
    1e-10 points, null when the file gives none), bye (bool), mms_correction (int), newcomer
    (bool: the file says ``new`` for the player_id), in file order."""
    warnings: tuple[Problem, ...] = ()
    """What the reader changed or guessed (a file read as Windows-1252, control characters
    removed from a name, a country stored as unknown)."""

    def answered(self, answers: Mapping[int, str]) -> Participants:
        """The list with the director's answers (line → a player_id, or ``new``) in place of
        what the file says of those lines' players; a line not in the file is ignored."""
        if not answers:
            return self
        lines = pl.DataFrame(
            {"line": list(answers), "_answer": [a.strip() for a in answers.values()]},
            schema={"line": pl.Int64, "_answer": pl.String},
        )
        new = pl.col("_answer").str.to_lowercase() == NEWCOMER
        rows = (
            self.rows.join(lines, on="line", how="left", maintain_order="left")
            .with_columns(
                pl.when(pl.col("_answer").is_null())
                .then(pl.col("player_id"))
                .when(new)
                .then(None)
                .otherwise(pl.col("_answer"))
                .alias("player_id"),
                (pl.col("newcomer") | new.fill_null(False)).alias("newcomer"),
            )
            .drop("_answer")
        )
        return replace(self, rows=rows)


def name_candidates(
    queries: list[tuple[str, str | None]], known: pl.DataFrame, *, min_score: float
) -> list[list[dict[str, Any]]]:
    """For each participant (a :func:`~ratings.names.name_key` and a country or None), the rows
    of ``known`` (player_id, name, name_key, country, rating) it may be, best first: those whose
    name holds every word of it (``klein`` in ``klaus klein``; an initial stands for a word,
    ``k klein``), those :func:`~ratings.names.similarity` scores at least ``min_score``, and
    those it fits but for lost letters or initials. Only names sharing a word with it are
    compared (for a word with a lost letter, matching it), so a list of a million players is
    never scored whole. With a country, players of another country are left out (a player
    without one stays)."""
    if not queries:
        return []
    wanted = {w for key, _ in queries for w in key.split() if not LOST_LETTER.search(w)}
    initials = sorted(w for w in wanted if len(w) == 1)
    patterns = sorted(
        {p for key, _ in queries if LOST_LETTER.search(key) for p in word_patterns(key)}
    )
    # Each word of the list's names with its row, kept where it is a word of a query: the names
    # sharing a word with a participant are the only ones compared with it.
    shares = pl.col("_word").is_in(sorted(wanted))
    if initials:
        shares = shares | pl.col("_word").str.slice(0, 1).is_in(initials)
    for pattern in patterns:
        shares = shares | pl.col("_word").str.contains(pattern)
    indexed = known.with_row_index("_row")
    spread = (
        indexed.select("_row", pl.col("name_key").str.split(" ").alias("_word"))
        .explode("_word")
        .filter(shares)
    )
    close = indexed.join(spread, on="_row").unique(["_row", "_word"])
    by_word: dict[str, list[dict[str, Any]]] = {}
    for row in close.iter_rows(named=True):
        by_word.setdefault(row["_word"], []).append(row)
    found: list[list[dict[str, Any]]] = []
    for key, country in queries:
        words = key.split()
        seen: dict[int, dict[str, Any]] = {}
        if all(len(w) == 1 for w in words):
            # Initials alone ("A", "J K") stand for too many names to ask about.
            found.append([])
            continue
        for word, rows in by_word.items():
            if (
                word in words
                or (word[:1] in initials and word[:1] in words)
                or any(re.search(p, word) for p in word_patterns(key) if LOST_LETTER.search(key))
            ):
                for row in rows:
                    seen.setdefault(row["_row"], row)
        scored = []
        for row in seen.values():
            other = row["name_key"]
            code = country_code(row["country"])
            if country is not None and code is not None and code != country:
                continue
            score = similarity(key, other)
            if (
                score >= min_score
                or _words_within(words, other.split())
                or fits_initials(key, other)
                or fits_lost_letters(key, other)
            ):
                scored.append((score, row))
        scored.sort(key=lambda pair: (-pair[0], pair[1]["name_key"], str(pair[1]["player_id"])))
        found.append([{k: v for k, v in row.items() if not k.startswith("_")} for _, row in scored])
    return found


def _words_within(words: list[str], other: list[str]) -> bool:
    """True when each word is a word of ``other`` (an initial: a word of it starting so), every
    word of ``other`` used once: ``klein`` is within ``klaus klein``, ``k klein`` too."""
    left = list(other)
    for word in sorted(words, key=len, reverse=True):
        fit = next((w for w in left if w == word or (len(word) == 1 and w.startswith(word))), None)
        if fit is None:
            return False
        left.remove(fit)
    return True
