"""Frozen tests deselected through the runner's own filter: the arguments that `{deselect}`
in the configured command becomes. A filter names tests by the id's last part (the test's
name as the runner knows it); `none`, or a command without `{deselect}`, runs them and the
gate ignores their outcomes (the report says which)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

PLACEHOLDER = "{deselect}"
NODE_ROOT = "<root>"  # node:test's name for the test that holds a file's top-level tests


def name_of(nodeid: str) -> str:
    """The name a runner's filter matches: the id's part after its last `::`."""
    return nodeid.rsplit("::", 1)[-1]


def _alternation(names: list[str]) -> str:
    return "^(" + "|".join(re.escape(n) for n in names) + ")$"


def _node_pattern(nodeids: Iterable[str]) -> str:
    """node:test runs a test whose own name or any ancestor's name matches the pattern, and
    every top-level test's ancestor is the file's root test, `<root>`: so the pattern matches
    neither the frozen names nor `<root>` nor the other parts of their ids (the describe
    block, with `{suite}::{name}`). A frozen test under a describe block the id does not name
    still runs; the run ignores its outcome (junit/run.py says which)."""
    parts = sorted({part for n in nodeids for part in n.split("::") if part} | {NODE_ROOT})
    return "^(?!(" + "|".join(re.escape(p) for p in parts) + ")$)"


def arguments(style: str, nodeids: Iterable[str]) -> list[str]:
    """The runner's arguments that leave `nodeids` out; [] for none of them or style `none`."""
    nodeids = list(nodeids)
    names = sorted({name_of(n) for n in nodeids})
    if not names or style == "none":
        return []
    if style == "ctest":
        return ["-E", _alternation(names)]
    if style == "go":
        return ["-skip", _alternation(names)]
    if style == "cargo":
        return [arg for name in names for arg in ("--skip", name)] + ["--exact"]
    if style == "jest":
        return ["--testNamePattern", "^(?!(" + "|".join(re.escape(n) for n in names) + ")$)"]
    if style == "node":
        return ["--test-name-pattern", _node_pattern(nodeids)]
    raise ValueError(f"unknown filter {style!r}")


def names_matched(style: str, nodeid: str) -> set[str]:
    """The names of the id the filter's pattern matches: with `node` every part of it (the
    describe block too), else its last part."""
    if style == "node":
        return {part for part in nodeid.split("::") if part}
    return {name_of(nodeid)}


def safe_to_leave_out(style: str, elsewhere: Iterable[str], kept: Iterable[str]) -> list[str]:
    """The ids of `elsewhere` the filter can leave out without leaving out any of `kept`
    (one shard's own ids): a filter matches names, and two ids may share one. Those it cannot
    run here as well; the shard's own view drops them."""
    names = {name_of(n) for n in kept}
    return sorted(n for n in elsewhere if not names_matched(style, n) & names)


def command(template: str, style: str, nodeids: Iterable[str]) -> tuple[str, bool]:
    """The command to run, and whether the filter deselects `nodeids` (else they run and are
    ignored)."""
    wanted = sorted(nodeids)
    args = arguments(style, wanted) if PLACEHOLDER in template else []
    text = " ".join(shlex.quote(arg) for arg in args)
    return template.replace(PLACEHOLDER, text), bool(args)
