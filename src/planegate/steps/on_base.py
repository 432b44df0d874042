"""A fair verdict: a scoring test that did not pass on the head is compared with its outcome on
the base, in the same environment and mode (DESIGN §4, step planes).

- skipped, xpassed, deselected or missing on both for the same reason, or xfailed on both:
  main's state, a note, not a failure;
- failed (or errored) on both: the base is broken (exit 6, the plane's owner acts);
- anything else (it passed on the base, or the two differ): the patch's failure.
"""

from __future__ import annotations

import enum

from planegate import syntax
from planegate.repo.tree_paths import without_tree
from planegate.runner import startup
from planegate.runner.rerun import Rerun
from planegate.runner.session import Outcome, RunResult

FAILED = frozenset({"failed", "error"})
SAME_STATE = frozenset({"skipped", "xfailed", "xpassed", "deselected", "missing"})
MAX_LITERAL = 10_000  # a skip's (path, line, reason) tuple as pytest prints it; longer is text


class Verdict(str, enum.Enum):
    PATCH = "patch"  # the patch's failure
    MAIN = "main"  # in the same state on main: a note
    BROKEN = "broken"  # failing on main too: the base is broken


def compare(head: Outcome, base: Outcome | None) -> Verdict:
    """`base` is None when the base's run tells nothing (not rerun, or it did not close)."""
    if base is None:
        return Verdict.PATCH
    if head.outcome in FAILED and base.outcome in FAILED:
        return Verdict.BROKEN
    if head.outcome in SAME_STATE and head.outcome == base.outcome:
        # an xfail's reason is its marker's, in main's own test file on both sides; the
        # failure text under it may differ without changing what the test proves
        same = head.outcome == "xfailed" or reason(head) == reason(base)
        return Verdict.MAIN if same else Verdict.PATCH
    return Verdict.PATCH


def reason(outcome: Outcome) -> str:
    """What a skip or xfail says, without the tree's path (each run has its own tree)."""
    text = without_tree(outcome.message.strip())
    if not text:
        return ""
    if text.startswith("(") and len(text) <= MAX_LITERAL:
        try:
            parsed = syntax.literal(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            parsed = None
        if isinstance(parsed, tuple) and len(parsed) == 3:
            return str(parsed[2])
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("E ")]
    return (errors or lines)[0] if (errors or lines) else ""


def describe(head: Outcome) -> str:
    """The note for a test in main's state (`Verdict.MAIN`)."""
    why = reason(head)
    said = f": {why}" if why else ""
    return f"{head.nodeid} {head.outcome} on main too{said}"


def config_refusal(head_run: RunResult, base: Rerun | None) -> str | None:
    """pytest's message when it refused to start with the base's configuration and the base's
    own session was refused too (or was not tried): the configuration's, not the patch's."""
    message = startup.refusal(head_run)
    if message is None or (base is not None and base.runs > 0 and not base.refused):
        return None
    return message
