"""The benchmarks time the commands with their bytecode compiled, as ``make setup`` leaves it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from benchmarks.bytecode import compile_project, packages


def _checkout(root: Path, modules: dict[str, str]) -> Path:
    (root / "pyproject.toml").write_text(
        '[tool.hatch.build.targets.wheel]\npackages = ["ratings"]\n', encoding="utf-8"
    )
    for name, text in modules.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_every_shipped_package_and_the_benchmarks_are_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    root = _checkout(
        tmp_path, {"ratings/__init__.py": "", "ratings/a.py": "A = 1\n", "benchmarks/b.py": ""}
    )
    assert packages(root) == ["ratings", "benchmarks"]
    said = compile_project(root)
    for module in ("ratings/a.py", "ratings/__init__.py", "benchmarks/b.py"):
        assert Path(importlib.util.cache_from_source(str(root / module))).is_file(), module
    assert "PYTHONDONTWRITEBYTECODE is set" in said


def test_a_module_that_does_not_compile_stops_the_benchmark(tmp_path: Path) -> None:
    root = _checkout(tmp_path, {"ratings/__init__.py": "", "ratings/broken.py": "def (:\n"})
    with pytest.raises(SystemExit, match="ratings: a module does not compile"):
        compile_project(root)
