"""Which production functions chosen tests call directly (the sampled canaries' targets).

Only the gate's runs on the base ask for it (`RunSpec.calls`): there the production code is
main's, so what the tracer sees is what main's tests really call, not what a patch says they
call. The run's targets are test files; of their items only the first of each chosen test
(`path::name`, `path::Class::name`; a parametrized test runs one case) is kept. For each,
while its call phase runs, a profile hook records every Python
function entered whose code lies in a production file of the tree and whose caller is a
frame of the test side (a test module, a conftest, a helper, anything under a test root, a
file the gate trusts as main's evidence): `(path, name, first line)` in the order first
entered. The companion plugin (`runner/extras.py`) sends one `calls` record as the session
ends, through the channel's writer and under its guard.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from types import FrameType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.runner import frames

if TYPE_CHECKING:
    import pytest

KIND = "calls"
MAX_PER_TEST = 64


@dataclass(frozen=True)
class CallSpec:
    """The nodeids to trace and what tells the test side from production (tree-relative)."""

    nodeids: tuple[str, ...]
    test_files: tuple[str, ...] = ()
    test_roots: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        return {
            "nodeids": list(self.nodeids),
            "test_files": list(self.test_files),
            "test_roots": list(self.test_roots),
        }


@dataclass(frozen=True)
class Call:
    """One production function a test called directly: tree-relative file, name, first line
    (of its first decorator, as the code object says)."""

    path: str
    name: str
    line: int


def hooks(
    emit: frames.Emit, audit: SimpleNamespace, spec: Mapping[str, Any]
) -> dict[str, Callable[..., Any]]:
    import pytest

    wanted = frozenset(str(n) for n in spec.get("nodeids", ()))
    sides = _sides(audit, spec)
    found: dict[str, dict[tuple[str, str, int], None]] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(
        item: pytest.Item,
        *,
        _a: Any = audit,
        _g: Any = frames.guard,
        _w: frozenset[str] = wanted,
        _f: dict[str, dict[tuple[str, str, int], None]] = found,
        _s: Callable[[str], tuple[str, str]] = sides,
        _get: Callable[[], Any] = sys.getprofile,
        _set: Callable[[Any], None] = sys.setprofile,
    ) -> Generator[None, None, None]:
        nodeid = item.nodeid
        wanted = nodeid in _w or nodeid.split("[", 1)[0] in _w
        if not wanted or not _g(_a, "pytest_runtest_call"):
            yield
            return
        previous = _get()
        _set(_profiler(_f.setdefault(nodeid, {}), _s))
        try:
            yield
        finally:
            _set(previous)

    def pytest_sessionfinish(
        *,
        _e: frames.Emit = emit,
        _a: Any = audit,
        _g: Any = frames.guard,
        _f: dict[str, dict[tuple[str, str, int], None]] = found,
    ) -> None:
        if _g(_a, "pytest_sessionfinish"):
            _e(KIND, {"tests": {n: [list(c) for c in calls] for n, calls in _f.items()}})

    return {
        "pytest_collection_modifyitems": _keep_hook(audit, wanted),
        "pytest_runtest_call": pytest_runtest_call,
        "pytest_sessionfinish": pytest_sessionfinish,
    }


def _keep_hook(audit: SimpleNamespace, wanted: frozenset[str]) -> Callable[..., Any]:

    def pytest_collection_modifyitems(
        config: pytest.Config,
        items: list[pytest.Item],
        *,
        _a: Any = audit,
        _g: Any = frames.guard,
        _w: frozenset[str] = wanted,
    ) -> None:
        """Keep the first item of each wanted test (a parametrized test runs one case)."""
        if not _g(_a, "pytest_collection_modifyitems"):
            return
        kept, seen = [], set()
        for item in items:
            key = item.nodeid.split("[", 1)[0]
            if (key in _w or item.nodeid in _w) and key not in seen:
                seen.add(key)
                kept.append(item)
        ids = {id(item) for item in kept}
        dropped = [item for item in items if id(item) not in ids]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    return pytest_collection_modifyitems


def _sides(s: SimpleNamespace, spec: Mapping[str, Any]) -> Callable[[str], tuple[str, str]]:
    """filename -> (side, tree-relative path): side '' outside the tree, else test or prod."""
    test_files = frozenset(str(p) for p in spec.get("test_files", ()))
    test_dirs = tuple(str(p).strip("/") + "/" for p in spec.get("test_roots", ()))
    cache: dict[str, tuple[str, str]] = {}

    def side(filename: str) -> tuple[str, str]:
        known = cache.get(filename)
        if known is not None:
            return known
        if not filename.startswith(s.prefixes) or not filename.endswith(".py"):
            known = ("", "")
        else:
            path = frames.relative(s, filename)
            name = path.rsplit("/", 1)[-1]
            test_like = name == "conftest.py" or name.startswith("test_")
            test_like = test_like or name.endswith("_test.py") or path in test_files
            test_like = test_like or path.startswith(test_dirs)
            if test_like or frames.classify(s, filename) == frames.TESTS:
                known = ("test", path)
            else:
                known = ("prod", path)
        cache[filename] = known
        return known

    return side


def _profiler(
    calls: dict[tuple[str, str, int], None], side: Callable[[str], tuple[str, str]]
) -> Callable[[FrameType, str, Any], None]:
    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or len(calls) >= MAX_PER_TEST:
            return
        caller = frame.f_back
        if caller is None:
            return
        code = frame.f_code
        kind, path = side(code.co_filename)
        if kind != "prod" or side(caller.f_code.co_filename)[0] != "test":
            return
        calls.setdefault((path, code.co_name, code.co_firstlineno), None)

    return profile


def calls_of(extra: Mapping[str, Any]) -> dict[str, tuple[Call, ...]]:
    """nodeid -> the production functions it called directly, from a run's `calls` record
    (empty when none came or it is not of that shape)."""
    record = extra.get(KIND)
    tests = record.get("tests") if isinstance(record, Mapping) else None
    if not isinstance(tests, Mapping):
        return {}
    found: dict[str, tuple[Call, ...]] = {}
    for nodeid, calls in tests.items():
        if isinstance(calls, list):
            found[str(nodeid)] = tuple(
                Call(str(c[0]), str(c[1]), int(c[2]))
                for c in calls
                if isinstance(c, list) and len(c) == 3 and isinstance(c[2], int)
            )
    return found
