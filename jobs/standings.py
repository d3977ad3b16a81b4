"""A stored event's standings, computed as ``ratings standings`` computes them from its file.

An event imported as a crosstable keeps its rounds (``games``) and what else its standings need
(``tournaments.standings``, a :class:`~ratings.tiebreaks.record.StandingsRecord`). From them the
crosstable is built again and handed to the one builder of standings rows
(:func:`exporters.standings.standings_rows`), so that the site's standings, its ``.csv`` and
``.json`` files and ``ratings standings --event`` are those of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
from sqlalchemy.engine import Connection

from exporters.standings import standings_rows
from importers.from_crosstable import EventOptions, event_policy
from ratings.crosstable import (
    Cell,
    CellKind,
    Color,
    Crosstable,
    CrosstablePlayer,
    Outcome,
    System,
)
from ratings.errors import InputError, NoStandingsError, UnknownEventError
from ratings.storage import tournaments
from ratings.tiebreaks.record import RecordedPlayer, StandingsRecord


@dataclass(frozen=True, slots=True)
class EventStandings:
    crosstable: Crosstable | None
    """The event's crosstable as stored, players in the file's order (None: a results table)."""
    rows: pl.DataFrame | None
    """The standings rows (:data:`exporters.standings.COLUMNS`) and ``federation_id``, the
    player's federation id, in standing order; None without a crosstable or when they cannot be
    computed."""
    problem: str | None = None
    """Why a crosstable's standings cannot be computed (a McMahon event whose file gave no
    initial scores), as ``ratings standings`` says it."""


def event_standings(connection: Connection, event: tournaments.EventRow) -> EventStandings:
    games = tournaments.event_games(connection, event)
    if games.height == 0:
        return EventStandings(None, None)
    source_format, text = tournaments.event_standings(connection, event)
    lines = tournaments.event_lines(connection, event)
    record = StandingsRecord.from_text(text) if text is not None else None
    crosstable = _crosstable(event, source_format, games, lines, record)
    # An event imported before its record was kept: the policy its format and dates give, as
    # for a file read without options.
    policy = (
        record.policy
        if record is not None and crosstable.system is record.system
        else event_policy(crosstable, EventOptions())
    )
    try:
        rows = standings_rows(crosstable, policy, index=True)
    except InputError as error:
        first, *more = error.problems
        # One player's problem stands for the others: the page and the 404 stay one line.
        told = f"{first} (and {len(more)} more like it)" if more else str(first)
        return EventStandings(crosstable, None, told)
    ids = pl.Series("federation_id", [p.player_id for p in crosstable.players], dtype=pl.String)
    rows = rows.with_columns(ids.gather(rows["index"])).drop("index")
    return EventStandings(crosstable, rows)


def standings_file(connection: Connection, key: str) -> pl.DataFrame:
    """The standings of a stored event with the columns of ``ratings standings``."""
    event = tournaments.event_by_key(connection, key)
    if event is None:
        raise UnknownEventError(f"no event has the key {key}")
    found = event_standings(connection, event)
    if found.crosstable is None:
        raise NoStandingsError(key)
    if found.rows is None:
        raise UnknownEventError(f"the standings of the event {key} cannot be computed: "
                                f"{found.problem}")  # fmt: skip
    return found.rows.drop("federation_id")


def _crosstable(
    event: tournaments.EventRow,
    source_format: str,
    games: pl.DataFrame,
    lines: dict[str, tuple[int | None, str]],
    record: StandingsRecord | None,
) -> Crosstable:
    order = list(lines)
    recorded: dict[str, RecordedPlayer] = {}
    if record is not None:
        # The record's players are paired with the stored results by their line in the file.
        by_line = {p.line: p for p in record.players}
        if len(by_line) == len(record.players) == len(lines) and set(by_line) == {
            line for line, _ in lines.values()
        }:
            recorded = {pid: by_line[line] for pid, (line, _) in lines.items()}
            position = {p.line: n for n, p in enumerate(record.players)}
            order.sort(key=lambda pid: position[lines[pid][0]])
    index = {pid: n for n, pid in enumerate(order)}
    cells: dict[str, list[Cell]] = {pid: [] for pid in order}
    for game in games.sort("round").iter_rows(named=True):
        opponent = game["opponent_federation_id"]
        cells[game["federation_id"]].append(
            Cell(
                round=game["round"],
                kind=CellKind(game["kind"]),
                outcome=Outcome(game["outcome"]),
                opponent=None if opponent is None else index[opponent],
                color=Color(game["color"]) if game["color"] else None,
                handicap=game["handicap"],
            )
        )
    players = tuple(
        CrosstablePlayer(
            number=n + 1,
            name=recorded[pid].name if pid in recorded else lines[pid][1],
            cells=tuple(cells[pid]),
            line=lines[pid][0],
            player_id=pid,
            initial_mms=recorded[pid].initial if pid in recorded else None,
        )
        for n, pid in enumerate(order)
    )
    return Crosstable(
        source=event.key,
        format=source_format,
        players=players,
        rounds=int(games["round"].max() or 0),  # type: ignore[arg-type]
        system=record.system if record is not None and recorded else System.SWISS,
        name=event.name,
        start_date=event.start_date,
        end_date=event.end_date,
    )
