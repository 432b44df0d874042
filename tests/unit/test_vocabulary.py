"""The typed vocabularies and the sweep probes' options as they cross to the child process."""

from __future__ import annotations

import pytest

from planegate.freeze import sweep
from planegate.freeze.child.sweep_options import ProbeOptions
from planegate.vocabulary import (
    FLAKE_CLASSES,
    OUTCOMES,
    PLANES,
    SCORING_PLANES,
    SWEEP_MODES,
)


def test_the_closed_sets_hold_the_documented_words() -> None:
    assert PLANES == ("property", "fixture", "freeze")
    assert SCORING_PLANES == ("property", "fixture")
    assert FLAKE_CLASSES == ("timing", "order", "network", "rng", "env")
    assert SWEEP_MODES == ("scoring", "reverse", "shuffle")
    assert set(OUTCOMES) == {
        "passed",
        "failed",
        "error",
        "skipped",
        "xfailed",
        "xpassed",
        "missing",
        "deselected",
    }


def test_absent_options_take_their_defaults() -> None:
    assert ProbeOptions.from_mapping({}) == ProbeOptions()
    assert ProbeOptions.from_mapping({"order": "given", "given": ["a::b"]}).given == ("a::b",)


def test_an_unknown_order_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown probe order 'sideways'"):
        ProbeOptions.from_mapping({"order": "sideways"})


@pytest.mark.parametrize("mode", SWEEP_MODES)
def test_a_mode_plan_hands_on_its_order_and_seeds(mode: str) -> None:
    plan = sweep.plan(mode, 2, 7, 11)
    options = ProbeOptions.from_mapping(plan.probes(stop_after="t.py::t"))
    assert (options.order, options.order_seed, options.rng_seed) == (
        sweep.ORDER_OF_MODE[plan.mode],
        plan.order_seed,
        plan.rng_seed,
    )
    assert options.stop_after == "t.py::t"
