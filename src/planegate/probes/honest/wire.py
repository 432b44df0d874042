"""Honest values' wire: what the gate hands the scoring run (`child_plugins`) and what the
child's `honest` record says (`lies_of`): per test, each value that lied in an assert."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planegate.probes.honest.child.asserts import KIND
from planegate.runner.session import ChildPlugin

MODULE = "planegate.probes.honest.child.asserts"  # the child's plugin (its entry: `plugin`)


def child_plugins(
    suspects: tuple[str, ...], test_files: tuple[str, ...], test_roots: tuple[str, ...]
) -> tuple[ChildPlugin, ...]:
    """The plugin a scoring session needs: the patch's production files (their classes are
    held to the builtin they stand in for) and main's test side (its classes are trusted)."""
    options = {
        "suspects": list(suspects),
        "test_files": list(test_files),
        "test_roots": list(test_roots),
    }
    return (ChildPlugin(MODULE, options, records=(KIND,)),)


@dataclass(frozen=True)
class Lie:
    """A value an assert compared that lied: where (`path:line`), which operand (its text),
    its type, how it lied, and the function that returned it when the child could tell."""

    nodeid: str
    where: str
    operand: int
    text: str
    type: str
    kind: str
    how: str
    producer: str = ""

    @property
    def key(self) -> tuple[str, str, int, str, str]:
        """What main must show for the lie to be main's."""
        return (self.nodeid, self.where, self.operand, self.type, self.kind)


def lies_of(extra: Mapping[str, Any]) -> tuple[tuple[Lie, ...], int] | None:
    """The lies a run's `honest` record names and how many comparisons it checked; None when
    no record of that shape came."""
    record = extra.get(KIND)
    tests = record.get("tests") if isinstance(record, Mapping) else None
    if not isinstance(record, Mapping) or not isinstance(tests, Mapping):
        return None
    found = []
    for nodeid, entries in tests.items():
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, Mapping):
                found.append(_lie(str(nodeid), entry))
    checked = record.get("checked")
    return tuple(found), checked if isinstance(checked, int) else 0


def _lie(nodeid: str, entry: Mapping[str, Any]) -> Lie:
    operand = entry.get("operand")
    return Lie(
        nodeid,
        str(entry.get("where", "")),
        operand if isinstance(operand, int) else -1,
        str(entry.get("text", "")),
        str(entry.get("type", "")),
        str(entry.get("kind", "")),
        str(entry.get("how", "")),
        str(entry.get("producer", "")),
    )
