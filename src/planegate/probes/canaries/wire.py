"""The sampled canaries' wire: what the gate asks of the child (`SampleSpec`, in the run's
spec) and what the child's `sampled` record says of each sampled test (`sampled_of`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planegate.probes.canaries.child.sampled import KIND, NOT_FOUND, SETTLED
from planegate.runner.session import ChildPlugin

MODULE = "planegate.probes.canaries.child.sampled"  # the child's plugin (its entry: `plugin`)


@dataclass(frozen=True)
class SampleSpec:
    """What the gate asks of the child: tests, breaks, seed, message, the test side, the
    qualified names that may be broken in files the patch changed, and forced breaks."""

    tests: tuple[str, ...]
    breaks: int
    seed: int
    message: str
    test_files: tuple[str, ...] = ()
    test_roots: tuple[str, ...] = ()
    only: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    force: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # nodeid: path, qualname

    def to_json(self) -> dict[str, Any]:
        return {
            "tests": list(self.tests),
            "breaks": self.breaks,
            "seed": self.seed,
            "message": self.message,
            "test_files": list(self.test_files),
            "test_roots": list(self.test_roots),
            "only": {path: list(names) for path, names in self.only.items()},
            "force": {nodeid: list(target) for nodeid, target in self.force.items()},
        }


def child_plugins(spec: SampleSpec | None) -> tuple[ChildPlugin, ...]:
    """A session's `child_plugins` for the sampled canaries `spec` asks for (none without one):
    placed before the allowed plugins, as the child's own companions are."""
    if spec is None:
        return ()
    return (ChildPlugin(MODULE, spec.to_json(), before_allowed=True, records=(KIND, SETTLED)),)


@dataclass(frozen=True)
class Sampled:
    """One sampled test as the child reported it: what it called directly (path, qualified
    name), the function broken (empty when none was, `why` says why) and whether it failed."""

    nodeid: str
    calls: tuple[tuple[str, str], ...] = ()
    path: str = ""
    qualname: str = ""
    line: int = 0
    failed: bool = False
    why: str = ""


def sampled_of(extra: Mapping[str, Any], kind: str = KIND) -> dict[str, Sampled] | None:
    """nodeid -> what the child reported, from a run's `sampled` record (or its `settled`
    one); None when no record of that shape came."""
    record = extra.get(kind)
    tests = record.get("tests") if isinstance(record, Mapping) else None
    if not isinstance(tests, Mapping):
        return None
    found = {}
    for nodeid, entry in tests.items():
        if isinstance(entry, Mapping):
            found[str(nodeid)] = _entry(str(nodeid), entry)
    return found


def _entry(nodeid: str, entry: Mapping[str, Any]) -> Sampled:
    calls = entry.get("calls")
    pairs = tuple(
        (str(c[0]), str(c[1])) for c in (calls if isinstance(calls, list) else ()) if _pair(c)
    )
    function = entry.get("function")
    if not (isinstance(function, list) and len(function) == 3 and isinstance(function[2], int)):
        return Sampled(nodeid, pairs, why=str(entry.get("why") or NOT_FOUND))
    path, qualname, line = str(function[0]), str(function[1]), function[2]
    return Sampled(nodeid, pairs, path, qualname, line, entry.get("failed") is True)


def _pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2
