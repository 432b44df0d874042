"""The closed sets of words planegate reads and writes, as types.

Each set is a `Literal` type (the values stay plain strings in JSON, YAML and reports) with
the tuple of its values beside it, in the order the docs list them.
"""

from __future__ import annotations

from typing import Literal, get_args

Plane = Literal["property", "fixture", "freeze"]
PLANES: tuple[Plane, ...] = get_args(Plane)
# The planes whose tests vote; a frozen test runs in the shadow lane.
SCORING_PLANES: tuple[Plane, ...] = ("property", "fixture")

FlakeClass = Literal["timing", "order", "network", "rng", "env"]
FLAKE_CLASSES: tuple[FlakeClass, ...] = get_args(FlakeClass)

# How one sweep run orders the suite: run 0 as scored, run 1 reversed, later runs shuffled.
SweepMode = Literal["scoring", "reverse", "shuffle"]
SWEEP_MODES: tuple[SweepMode, ...] = get_args(SweepMode)

# What one nodeid did in one session ("missing": selected but never reported).
OutcomeName = Literal[
    "passed", "failed", "error", "skipped", "xfailed", "xpassed", "missing", "deselected"
]
OUTCOMES: tuple[OutcomeName, ...] = get_args(OutcomeName)
