"""Honest values' vocabulary and what they ask of the head's scoring run: the plugin, with the
tree's production files (their classes must compare as the builtin they stand in for) and
main's test side (its classes, `mock.ANY`-like helpers included, are trusted)."""

from __future__ import annotations

from collections.abc import Iterable

from planegate.analysis.hunks import is_test_file
from planegate.probes.honest.wire import child_plugins
from planegate.probes.protocol import Planned, ProbeContext, changed_code
from planegate.runner.session import ChildPlugin

HONEST = "honest values"  # the report's record of them
LIED = "honest value"  # PG145: a value that lies, the patch's
MAINS = "honest value (main's)"  # PG146: main's run shows the same value lying
UNCLOSED = "honest values run"  # PG147: the run closed without their record
KINDS = (LIED, MAINS, UNCLOSED)


def plan(ctx: ProbeContext) -> Planned:
    """The scoring run's honest-values plugin."""
    return Planned({"child_plugins": plugins(ctx)})


def plugins(ctx: ProbeContext) -> tuple[ChildPlugin, ...]:
    """Every production Python file of the head's tree is watched for a class that bends a
    builtin comparison (one of main's bends it in main's run too, which the base shows)."""
    files = {*ctx.head.files, *changed_code(ctx)}
    return plugins_of(files, ctx.evidence.test_side, ctx.evidence.roots)


def plugins_of(
    files: Iterable[str], test_files: tuple[str, ...], test_roots: tuple[str, ...]
) -> tuple[ChildPlugin, ...]:
    """The plugin watching the production Python files of `files` (main's run in the digest
    passes main's files: its lies are what a gate's base session would show)."""
    test_side = frozenset(test_files)
    roots = tuple(root.strip("/") + "/" for root in test_roots)
    suspects = tuple(
        path
        for path in sorted(files)
        if path.endswith(".py")
        and not is_test_file(path)
        and path not in test_side
        and not path.startswith(roots)
    )
    return child_plugins(suspects, test_files, test_roots)
