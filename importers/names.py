"""Name folding lives in the domain (:mod:`ratings.names`); importers use it from there."""

from __future__ import annotations

from ratings.names import is_suspect, name_key, name_key_expr

__all__ = ["is_suspect", "name_key", "name_key_expr"]
