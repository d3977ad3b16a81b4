"""How the service words a count in what it prints: ``1 file``, ``2 files``, ``0 files``."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and the form of the words for it: ``singular`` for one, else ``plural`` (by
    default ``singular`` with an ``s``; give it for ``entry``/``entries`` or for words after the
    noun, ``player differs``/``players differ``)."""
    if count == 1:
        return f"{count} {singular}"
    return f"{count} {plural if plural is not None else singular + 's'}"
