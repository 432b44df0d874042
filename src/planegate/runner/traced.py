"""What read tracing reports (`runner/child/reads.py` traces): plain data, no pytest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reads:
    """What one test (or one module, outside any test) opened: repository paths by side, and
    for each production read the production files of the tree on its stack (`via`)."""

    test: tuple[str, ...] = ()
    prod: tuple[str, ...] = ()
    via: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class TraceSpec:
    """What the child needs to tell the sides apart (paths relative to the tree)."""

    test_files: tuple[str, ...] = ()
    test_roots: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        return {"test_files": list(self.test_files), "test_roots": list(self.test_roots)}
