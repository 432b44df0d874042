"""Plane membership of nodeids and the inventory checks (exit 2)."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property

import pathspec

from planegate.config.load import SCORING_PLANES, Config
from planegate.findings import Finding, Severity, Step

UNCLASSIFIED = "unclassified"


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def spec(patterns: Iterable[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(list(patterns))


def _nodeid_listed(nodeid: str, listed: frozenset[str]) -> bool:
    """An explicit entry names a nodeid, or a class/function whose parametrized ids it covers."""
    if nodeid in listed:
        return True
    base = nodeid.split("[", 1)[0]
    if base in listed:
        return True
    parts = base.split("::")
    return any("::".join(parts[:end]) in listed for end in range(2, len(parts)))


@dataclass(frozen=True)
class PlaneMap:
    """Classifies nodeids under one configuration and one set of frozen nodeids."""

    config: Config
    frozen: frozenset[str] = frozenset()

    @cached_property
    def _specs(self) -> dict[str, pathspec.GitIgnoreSpec]:
        return {name: spec(self.config.planes[name].paths) for name in SCORING_PLANES}

    @cached_property
    def _listed(self) -> dict[str, frozenset[str]]:
        return {name: frozenset(self.config.planes[name].nodeids) for name in SCORING_PLANES}

    def planes_of(self, nodeid: str) -> tuple[str, ...]:
        """Every plane that claims the nodeid: explicit nodeids first, then path patterns."""
        if nodeid in self.frozen:
            return ("freeze",)
        explicit = tuple(p for p in SCORING_PLANES if _nodeid_listed(nodeid, self._listed[p]))
        if explicit:
            return explicit
        path = file_of(nodeid)
        return tuple(p for p in SCORING_PLANES if self._specs[p].match_file(path))

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

    def plane_of_file(self, path: str) -> str | None:
        return next((p for p in SCORING_PLANES if self._specs[p].match_file(path)), None)

    def is_plane_file(self, path: str) -> bool:
        return self.plane_of_file(path) is not None


@dataclass(frozen=True)
class InventoryInput:
    head_nodeids: tuple[str, ...]
    base_nodeids: tuple[str, ...]
    sources: Mapping[str, str]  # test file path -> source as collected (for the mixed-file check)


def check(plane_map: PlaneMap, data: InventoryInput, owner: str) -> list[Finding]:
    findings: list[Finding] = []
    findings += _membership(plane_map, data.head_nodeids, owner)
    findings += _mixed_files(plane_map, data, owner)
    findings += _moved_or_vanished(plane_map, data, owner)
    return findings


def _finding(
    rule: str,
    message: str,
    nodeid: str | None,
    owner: str,
    plane: str | None = None,
    path: str | None = None,
    line: int | None = None,
) -> Finding:
    return Finding(
        rule,
        Step.INVENTORY,
        Severity.ERROR,
        message,
        path=path or (file_of(nodeid) if nodeid else None),
        line=line,
        owner=owner,
        plane=plane,
        nodeid=nodeid,
    )


def _membership(plane_map: PlaneMap, nodeids: Iterable[str], owner: str) -> list[Finding]:
    findings = []
    for nodeid in nodeids:
        planes = plane_map.planes_of(nodeid)
        if not planes:
            findings.append(_finding("PG201", f"{nodeid} is in no plane", nodeid, owner))
        elif len(planes) > 1:
            findings.append(
                _finding("PG202", f"{nodeid} is in {' and '.join(planes)}", nodeid, owner)
            )
    return findings


def _mixed_files(plane_map: PlaneMap, data: InventoryInput, owner: str) -> list[Finding]:
    """A mixed file fails the step, unless each of its nodeids is listed by nodeid in the
    configuration (`planegate init` does this for files it cannot split): then the mix is
    documented, and reported as a notice until the file is split."""
    by_file: dict[str, set[str]] = defaultdict(set)
    by_path: set[str] = set()  # files with a nodeid whose plane comes from a path pattern
    for nodeid in data.head_nodeids:
        plane = plane_map.plane_of(nodeid)
        if plane in SCORING_PLANES:
            by_file[file_of(nodeid)].add(plane)
            if not _nodeid_listed(nodeid, plane_map._listed[plane]):
                by_path.add(file_of(nodeid))
    findings = []
    for path in sorted(by_file):
        planes = by_file[path]
        severity = Severity.ERROR if path in by_path else Severity.NOTICE
        listed = "" if path in by_path else " (its nodeids are listed by nodeid in the planes)"
        if len(planes) > 1:
            message = f"{path} holds tests of both the property and the fixture plane; split it"
            found = _finding("PG203", message + listed, None, owner, path=path)
            findings.append(replace(found, severity=severity))
            continue
        (plane,) = planes
        source = data.sources.get(path)
        wrong = _tests_of_other_kind(source, plane) if source is not None else []
        if wrong:
            names = ", ".join(name for name, _ in wrong[:5])
            kind = "example (non-@given) tests" if plane == "property" else "@given property tests"
            message = (
                f"{path} is in the {plane} plane but holds {kind}: "
                f"{names}; move them to a file of their own plane{listed}"
            )
            found = _finding("PG203", message, None, owner, plane, path, wrong[0][1])
            findings.append(replace(found, severity=severity))
    return findings


def test_kinds(source: str) -> list[tuple[str, int, bool]]:
    """(name, line, uses @given) for every test function in a module."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            found.append((node.name, node.lineno, any(_is_given(d) for d in node.decorator_list)))
    return found


def _is_given(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "given"


def _tests_of_other_kind(source: str, plane: str) -> list[tuple[str, int]]:
    want_given = plane == "property"
    return [(name, line) for name, line, given in test_kinds(source) if given != want_given]


def _moved_or_vanished(plane_map: PlaneMap, data: InventoryInput, owner: str) -> list[Finding]:
    head = set(data.head_nodeids)
    findings = []
    for nodeid in data.base_nodeids:
        base_plane = plane_map.plane_of(nodeid)
        if nodeid not in head and base_plane != UNCLASSIFIED:
            findings.append(
                _finding(
                    "PG205",
                    f"{nodeid} ({base_plane}) is collected on the base but not on the head",
                    nodeid,
                    owner,
                    plane=base_plane,
                )
            )
    return findings


def plane_changes(
    base_map: Mapping[str, str], head_map: Mapping[str, str], owner: str
) -> list[Finding]:
    """Nodeids whose plane differs between base and head inventories (same configuration)."""
    findings = []
    for nodeid, base_plane in sorted(base_map.items()):
        head_plane = head_map.get(nodeid)
        if head_plane is not None and head_plane != base_plane:
            findings.append(
                _finding(
                    "PG204",
                    f"{nodeid} moved from {base_plane} to {head_plane}",
                    nodeid,
                    owner,
                    plane=head_plane,
                )
            )
    return findings
