"""The answer probes' plugin modules and their command-line options, in one place the parent
process can read without importing pytest (the plugins themselves run in the child)."""

from __future__ import annotations

REPEAT_MODULE = "planegate.probes.answers.child.probe_repeat"
REPEAT_EACH = "--probe-repeat-each"
REPEAT_AGAIN = "--probe-again"

STRICT_MODULE = "planegate.probes.answers.child.probe_strict"
STRICT_COMPARE = "--probe-strict-compare"

FRESH_MODULE = "planegate.probes.answers.child.probe_fresh"
FRESH_SEED = "--probe-fresh-seed"
FRESH_FACTOR = "--probe-fresh-factor"

PLAIN_MODULE = "planegate.probes.answers.child.probe_plain"
PLAIN_SEED = "--probe-plain-seed"
PLAIN_EXAMPLES = "--probe-plain-examples"


def copy_nodeid(nodeid: str, run: int) -> str:
    """The nodeid of the `run`-th run (2, 3, ...) of a test repeated in one session."""
    return f"{nodeid}@{run}"
