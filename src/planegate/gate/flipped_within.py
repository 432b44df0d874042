"""The base's run of the test files a patch can flip, kept to one shard's test files.

A shard runs only its slice of the scoring tests on the head, so only those tests can be
flipped in it: the base runs the files `flipped.base_targets` chooses that hold a nodeid of
the slice (a file split between shards runs whole in each of them)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Set

from planegate.gate import flipped
from planegate.gate.context import Context
from planegate.runner.spec import Sessions


@contextlib.contextmanager
def started(ctx: Context, files: Set[str]) -> Iterator[flipped.Pending]:
    """`flipped.started`, with the targets kept to `files`."""
    started_at = time.monotonic()
    if not flipped.changed_code(ctx):
        yield flipped.Pending(
            flipped.BaseRun((), "the patch changes no file the scoring tests can see")
        )
        return
    with ctx.repo.worktree(ctx.base.commit) as tree:
        chosen, why = flipped.base_targets(ctx, tree)
        targets = tuple(path for path in chosen if path in files)
        if len(targets) < len(chosen):
            why += f"; {len(targets)} of them in this shard"
        if not targets:
            yield flipped.Pending(flipped.BaseRun((), why, None, time.monotonic() - started_at))
            return
        pending = flipped.Pending()
        trusted = frozenset(ctx.protection.select(ctx.base.files))
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)
        pending.start(sessions, targets, why, ctx)
        try:
            yield pending
        finally:
            with contextlib.suppress(BaseException):
                pending.result()
