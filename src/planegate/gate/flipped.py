"""The tests a patch flips (fail on the base, pass on the head), which the answer probes
(probes/answers/) then probe.

When main's digest carries main's own run of its scoring tests, made at the base's tip in
this environment (gate/main_run.py), the base's outcomes are read from it and nothing runs.
Otherwise the base's run is cheap to decide and runs beside the head's: only the scoring test files
whose imports reach a file the patch changes (pyimports.py) run on the base, in a
thread of this process while the head's session runs in another child (a patch that
changes no unprotected file runs nothing). A patch that changes a file Python does not
import (data, a compiled module) runs every scoring test file on the base.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass
from pathlib import Path

from planegate.config.planemap import file_of
from planegate.gate.context import Context
from planegate.probes.answers.plan import BASE_RUN
from planegate.probes.protocol import BaseSide, changed_code, scoring_files
from planegate.pyimports import ImportGraph, touched_tests_permissive
from planegate.repo.digest_format import MainRun
from planegate.report import ProbeRecord
from planegate.runner.beside import Beside
from planegate.runner.session import BESIDE, RunResult
from planegate.runner.spec import Sessions
from planegate.vocabulary import SCORING_PLANES

INERT = (".md", ".rst", ".adoc")


@dataclass(frozen=True)
class BaseRun:
    targets: tuple[str, ...] = ()  # the base's test files that ran
    why: str = ""
    result: RunResult | None = None
    seconds: float = 0.0
    main: MainRun | None = None  # main's run from the digest: the base's outcomes, not run here
    inventory: frozenset[str] = frozenset()  # the nodeids main's run collected (with `main`)


def base_targets(ctx: Context, tree: Path) -> tuple[tuple[str, ...], str]:
    """The base's scoring test files whose outcome the patch can change, and why.

    The imports are read in the base's exported `tree`: a path from a test to a changed file
    runs through files the patch left alone, whose imports are the same on both sides; a
    file only the head has is still named by the files that import it."""
    changed = changed_code(ctx)
    tests = scoring_files(ctx)
    if not changed or not tests:
        return (), "the patch changes no file the scoring tests can see"
    other = [p for p in changed if not p.endswith(".py") and not p.endswith(INERT)]
    if other:
        return tuple(tests), f"the patch changes {other[0]}, which Python does not import"
    files = frozenset(p for p in (*ctx.base.files, *ctx.head.files) if p.endswith(".py"))
    graph = ImportGraph(files, lambda path: _read(tree, path))
    touched = touched_tests_permissive(graph, tests, changed)
    return tuple(touched), f"{len(touched)} of {len(tests)} scoring test files import the change"


def _read(tree: Path, path: str) -> str | None:
    target = tree / path
    if not target.is_file() or target.is_symlink():
        return None
    return target.read_bytes().decode("utf-8", "replace")


class Pending:
    """The base's run beside the head's (runner/beside.py); `result()` waits for it."""

    def __init__(self, done: BaseRun | None = None) -> None:
        self._done = done
        self._run: Beside[BaseRun] | None = None

    def start(self, sessions: Sessions, targets: tuple[str, ...], why: str, ctx: Context) -> None:
        def work() -> BaseRun:
            started = time.monotonic()
            result = sessions.run(
                targets=targets, deselect=frozenset(ctx.frozen), canaries=False, nice=BESIDE
            )
            return BaseRun(targets, why, result, time.monotonic() - started)

        # its tree is the caller's (`started`), removed when the caller's block ends
        self._run = Beside(contextlib.ExitStack(), work, "base-run")

    @property
    def main(self) -> MainRun | None:
        """Main's run from the digest, when the base's outcomes come from it."""
        return None if self._done is None else self._done.main

    def result(self) -> BaseRun:
        if self._run is not None:
            return self._run.result()
        return self._done or BaseRun()


def from_main(main: MainRun, inventory: Mapping[str, Iterable[str]]) -> BaseRun:
    """The base's outcomes as main's digest recorded them: nothing runs."""
    collected = frozenset(n for ids in inventory.values() for n in ids)
    why = f"main's run in the digest: {len(main.not_passed)} scoring tests did not pass on main"
    return BaseRun(why=why, main=main, inventory=collected)


@contextlib.contextmanager
def started(
    ctx: Context,
    main: MainRun | None = None,
    inventory: Mapping[str, Iterable[str]] | None = None,
    files: Set[str] | None = None,
) -> Iterator[Pending]:
    """The base's run of the test files the patch can flip, started now; with main's run from
    the digest (and the inventory it vouches for) nothing runs. `files`: a shard's test
    files (shards/run.py), the only ones whose tests it can flip."""
    started_at = time.monotonic()
    if main is not None and inventory is not None:
        yield Pending(from_main(main, inventory))
        return
    if not changed_code(ctx):
        yield Pending(BaseRun((), "the patch changes no file the scoring tests can see"))
        return
    with ctx.repo.worktree(ctx.base.commit) as tree:
        targets, why = base_targets(ctx, tree)
        if files is not None:
            chosen = len(targets)
            targets = tuple(path for path in targets if path in files)
            why += f"; {len(targets)} of them in this shard" if len(targets) < chosen else ""
        if not targets:
            yield Pending(BaseRun((), why, None, time.monotonic() - started_at))
            return
        pending = Pending()
        trusted = frozenset(ctx.protection.select(ctx.base.files))  # main's evidence, as overlaid
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)
        pending.start(sessions, targets, why, ctx)
        try:
            yield pending
        finally:
            with contextlib.suppress(BaseException):
                pending.result()


def flipped(ctx: Context, head: RunResult, base: BaseRun) -> tuple[str, ...]:
    """Scoring tests that passed on the head and did not pass on the base (a test file
    that ran on the base and does not hold the nodeid did not pass it; with main's run, a
    nodeid main did not collect did not pass there)."""
    if base.main is not None:
        return _flipped_from_main(ctx, head, base.main, base.inventory)
    if base.result is None:
        return ()
    ran = set(base.targets)
    return tuple(
        sorted(
            nodeid
            for nodeid, outcome in head.outcomes.items()
            if outcome.passed
            and file_of(nodeid) in ran
            and ctx.plane_map.plane_of(nodeid) in SCORING_PLANES
            and not base.result.outcome_of(nodeid).passed
        )
    )


def _flipped_from_main(
    ctx: Context, head: RunResult, main: MainRun, inventory: frozenset[str]
) -> tuple[str, ...]:
    return tuple(
        sorted(
            nodeid
            for nodeid, outcome in head.outcomes.items()
            if outcome.passed
            and (nodeid in main.not_passed or nodeid not in inventory)
            and ctx.plane_map.plane_of(nodeid) in SCORING_PLANES
        )
    )


def base_side(ctx: Context, head: RunResult, pending: Pending) -> BaseSide:
    """The base's run, waited for: the tests the patch flips (none when the head's run did
    not hold) and the report's record of that run, for the answer probes."""
    base = pending.result()
    record = ProbeRecord(BASE_RUN, "pass", round(base.seconds, 3), len(base.targets), base.why)
    held = head.closed and not head.canary_problem
    return BaseSide(flipped(ctx, head, base) if held else (), record, base.why, base.main)
