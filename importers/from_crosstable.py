"""A crosstable as the rating sees it: each player's wins, draws, losses and Buchholz, plus the games.

The Buchholz for MELO is the Swiss-points SOS with the event's missed-round policy (SPEC 5);
forfeits and byes are not games. Event details the file does not give (dates, tier, name) come
from the caller's options; a missing end date is an error naming the file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

import polars as pl

from importers.limits import checked_results
from importers.names import name_key
from importers.result_columns import ResultsFile
from ratings.countries import country_code
from ratings.crosstable import Crosstable, CrosstablePlayer
from ratings.errors import InputError, Problem
from ratings.parameters import BUCHHOLZ_SCALE
from ratings.tiebreaks import MissedRounds, Policy, melo_buchholz
from ratings.tiebreaks.record import standings_record
from ratings.tiers import TIERS, Tier

ID_SCHEMES = {"trf": "fide", "opengotha": "egd", "h9": "egd"}
"""The body whose ids a crosstable format carries: a TRF's ids are FIDE ids and an OpenGotha or
h9 file's are EGD PINs, not the federation's own player ids; the crosstable CSV's ``player_id``
is the federation's own."""


def _external_id(crosstable: Crosstable, player: CrosstablePlayer) -> str | None:
    if crosstable.format == "h9":
        return player.egd_pin
    return player.player_id if crosstable.format in ID_SCHEMES else None


@dataclass(frozen=True, slots=True)
class EventOptions:
    """What the officer says about an event on the command line (``ratings import``)."""

    name: str | None = None
    key: str | None = None
    start_date: date | None = None
    end_date: date | None = None
    tier: str = Tier.REGULAR
    """One of :class:`~ratings.tiers.Tier`'s names, as the officer typed it; checked on import."""
    missed_rounds: MissedRounds | None = None
    """None: the file's own convention (OpenGotha's for Go files), else Swiss-points SOS."""
    rounds: int | None = None
    """Read only rounds 1 to ``rounds`` of the crosstable (``--rounds``): how an event saved
    before its last round finished can still be rated, up to a round the officer names."""


def through_rounds(crosstable: Crosstable, rounds: int | None) -> Crosstable:
    """The crosstable cut after ``rounds`` rounds (None: as read); a number beyond the rounds
    the file has complete is an error naming the file."""
    if rounds is None:
        return crosstable
    if not 1 <= rounds <= crosstable.rounds:
        raise InputError(
            [
                Problem(
                    crosstable.source,
                    None,
                    "rounds",
                    str(rounds),
                    f"a round from 1 to {crosstable.rounds}, the rounds the file has complete",
                )
            ]
        )
    return crosstable.through(rounds)


def event_policy(crosstable: Crosstable, options: EventOptions) -> Policy:
    if options.missed_rounds is not None:
        return Policy(missed_rounds=options.missed_rounds)
    generator = crosstable.parameters.get("GENERATOR", "").lower()
    if crosstable.format == "opengotha" or (
        # Pairgoth's defaults are OpenGotha's rules: own initial MMS for a missed round in SOS
        # (sosValueAbsentUseBase), handicap in SOS, scores rounded down.
        crosstable.format == "h9" and generator.startswith(("opengotha", "pairgoth"))
    ):
        from importers.opengotha import policy_for

        return policy_for(crosstable)
    if crosstable.format == "trf":
        from importers.trf import policy_for as trf_policy

        return trf_policy(crosstable)
    return Policy()


def buchholz_units(value: Fraction) -> int:
    """A Buchholz value in 1e-4 points (exact for halves and quarters; else rounded half to even)."""
    return round(value * BUCHHOLZ_SCALE)


NO_END_DATE = "the file gives no end date: give --end-date"


def undated_problems(
    data: bytes, source: str, options: EventOptions, format: str | None = None
) -> list[Problem]:
    """For a crosstable file its reader refused: the one problem of an import without a date
    (the file gives none and ``--end-date`` is not given), so that the officer learns it with the
    reader's problems instead of after fixing them (``format`` as the caller forced it). Only TRF says its dates apart from its
    crosstable; any other format adds nothing here."""
    if options.end_date is not None:
        return []
    from importers.formats import crosstable_format

    if (format or crosstable_format(source, data)) != "trf":
        return []
    from importers.trf import event_dates

    dates = event_dates(data, source)
    if dates is None or dates[1] is not None:
        return []
    return [Problem(source, None, "end_date", None, NO_END_DATE)]


def results_from_crosstable(
    crosstable: Crosstable, data: bytes, options: EventOptions
) -> tuple[ResultsFile, pl.DataFrame]:
    """The long-format rows of the event and its games (frame: key, round, player, opponent,
    kind, outcome, color, handicap; players as positions in the crosstable)."""
    crosstable = through_rounds(crosstable, options.rounds)
    source = crosstable.source
    problems = []
    if crosstable.unfinished:
        problems.append(
            Problem(
                source,
                None,
                "rounds",
                None,
                f"a finished event: games after round {crosstable.rounds} have no result, and an "
                f"unfinished event cannot be rated (give --rounds {crosstable.rounds} or fewer to "
                "rate the rounds played)",
            )
        )
    end = options.end_date or crosstable.end_date
    start = options.start_date or crosstable.start_date or end
    if end is None:
        problems.append(Problem(source, None, "end_date", None, NO_END_DATE))
    if options.tier not in TIERS:
        problems.append(
            Problem(source, None, "tier", options.tier, f"expected one of {', '.join(TIERS)}")
        )
    reversed_in_file = (
        crosstable.start_date is not None
        and crosstable.end_date is not None
        and crosstable.end_date < crosstable.start_date
    )
    if reversed_in_file and options.end_date is None and options.start_date is None:
        problems.append(
            Problem(
                source,
                None,
                "end_date",
                str(crosstable.end_date),
                f"an end date on or after the start date ({crosstable.start_date}): the file's "
                "dates are the wrong way round; give --end-date",
            )
        )
    elif start is not None and end is not None and start > end:
        problems.append(
            Problem(
                source,
                None,
                "start_date",
                str(start),
                f"the tournament cannot start after its end date ({end})",
            )
        )
    if not crosstable.players:
        problems.append(Problem(source, None, None, None, "the crosstable lists no players"))
    if problems:
        raise InputError(problems)
    assert end is not None
    assert start is not None
    name = options.name or crosstable.name or source.rsplit(".", 1)[0]
    key = options.key or f"{name} {end.isoformat()}"
    policy = event_policy(crosstable, options)
    buchholz = melo_buchholz(crosstable, policy)
    players = crosstable.players
    results = pl.DataFrame(
        {
            "key": [key] * len(players),
            "line": [p.line for p in players],
            "player_id": [
                None if crosstable.format in ID_SCHEMES else p.player_id for p in players
            ],
            "name": [p.name for p in players],
            "name_key": [name_key(p.name) for p in players],
            "country": [country_code(p.country) for p in players],
            "club": [p.club for p in players],
            "title": [p.title.upper() if p.title else None for p in players],
            "wins": [p.wins for p in players],
            "draws": [p.draws for p in players],
            "losses": [p.losses for p in players],
            "buchholz": [buchholz_units(b) for b in buchholz],
            "position": list(range(len(players))),
            "id_scheme": [
                ID_SCHEMES[crosstable.format] if _external_id(crosstable, p) else None
                for p in players
            ],
            "id_value": [_external_id(crosstable, p) for p in players],
        },
        schema_overrides={
            "line": pl.Int64,
            "player_id": pl.String,
            "country": pl.String,
            "club": pl.String,
            "title": pl.String,
            "id_scheme": pl.String,
            "id_value": pl.String,
        },
    )
    tournaments = pl.DataFrame(
        {
            "key": [key],
            "name": [name],
            "start_date": [start],
            "end_date": [end],
            "tier": [Tier(options.tier).value],
            "line": [players[0].line if players[0].line is not None else 1],
            "standings": [standings_record(crosstable, policy).to_text()],
        },
        schema_overrides={"line": pl.Int64},
    )
    games = pl.DataFrame(
        [
            (key, cell.round, i, cell.opponent, cell.kind.value, cell.outcome.value,
             cell.color.value if cell.color else None, cell.handicap)
            for i, player in enumerate(players)
            for cell in player.cells
        ],
        schema={
            "key": pl.String, "round": pl.Int64, "player": pl.Int64, "opponent": pl.Int64,
            "kind": pl.String, "outcome": pl.String, "color": pl.String, "handicap": pl.Int64,
        },
        orient="row",
    )  # fmt: skip
    checked = checked_results(
        ResultsFile(
            source, hashlib.sha256(data).hexdigest(), crosstable.format, tournaments, results
        )
    )
    return checked, games
