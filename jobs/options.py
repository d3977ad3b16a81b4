"""What the jobs are told by the federation's configuration, as frozen values.

The jobs never read settings: the delivery layer (``service.settings``) builds these once from
them and hands them over, as it hands the formula a :class:`~ratings.parameters.MeloParams`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ratings.parameters import MeloParams


@dataclass(frozen=True, slots=True)
class ListOptions:
    """The federation's rules for its lists, published or live, and for seeding from them."""

    active_months: int = 24
    """A player is active with a game within this many months."""
    rounding: str = "half_up"
    """How a list turns an exact rating into the whole number it shows: half_up or truncate."""
    initial_rating: int = MeloParams().initial_rating
    """A new player's rating in 1e-10 points: what a list's drift is measured from, and the
    rating a newcomer without one is seeded with."""


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """How the import matches names (from the settings and the command line)."""

    review_score: float = 85.0
    """A new name this close (0-100) to a known player's is asked about, not created."""
    answers: Mapping[str, str] = field(default_factory=dict)
    """The officer's answers: a name as written in a file → a player id or ``new``."""


@dataclass(frozen=True, slots=True)
class MonthlyOptions:
    """Everything the monthly job needs besides the database, the date and the clock."""

    inbox_dir: Path
    """Where tournament directors' files wait; ``archive/`` and ``rejected/`` live inside it."""
    publish_dir: Path
    """Where the exports of each published list are written, one folder per period."""
    imported_by: str
    """Recorded with every file the job imports."""
    rating: MeloParams = field(default_factory=MeloParams)
    lists: ListOptions = field(default_factory=ListOptions)
    matching: MatchOptions = field(default_factory=MatchOptions)
    input_limit: int = 256 * 1024 * 1024
    """Largest inbox file read, in bytes (a larger one is rejected)."""


@dataclass(frozen=True, slots=True)
class BackupOptions:
    """Where backups go and how many of them are kept."""

    folder: Path = Path("backups")
    """Where ``ratings db backup`` and the service's scheduled backups write their archives."""
    keep: int = 12
    """How many of the scheduled backups in ``folder`` are kept; older ones are deleted."""
