"""The harness's bindings compared through each namespace's version tag: a namespace whose tag
did not move is not read binding by binding, one whose tag moved is, a class's namespace too,
and without tags every binding is compared as before."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from planegate.runner.child import integrity

SOURCE = """\
def build(x):
    return x


class Report:
    def outcome(self):
        return "passed"
"""


def harness(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    made = ModuleType("pgtagharness")
    exec(compile(SOURCE, "/site/pgtagharness.py", "exec"), made.__dict__)
    vars(made)["Report"].__module__ = "pgtagharness"
    monkeypatch.setitem(__import__("sys").modules, "pgtagharness", made)
    return made


def checks(tags: bool = True) -> tuple[SimpleNamespace, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    audit = SimpleNamespace(
        prefixes=("/tree/",),
        cache={},
        trusted={"/tree/tests/test_core.py"},
        sent=set(),
        emit=lambda kind, fields: sent.append({"kind": kind, **fields}),
    )
    c = integrity.make(audit.emit, audit, ("pgtagharness",))
    if not tags:
        c.versions.usable = False
    integrity.baseline(c)
    return c, sent


def events(sent: list[dict[str, Any]]) -> list[str]:
    return [s["event"] for s in sent if "pgtagharness" in s["event"]]


def stand_in(name: str) -> Any:
    """A replacement whose code lies in the tree's production code."""
    space: dict[str, Any] = {}
    exec(compile(f"def {name}(*a):\n    return 1\n", "/tree/calc/core.py", "exec"), space)
    return space[name]


@pytest.mark.parametrize("tags", [True, False])
def test_a_module_binding_replaced_is_named_with_or_without_tags(
    monkeypatch: pytest.MonkeyPatch, tags: bool
) -> None:
    module = harness(monkeypatch)
    c, sent = checks(tags)
    assert bool(c.scopes["full"].tagged) is tags
    integrity.check(c, "full", "at first")
    assert events(sent) == []
    vars(module)["build"] = stand_in("build")
    integrity.check(c, "full", "after the call")
    assert events(sent) == ["harness changed: pgtagharness.build replaced (after the call)"]
    assert sent[-1]["path"] == "calc/core.py"
    integrity.check(c, "full", "later")  # re-based: reported once
    assert len(events(sent)) == 1


@pytest.mark.parametrize("tags", [True, False])
def test_a_class_attribute_replaced_is_named_with_or_without_tags(
    monkeypatch: pytest.MonkeyPatch, tags: bool
) -> None:
    module = harness(monkeypatch)
    c, sent = checks(tags)
    labels = [e[0] for e in c.scopes["full"].tagged]
    assert ("pgtagharness.Report" in labels) is tags  # the class's dict behind its proxy
    module.Report.outcome = stand_in("outcome")
    integrity.check(c, "full", "after the call")
    assert events(sent) == [
        "harness changed: pgtagharness.Report.outcome replaced (after the call)"
    ]


def test_a_namespace_whose_tag_did_not_move_is_not_compared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the snapshot is made to differ from the namespace behind the check's back: with the tag
    # unmoved nothing is read, so nothing is found; a write to the namespace moves the tag,
    # and then its bindings are compared (and the stale snapshot shows)
    module = harness(monkeypatch)
    c, sent = checks()
    entry = next(e for e in c.spaces if e[0] == "pgtagharness")
    at = entry[3].index("build")
    entry[4] = (*entry[4][:at], object(), *entry[4][at + 1 :])
    integrity.check(c, "full", "quiet")
    assert events(sent) == []
    vars(module)["flag"] = True  # harness data: the tag moves
    integrity.check(c, "full", "moved")
    assert events(sent) == ["harness changed: pgtagharness.build replaced (moved)"]


def test_the_harness_s_own_data_changes_freely(monkeypatch: pytest.MonkeyPatch) -> None:
    module = harness(monkeypatch)
    c, sent = checks()
    for value in range(3):
        vars(module)["cache"] = {"seen": value}
        integrity.check(c, "full", "after")
    assert events(sent) == []
