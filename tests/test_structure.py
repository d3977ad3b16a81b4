"""The product's modules import one another without a cycle: each module can be read, tested and
moved with what it imports below it. Imports made only for type checking do not count (they run
under ``if TYPE_CHECKING:`` and never at run time)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import grimp

PRODUCT = ("ratings", "importers", "exporters", "jobs", "service")
"""The product's packages (``config/`` holds settings files, no Python)."""


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative),
    each sorted, in order of their first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def _shown(graph: grimp.ImportGraph, group: list[str]) -> str:
    """One cycle through the group's first module, as the chain of imports that closes it."""
    first = group[0]
    for nxt in sorted(graph.find_modules_directly_imported_by(first)):
        if nxt in group:
            back = graph.find_shortest_chain(importer=nxt, imported=first)
            if back is not None:
                return " -> ".join((first, *back))
    return ", ".join(group)


def test_no_import_cycle_between_product_modules() -> None:
    graph = grimp.build_graph(*PRODUCT, exclude_type_checking_imports=True)
    cycles = _cycles(graph)
    assert not cycles, "import cycles between product modules (break each by moving what both " + (
        "sides share into a third module):\n"
        + "\n".join(f"  {_shown(graph, group)}" for group in cycles)
    )


def test_a_cycle_is_found_and_named() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")):
        graph.add_import(importer=importer, imported=imported)
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]
    assert _shown(graph, ["p.a", "p.b", "p.c"]) == "p.a -> p.b -> p.c -> p.a"


def test_the_packages_shipped_compiled_and_checked_are_the_same() -> None:
    """pyproject.toml ships the product's packages, ``make setup`` compiles their bytecode and
    this module checks their imports: a package added to one list and not the others would be
    left out of the wheel, or compiled again by every command that loads it."""
    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^PACKAGES := (.+)$", makefile, re.MULTILINE)
    assert found is not None, "the Makefile names no PACKAGES"
    assert sorted(shipped) == sorted(found.group(1).split()) == sorted(PRODUCT)
