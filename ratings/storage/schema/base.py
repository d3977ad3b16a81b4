"""The schema's metadata and the names it gives constraints and indexes.

Exact values (ratings, E, averages) are integers counting 1e-10 points and Buchholz values integers
counting 1e-4 points, so every backend stores and returns the same digits.
"""

from __future__ import annotations

from sqlalchemy import MetaData

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)
