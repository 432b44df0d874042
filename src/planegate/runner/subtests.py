"""Subtests (pytest 9's `subtests` fixture, the pytest-subtests plugin) decide their test.

A subtest reports on its own, under its test's nodeid; with the plugin, the test itself can
pass while a subtest failed. The gate folds them back: a failed subtest fails its test with
the subtest's message, a skipped one makes it skipped (like a skipped test), unless the
test's own phases already failed or errored in setup or teardown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

OWN_FAILURES = ("error",)


def verdict(outcome: str, message: str, subs: Iterable[Mapping[str, Any]]) -> tuple[str, str]:
    """(outcome, message) of a test given its own verdict and its failed/skipped subtests."""
    reports = list(subs)
    if not reports or outcome in OWN_FAILURES:
        return outcome, message
    failed = next((r for r in reports if r.get("outcome") == "failed"), None)
    if failed is not None:
        return "failed", _described(failed)
    if outcome in ("passed", "xpassed"):
        skipped = reports[0]
        return "skipped", _described(skipped)
    return outcome, message


def _described(report: Mapping[str, Any]) -> str:
    """The subtest's label in the message's first `E` line, pytest's text after it."""
    text = str(report.get("message", ""))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = next((line[2:].strip() for line in lines if line.startswith("E ")), "")
    if not first and lines:
        first = lines[-1]
    label = str(report.get("subtest", "(<subtest>)"))
    return f"E   subtest {label}: {first}\n{text}"
