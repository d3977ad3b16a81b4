"""Every product module stays small enough to read in one sitting: at most 700 lines, and at most
500 in the storage, whose modules each hold one part of the domain's queries."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ratings", "importers", "exporters", "jobs", "service")
LIMIT = 700
STORAGE_LIMIT = 500
MIGRATIONS = ROOT / "ratings" / "storage" / "migrations"


def _limit(path: Path) -> int:
    storage = ROOT / "ratings" / "storage"
    return STORAGE_LIMIT if storage in path.parents else LIMIT


def _modules() -> list[Path]:
    found = [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if MIGRATIONS not in path.parents
    ]
    assert len(found) > 50, "the product's modules were not found"
    return found


def test_no_module_is_over_its_limit() -> None:
    over = []
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > _limit(path):
            over.append(f"{path.relative_to(ROOT)}: {lines} lines (at most {_limit(path)})")
    assert not over, "modules to cut along their parts:\n" + "\n".join(over)


@pytest.mark.parametrize(
    ("relative", "limit"),
    [("ratings/storage/players.py", STORAGE_LIMIT), ("jobs/queries.py", LIMIT)],
)
def test_the_limit_depends_on_the_package(relative: str, limit: int) -> None:
    assert _limit(ROOT / relative) == limit
