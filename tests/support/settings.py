"""Settings files for tests that want only their own environment to count."""

from __future__ import annotations

from pathlib import Path


def empty_settings_file(folder: Path) -> str:
    """An empty settings file in ``folder``, for ``RATINGS_CONFIG``: one that does not exist
    would be an error."""
    path = folder / "empty-settings.toml"
    path.touch()
    return str(path)
