"""How good is the list: the reads behind ``ratings evaluate``, the site's "About the rating" page
and the per-game expectation shown beside MELO's on an event (``ratings tournaments show``, the
event and player pages). Nothing here writes: the k sweep re-rates the history in memory."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import polars as pl
from sqlalchemy.engine import Connection

from ratings.evaluation import RATED_TIERS, Evaluation, History, evaluate, game_expectation
from ratings.formula import RATING_SCALE, MeloParams
from ratings.storage import audit, players, tournaments, window

SCORES_X2 = {"+": 2, "=": 1, "-": 0}
"""A game's points for the player, doubled, by its stored outcome."""


def rated_history(connection: Connection) -> History:
    """The whole rated history as the kernel takes it, with the audit rows stored for it and the
    games of the events that came as crosstables."""
    events = audit.rated_tournaments(connection)
    # Nothing is written here: the whole-table reads may go through a second connection.
    with window.window_reader(connection, 0, fresh=True) as reader:
        stored = audit.rated_changes(connection, reader)
        # Each result's counts, and whether a grandmaster played, as the rating job decides it
        # (the title on the result, or the registry's title held on the end date).
        flags = window.window_results(connection, 0, events, reader)
    changes = stored.join(flags, on=["tournament_id", "player"], how="left", maintain_order="left")
    played = flags.filter(
        pl.col("grandmaster") & ((pl.col("wins") + pl.col("draws") + pl.col("losses")) > 0)
    )
    with_gm = set(played["tournament_id"].to_list())
    code = {tier: n for n, tier in enumerate(RATED_TIERS)}
    tier = np.array(
        [
            code["grandmaster"] if t == "regular" and i in with_gm else code[t]
            for i, t in zip(events["id"].to_list(), events["tier"].to_list(), strict=True)
        ],
        dtype=np.int64,
    )
    where = {int(s): n for n, s in enumerate(events["seq"].to_list())}
    position = np.array([where[s] for s in changes["seq"].unique(maintain_order=True)], np.int64)
    sizes = changes.group_by("seq", maintain_order=True).len()["len"].to_numpy()
    counts = np.zeros(events.height, dtype=np.int64)
    counts[position] = sizes
    offsets = np.zeros(events.height + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    ids, dense = np.unique(changes["player"].to_numpy(), return_inverse=True)
    indexed = changes.select("tournament_id", "player").with_row_index("result")
    games = audit.played_games(connection)
    joined = (
        games.join(indexed, on=["tournament_id", "player"])
        .join(
            indexed.rename({"player": "opponent", "result": "opponent_result"}),
            on=["tournament_id", "opponent"],
        )
        .with_columns(pl.col("outcome").replace_strict(SCORES_X2, return_dtype=pl.Int64))
    )

    def column(frame: pl.DataFrame, name: str) -> np.ndarray:
        return frame[name].cast(pl.Int64).to_numpy()

    return History(
        end_dates=events["end_date"].to_list(),
        tier=tier,
        k=column(events, "k"),
        offsets=offsets,
        player=dense.astype(np.int64),
        player_ids=ids.astype(np.int64),
        wins=column(changes, "wins"),
        draws=column(changes, "draws"),
        losses=column(changes, "losses"),
        buchholz=column(changes, "buchholz"),
        before=column(changes, "rating_before"),
        after=column(changes, "rating_after"),
        expected=column(changes, "expected"),
        game_result=column(joined, "result"),
        game_opponent=column(joined, "opponent_result"),
        game_score_x2=column(joined, "outcome"),
    )


@dataclass(frozen=True, slots=True)
class EvaluationReport:
    evaluation: Evaluation
    stale: bool
    """Whether ratings are waiting for a run (pending tournaments or a re-rating): the figures
    are of the history as it was last rated."""

    @property
    def figures(self) -> dict[str, object]:
        return self.evaluation.figures


def evaluation(
    connection: Connection,
    params: MeloParams,
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    pair_games: int | None = None,
    grid: dict[str, list[int]] | None = None,
) -> EvaluationReport:
    """``ratings evaluate``: every figure of the rated history, the pairs named by federation id
    and name."""
    history = rated_history(connection)
    options = {} if pair_games is None else {"pair_games": pair_games}
    found = evaluate(history, params, date_from=date_from, date_to=date_to, grid=grid, **options)
    pairs = found.figures["claims"]["thousand_games"]["pairs"]
    if pairs:
        ids = sorted({p["player"] for p in pairs} | {p["opponent"] for p in pairs})
        named = {pid: players.player_by_id(connection, pid) for pid in ids}
        for pair in pairs:
            for role in ("player", "opponent"):
                row = named[pair[role]]
                pair[role] = row.federation_id
                pair[f"{role}_name"] = row.name
    stale = (
        tournaments.pending_count(connection) > 0 or window.pending_rerate(connection) is not None
    )
    found.figures["stale"] = stale
    return EvaluationReport(found, stale)


EXPECTATION_COLUMNS = (
    "federation_id", "name", "wins", "draws", "losses", "score", "rating_before", "expected",
    "expected_by_games", "rating_after", "change", "change_by_games",
)  # fmt: skip
"""The columns of an event's expectations, MELO's beside the per-game ones."""


def event_expectations(results: pl.DataFrame, games: pl.DataFrame, k: int | None) -> pl.DataFrame:
    """An event's results (:func:`ratings.storage.tournaments.event_results`, exact) with the
    per-game expectation beside MELO's: ``expected_by_games`` (the sum over the player's games of
    ``1 / (1 + 10 ** ((R_opp - R) / 400))``, ratings before the event) and ``change_by_games``
    (``k (P - expected_by_games)``), in points; null for an event without games (a results
    table) or not rated yet. Ratings, E and the change stay exact (1e-10 points)."""
    score = (2 * pl.col("wins") + pl.col("draws")) / 2
    base = results.with_columns(score.alias("score"))
    rated = k is not None and results.height > 0 and results["rating_before"].null_count() == 0
    # A crosstable's rounds are known even when none was played over the board (then every
    # per-game expectation is 0); a results table has none.
    if not rated or games.height == 0:
        nothing = pl.lit(None, dtype=pl.Float64)
        return base.with_columns(
            nothing.alias("expected_by_games"),
            (pl.col("rating_after") - pl.col("rating_before")).alias("change"),
            nothing.alias("change_by_games"),
        ).select(EXPECTATION_COLUMNS)
    played = games.filter(pl.col("kind") == audit.PLAYED)
    before = results.select("federation_id", "rating_before")
    pairs = (
        played.select("federation_id", "opponent_federation_id")
        .join(before, on="federation_id")
        .join(
            before.rename(
                {"federation_id": "opponent_federation_id", "rating_before": "opponent_before"}
            ),
            on="opponent_federation_id",
        )
    )
    e = game_expectation(pairs["rating_before"].to_numpy(), pairs["opponent_before"].to_numpy())
    sums = (
        pairs.select("federation_id").with_columns(pl.Series("e", e))
        .group_by("federation_id").agg(pl.col("e").sum().alias("expected_by_games"))
    )  # fmt: skip
    return (
        base.join(sums, on="federation_id", how="left", maintain_order="left")
        .with_columns(
            pl.when((pl.col("wins") + pl.col("draws") + pl.col("losses")) > 0)
            .then(pl.col("expected_by_games").fill_null(0.0))
            .otherwise(0.0),
        )
        .with_columns(
            (pl.col("rating_after") - pl.col("rating_before")).alias("change"),
            (float(k or 0) * (pl.col("score") - pl.col("expected_by_games"))).alias(
                "change_by_games"
            ),
        )
        .select(EXPECTATION_COLUMNS)
    )


def tournament_expectations(
    connection: Connection, key: str
) -> tuple[tournaments.EventRow, pl.DataFrame]:
    """One stored event's expectations (:func:`event_expectations`), or the error for its key."""
    from jobs.inventory import unknown_event

    event = tournaments.event_by_key(connection, key)
    if event is None:
        raise unknown_event(connection, key)
    frame = event_expectations(
        tournaments.event_results(connection, event),
        tournaments.event_games(connection, event),
        event.k if event.seq is not None else None,
    )
    return event, frame


def in_points(frame: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    """Exact columns (1e-10 points) as points."""
    return frame.with_columns((pl.col(c) / RATING_SCALE).alias(c) for c in columns)
