"""The project's modules compiled to bytecode before a benchmark times its commands.

A command's start includes loading the service's modules. Installed from a wheel, or after
``make setup``, they are compiled once; on a machine where ``PYTHONDONTWRITEBYTECODE`` is set and
nothing compiled them, Python compiles every one of them again in each process, which a timing
would then count as the command's own (0.4-0.5 s on two cores). Every benchmark that runs the
commands as processes compiles them first, as ``make setup`` does, and says so.
"""

from __future__ import annotations

import compileall
import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def packages(root: Path = ROOT) -> list[str]:
    """The packages ``pyproject.toml`` ships, and the benchmarks' own (the plain script)."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    shipped: list[str] = project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    return [*shipped, "benchmarks"]


def compile_project(root: Path = ROOT) -> str:
    """Compile the packages under ``root`` (a checkout of this project) where their bytecode is
    missing or older than their source; a sentence for the benchmark's report."""
    for package in packages(root):
        if (root / package).is_dir() and not compileall.compile_dir(
            root / package, quiet=1, workers=0
        ):
            raise SystemExit(f"{root / package}: a module does not compile")
    kept = "set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "unset"
    return (
        f"bytecode of {root.name}/ compiled before timing, as `make setup` does "
        f"(PYTHONDONTWRITEBYTECODE is {kept} here)"
    )
