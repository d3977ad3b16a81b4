"""The database schema (SQLAlchemy Core). Alembic migrations in ``migrations/`` create it.

Exact values (ratings, E, averages) are integers counting 1e-10 points and Buchholz values integers
counting 1e-4 points, so every backend stores and returns the same digits.

One module per part of the domain, all on one :data:`metadata` (``base``): ``core`` (players,
tournaments, results, rating changes and state, merges, deletions, job runs), ``published`` (the
published lists and their entries), ``played`` (the games of crosstables) and ``site`` (accounts,
submissions, keys). They are imported here in that order, the order of the metadata's tables.
"""

from ratings.storage.schema.base import (
    metadata,
)

# isort: split
from ratings.storage.schema.core import (
    job_runs,
    player_aliases,
    player_identifiers,
    player_merge_results,
    player_merges,
    player_totals,
    players,
    rating_changes,
    rating_state,
    results,
    tournament_deletions,
    tournaments,
)

# isort: split
from ratings.storage.schema.published import (
    LIST_ORDERS,
    LIST_PARTITIONS,
    TITLED,
    WORD,
    compared_on,
    declared_on,
    list_entries,
    list_names,
    name_words,
    published_lists,
)

# isort: split
from ratings.storage.schema.played import (
    games,
)

# isort: split
from ratings.storage.schema.site import (
    account_events,
    account_tokens,
    accounts,
    service_keys,
    submissions,
    web_sessions,
)

__all__ = [
    "LIST_ORDERS",
    "LIST_PARTITIONS",
    "TITLED",
    "WORD",
    "account_events",
    "account_tokens",
    "accounts",
    "compared_on",
    "declared_on",
    "games",
    "job_runs",
    "list_entries",
    "list_names",
    "metadata",
    "name_words",
    "player_aliases",
    "player_identifiers",
    "player_merge_results",
    "player_merges",
    "player_totals",
    "players",
    "published_lists",
    "rating_changes",
    "rating_state",
    "results",
    "service_keys",
    "submissions",
    "tournament_deletions",
    "tournaments",
    "web_sessions",
]
