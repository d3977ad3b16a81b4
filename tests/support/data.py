"""Where the test suite finds its data: every file a test reads lives in ``tests/data/``.

``tests/data/golden/`` holds unchanged copies of real tournament files with the values the program
that wrote them printed; ``tests/data/SOURCES.md`` names the repository, path and commit of each.
Tests that need a path while they are collected (parametrised cases, module constants) use
:data:`GOLDEN`; the others take the ``golden`` fixture of ``tests/conftest.py``, which is the same
folder.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = DATA / "golden"
