"""Plane membership of nodeids and paths under one configuration."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from planegate import sourcesize
from planegate.config.load import Config
from planegate.config.pathmatch import PathPatterns
from planegate.pyimports import statements
from planegate.vocabulary import SCORING_PLANES, Plane

UNCLASSIFIED = "unclassified"
EVIDENCE_ORDER: tuple[Plane, ...] = ("fixture", "property")  # plane_of_path's order


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def spec(patterns: Iterable[str]) -> PathPatterns:
    return PathPatterns(patterns)


def _entries_above(nodeid: str) -> list[str]:
    """The entries above a nodeid that would list it: its id without parameters, each class
    or function above it (an entry covers the parametrized ids below it), and its file."""
    bracket = nodeid.find("[")
    base = nodeid if bracket < 0 else nodeid[:bracket]
    above = [base] if bracket >= 0 else []
    colon = base.find("::")  # after the file: the first entry above it is file::name
    if colon > 0:
        above.append(base[:colon])
    colon = base.find("::", colon + 2) if colon >= 0 else -1
    while colon >= 0:
        above.append(base[:colon])
        colon = base.find("::", colon + 2)
    return above


def _in_order(one: tuple[str, ...], two: tuple[str, ...]) -> tuple[str, ...]:
    if not two or one == two:
        return one
    if not one:
        return two
    return tuple(p for p in SCORING_PLANES if p in one or p in two)


@dataclass(frozen=True)
class PlaneMap:
    """Classifies nodeids under one configuration and one set of frozen nodeids."""

    config: Config
    frozen: frozenset[str] = frozenset()

    @cached_property
    def _specs(self) -> dict[str, PathPatterns]:
        planes = self.config.planes
        return {name: spec([*planes[name].paths, *planes[name].admit]) for name in SCORING_PLANES}

    @cached_property
    def _listing(self) -> dict[str, tuple[str, ...]]:
        """Each `nodeids` entry -> the scoring planes that list it, in SCORING_PLANES order."""
        index: dict[str, tuple[str, ...]] = {}
        for name in SCORING_PLANES:
            for entry in self.config.planes[name].nodeids:
                if name not in index.get(entry, ()):
                    index[entry] = (*index.get(entry, ()), name)
        return index

    @cached_property
    def _known(self) -> dict[str, tuple[str, ...]]:
        return {}  # nodeid -> its planes: every step asks again about the same nodeids

    def planes_of(self, nodeid: str) -> tuple[str, ...]:
        """Every plane that claims the nodeid: explicit nodeids first, then path patterns."""
        known = self._known.get(nodeid)
        if known is None:
            known = self._known[nodeid] = self._planes_of(nodeid)
        return known

    def _planes_of(self, nodeid: str) -> tuple[str, ...]:
        if nodeid in self.frozen:
            return ("freeze",)
        explicit = self._explicit_planes(nodeid)
        if explicit:
            return explicit
        path = file_of(nodeid)
        planes = self._by_path.get(path)
        if planes is None:
            planes = self._by_path[path] = tuple(
                p for p in SCORING_PLANES if self._specs[p].match_file(path)
            )
        return planes

    def _explicit_planes(self, nodeid: str) -> tuple[str, ...]:
        """The planes whose `nodeids` entries list the nodeid (cached: asked for every one)."""
        known = self._explicit.get(nodeid)
        if known is None:
            listing = self._listing
            known = listing.get(nodeid, ())
            for entry in _entries_above(nodeid):
                found = listing.get(entry)
                if found:
                    known = _in_order(known, found)
            self._explicit[nodeid] = known
        return known

    @cached_property
    def _by_path(self) -> dict[str, tuple[str, ...]]:
        return {}  # test file -> the planes its path patterns give (a file holds many tests)

    def listed(self, nodeid: str) -> bool:
        """The nodeid's plane comes from an explicit `nodeids` entry, not a path pattern."""
        return bool(self._explicit_planes(nodeid))

    @cached_property
    def _explicit(self) -> dict[str, tuple[str, ...]]:
        return {}  # nodeid -> the planes listing it

    def plane_of(self, nodeid: str) -> str:
        planes = self.planes_of(nodeid)
        return planes[0] if len(planes) == 1 else UNCLASSIFIED

    def inventory(self, nodeids: Iterable[str]) -> dict[str, list[str]]:
        result: dict[str, list[str]] = {
            "property": [],
            "fixture": [],
            "freeze": [],
            UNCLASSIFIED: [],
        }
        for nodeid in nodeids:
            result[self.plane_of(nodeid)].append(nodeid)
        return result

    @cached_property
    def _listed_files(self) -> dict[str, str]:
        """File of each listed nodeid -> the first plane (fixture, then property) listing it."""
        index: dict[str, str] = {}
        for name in EVIDENCE_ORDER:
            for nodeid in self.config.planes[name].nodeids:
                index.setdefault(file_of(nodeid), name)
        return index

    @cached_property
    def _evidence_specs(self) -> dict[str, PathPatterns]:
        planes = self.config.planes
        return {
            name: spec([*planes[name].paths, *planes[name].admit, *planes[name].data])
            for name in EVIDENCE_ORDER
        }

    def plane_of_path(self, path: str) -> str | None:
        """The plane a protected path is evidence of: the first (fixture, then property) that
        lists a nodeid of the file, else the first whose paths or data patterns match it."""
        listed = self._listed_files.get(path)
        if listed is not None:
            return listed
        return next((p for p in EVIDENCE_ORDER if self._evidence_specs[p].match_file(path)), None)

    def plane_of_file(self, path: str) -> str | None:
        return next((p for p in SCORING_PLANES if self._specs[p].match_file(path)), None)

    def is_plane_file(self, path: str) -> bool:
        return self.plane_of_file(path) is not None


@dataclass(frozen=True)
class NewFilesMap(PlaneMap):
    """The planes of the tests in files the patch adds: only what names them explicitly (the
    configuration's `nodeids`, here with the rows a person added and the files an `admit`
    folder took in), never a path pattern: a new test file is the patch's claim, and a
    folder pattern written for main's tests does not classify it (DESIGN §1)."""

    new_files: frozenset[str] = frozenset()

    def _planes_of(self, nodeid: str) -> tuple[str, ...]:
        if file_of(nodeid) in self.new_files:
            return self._explicit_planes(nodeid)
        return super()._planes_of(nodeid)


def data_files(config: Config, files: Iterable[str]) -> list[str]:
    """The fixture plane's data files among `files` (its manifest excepted)."""
    patterns = config.planes["fixture"].data
    if not patterns:
        return []
    data = spec(patterns)
    return [path for path in files if data.match_file(path) and path != config.manifest]


def test_kinds(source: str) -> list[tuple[str, int, bool]]:
    """(name, line, uses @given) for every test function in a module."""
    tree = sourcesize.parse(source)
    if tree is None:
        return []
    found = []
    for node in statements(tree):  # ast.walk's order, expressions skipped
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            found.append((node.name, node.lineno, any(_is_given(d) for d in node.decorator_list)))
    return found


_GIVEN = re.compile(r"\bgiven\b")
_IMPORT_LINE = re.compile(
    r"^[ \t\f]*(?:import|from)\b[^\n\\]*(?:\\(?:\r\n|.)[^\n\\]*)*", re.MULTILINE | re.DOTALL
)


def may_use_given(source: str) -> bool:
    """Whether a decorator of the module may be named `given` (what `test_kinds` looks for):
    False only when the text has no `given`, or is ASCII and has the word only on lines that
    begin an import statement (`from hypothesis import given`), where no decorator can be."""
    if "given" not in source:
        return False
    if not source.isascii():
        return True  # a name may be `given` once NFKC-normalised
    imports = [match.span() for match in _IMPORT_LINE.finditer(source)]
    return any(
        not any(start <= word.start() < end for start, end in imports)
        for word in _GIVEN.finditer(source)
    )


def _is_given(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "given"
