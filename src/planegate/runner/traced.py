"""What read tracing reports (`runner/child/reads.py` traces): plain data, no pytest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Launch:
    """A process production code started, or a foreign function it loaded
    (`runner/child/launches.py`): the audit event, the program or symbol, the production file
    and line that started it ('' and 0: no frame of the tree), the first command line seen
    there (shown, never compared) and the production frames that called it ("path:line")."""

    event: str
    name: str
    path: str
    line: int
    shown: str = ""
    callers: tuple[str, ...] = ()

    @property
    def sign(self) -> tuple[str, str, str, int]:
        return (self.event, self.name, self.path, self.line)


@dataclass(frozen=True)
class Reads:
    """What one test (or one module, outside any test) opened: repository paths by side; what
    production code started under it; and for each production read the production files of
    the tree on its stack (`via`)."""

    test: tuple[str, ...] = ()
    prod: tuple[str, ...] = ()
    launches: tuple[Launch, ...] = ()
    via: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class TraceSpec:
    """What the child needs to tell the sides apart (paths relative to the tree)."""

    test_files: tuple[str, ...] = ()
    test_roots: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        return {"test_files": list(self.test_files), "test_roots": list(self.test_roots)}
