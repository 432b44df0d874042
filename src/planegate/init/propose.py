"""The pure core of `planegate init`: one plane per collected nodeid, one plan per test file.

A file whose tests are all of one kind goes into its plane's `paths`. A file that mixes
kinds (or whose source defines tests of the other kind that are not collected, which the
gate's mixed-file check would see) is listed nodeid by nodeid under each plane; as the file of
listed nodeids it is evidence by default (config/default_evidence.py), protected as a whole, and the
gate reports it as a notice until it is split (docs/configuration.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from planegate.analysis.hunks import is_test_file
from planegate.config.planemap import test_kinds
from planegate.init.propose_ast import index, split_nodeid

PROPERTY, FIXTURE, NODEIDS = "property", "fixture", "nodeids"
LEFT_OUT = "left out"  # a production module's doctests: the gate's run ignores the file


@dataclass(frozen=True)
class CollectedItem:
    nodeid: str
    hypothesis: bool = False  # the collected object is a Hypothesis test (read at run time)
    function: bool = True  # a Python test function (not a doctest or a plugin's item)


@dataclass(frozen=True)
class Collection:
    items: tuple[CollectedItem, ...]
    errors: tuple[tuple[str, str], ...] = ()  # (nodeid or "", message)

    def by_file(self) -> dict[str, list[CollectedItem]]:
        files: dict[str, list[CollectedItem]] = defaultdict(list)
        for item in self.items:
            files[split_nodeid(item.nodeid)[0]].append(item)
        return dict(files)


@dataclass(frozen=True)
class FilePlan:
    path: str
    mode: str  # property | fixture | nodeids
    property_ids: tuple[str, ...]
    fixture_ids: tuple[str, ...]
    reason: str
    test_file: bool = True  # holds test functions (False: only doctests or plugins' items)

    @property
    def mixed(self) -> bool:
        return bool(self.property_ids) and bool(self.fixture_ids)


def classify(items: Iterable[CollectedItem], source: str | None) -> dict[str, bool]:
    """nodeid -> is a property test; the source decides, the run-time object when it cannot."""
    functions = index(source or "")
    result = {}
    for item in items:
        uses = functions.uses_given(split_nodeid(item.nodeid)[1]) if item.function else False
        result[item.nodeid] = item.hypothesis if uses is None else uses
    return result


def plan_file(path: str, items: list[CollectedItem], source: str | None) -> FilePlan:
    kinds = classify(items, source)
    props = tuple(n for n, given in kinds.items() if given)
    examples = tuple(n for n, given in kinds.items() if not given)
    count = _count(len(items), items)
    if not any(item.function for item in items) and _production_module(path):
        reason = (
            f"{count} collected items that are not test functions (doctests?) in a module "
            f"that is not a test file: left out of the gate's run (`--ignore={path}` in "
            "pytest.args), since their expected values live in the file a patch changes; to "
            "make them evidence, drop that argument and list their nodeids (the file is then "
            "protected as a whole)"
        )
        return FilePlan(path, LEFT_OUT, (), (), reason, False)
    if not any(item.function for item in items):
        reason = (
            f"{count} collected items that are not test functions (doctests?): listed per "
            "nodeid, which makes the file evidence by default (protected)"
        )
        return FilePlan(path, NODEIDS, (), examples, reason, False)
    if props and examples:
        reason = f"MIXED: {len(props)} property and {len(examples)} fixture tests"
        return FilePlan(path, NODEIDS, props, examples, reason)
    defined = test_kinds(source or "")
    other = sorted({name for name, _, given in defined if given != bool(props)})
    if other:
        kind = "example" if props else "@given"
        reason = (
            f"{count} {'property' if props else 'fixture'} tests, but the file also defines "
            f"{kind} tests that are not collected ({', '.join(other[:3])}): listed per nodeid"
        )
        return FilePlan(path, NODEIDS, props, examples, reason)
    if props:
        return FilePlan(path, PROPERTY, props, (), f"property ({count} tests use @given)")
    return FilePlan(path, FIXTURE, (), examples, f"fixture ({count} example tests, no @given)")


def _production_module(path: str) -> bool:
    """A Python module that is not a test file (a package's module with doctests)."""
    return path.endswith(".py") and not is_test_file(path)


def _count(total: int, items: list[CollectedItem]) -> str:
    functions = {split_nodeid(item.nodeid)[1] for item in items}
    return f"{total}" if len(functions) == total else f"{total} (from {len(functions)} functions)"


def compact(nodeids: Iterable[str], plane_of: Mapping[str, str]) -> list[str]:
    """Entries for the configuration: a whole class when all its collected tests share the
    plane, else each function once (the gate matches a function's parametrized ids to it)."""
    by_class: dict[str, set[str]] = defaultdict(set)
    for nodeid, plane in plane_of.items():
        parts = nodeid.split("[", 1)[0].split("::")
        if len(parts) > 2:
            by_class["::".join(parts[:2])].add(plane)
    entries: set[str] = set()
    for nodeid in nodeids:
        parts = nodeid.split("[", 1)[0].split("::")
        owner = "::".join(parts[:2])
        entries.add(owner if len(parts) > 2 and len(by_class[owner]) == 1 else "::".join(parts))
    return sorted(entries)


@dataclass
class Proposal:
    property_paths: list[str] = field(default_factory=list)
    fixture_paths: list[str] = field(default_factory=list)
    property_ids: list[str] = field(default_factory=list)
    fixture_ids: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)
    data: list[str] = field(default_factory=list)  # files tests read (init/discover.py)
    plugins: tuple[str, ...] = ()  # written to pytest.plugins when given
    notes: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)  # comment lines above the YAML
    renamed: dict[str, str] = field(default_factory=dict)  # nodeids `init --split` moved
    left_out: list[str] = field(default_factory=list)  # files the gate's run ignores

    def add(self, plan: FilePlan) -> None:
        if plan.mode == LEFT_OUT:
            self.left_out.append(plan.path)
            self.notes.append(f"{plan.path}: {plan.reason}")
        elif plan.mode == PROPERTY:
            self.property_paths.append(plan.path)
        elif plan.mode == FIXTURE:
            self.fixture_paths.append(plan.path)
        else:
            planes = {n: PROPERTY for n in plan.property_ids}
            planes.update({n: FIXTURE for n in plan.fixture_ids})
            self.property_ids += compact(plan.property_ids, planes)
            self.fixture_ids += compact(plan.fixture_ids, planes)
            if plan.test_file:
                self.header.append(f"  {plan.path}: {plan.reason}")
        if plan.mode == NODEIDS:
            self.notes.append(f"{plan.path}: {plan.reason}")

    @property
    def text(self) -> str:
        return render(self)


def render(proposal: Proposal, origin: str = "proposed by `planegate init`") -> str:
    data: dict[str, Any] = {
        "version": 1,
        "owner": "unowned",
        "planes": {
            PROPERTY: {
                "owner": "unowned",
                "paths": sorted(proposal.property_paths),
                "nodeids": sorted(proposal.property_ids),
            },
            FIXTURE: {
                "owner": "unowned",
                "paths": sorted(proposal.fixture_paths),
                "nodeids": sorted(proposal.fixture_ids),
                "data": sorted(proposal.data),
            },
            "freeze": {"owner": "unowned"},
        },
        "protected": sorted(set(proposal.protected)),
    }
    if proposal.plugins or proposal.left_out:
        data["pytest"] = {"plugins": list(proposal.plugins)} if proposal.plugins else {}
        if proposal.left_out:
            data["pytest"]["args"] = [f"--ignore={path}" for path in sorted(proposal.left_out)]
    lines = [
        f"# {origin}; set the owners, and check that planes.fixture.data",
        "# names every golden file the fixture tests read (then run `planegate lock`).",
    ]
    if proposal.header:
        lines += [
            "# Listed nodeid by nodeid (the file of a listed nodeid is evidence by default,",
            "# protected as a whole; the gate reports a mix as a notice until the file is",
            "# split, e.g. with `planegate init --split`):",
            *(f"#{line}" for line in sorted(proposal.header)),
        ]
    return "\n".join(lines) + "\n" + yaml.safe_dump(data, sort_keys=False, width=100)
