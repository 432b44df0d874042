"""The flake sweep, freeze and thaw on generated repositories with real pytest children."""

from __future__ import annotations

from typing import Any

import pytest

from planegate.freeze import sweep as core

# --------------------------------------------------------------------------- the pure core


def run_of(index: int, failing: set[str], suite: list[str], mode: str = "shuffle") -> core.SweepRun:
    plan = core.plan(mode, index, 7, 0)
    outcomes = {n: core.Attempt("failed" if n in failing else "passed") for n in suite}
    return core.SweepRun(plan, tuple(suite), outcomes)


def test_modes_scoring_then_reverse_then_shuffles_with_derived_seeds() -> None:
    plans = core.plan_sweep(5, seed=42, frozen_seed=9)
    assert [p.mode for p in plans] == ["scoring", "reverse", "shuffle", "shuffle", "shuffle"]
    assert plans[0].rng_seed == 9
    assert len({p.rng_seed for p in plans[1:]}) == 4
    assert len({p.order_seed for p in plans[2:]}) == 3
    assert plans == core.plan_sweep(5, seed=42, frozen_seed=9)
    with pytest.raises(ValueError, match="at least one run"):
        core.plan_sweep(0, 1, 0)


def test_reorder_orders() -> None:
    from planegate.freeze.child.sweep_probes import reorder

    ids = [f"t.py::t{i}" for i in range(8)]
    assert reorder(ids, "reverse", 0, []) == ids[::-1]
    shuffled = reorder(ids, "shuffle", 3, [])
    assert sorted(shuffled) == sorted(ids)
    assert shuffled == reorder(ids, "shuffle", 3, [])
    assert shuffled != ids
    assert reorder(ids, "given", 0, ["t.py::t5", "gone::x", "t.py::t1"])[:3] == [
        "t.py::t5",
        "t.py::t1",
        "t.py::t0",
    ]
    assert reorder(ids, "collected", 0, []) == ids


def test_guard_more_than_five_newly_failing_in_one_run_is_environment_trouble() -> None:
    suite = [f"t.py::t{i}" for i in range(50)]
    five = set(suite[:5])
    runs = [run_of(0, set(), suite), run_of(1, five, suite), run_of(2, set(), suite)]
    assert core.decide(runs, suite).trouble is None
    six = set(suite[:6])
    runs[1] = run_of(1, six, suite)
    decision = core.decide(runs, suite)
    assert decision.trouble is not None
    assert "6 tests newly failing" in decision.trouble
    assert decision.flaky == ()


def test_guard_scales_to_two_percent_of_a_large_suite() -> None:
    suite = [f"t.py::t{i}" for i in range(1000)]
    twenty, twenty_one = set(suite[:20]), set(suite[:21])
    assert core.decide([run_of(0, twenty, suite), run_of(1, set(), suite)], suite).trouble is None
    assert core.decide([run_of(0, twenty_one, suite), run_of(1, set(), suite)], suite).trouble


def test_tests_failing_every_run_do_not_count_as_newly_failing() -> None:
    suite = [f"t.py::t{i}" for i in range(20)]
    broken = set(suite[:8])
    runs = [run_of(i, broken, suite) for i in range(3)]
    decision = core.decide(runs, suite)
    assert decision.trouble is None
    assert {t.nodeid for t in decision.always} == broken


def test_an_unfinished_run_is_environment_trouble() -> None:
    suite = ["t.py::a", "t.py::b"]
    runs = [run_of(0, set(), suite), run_of(1, {"t.py::a"}, suite)]
    runs[1] = core.SweepRun(runs[1].plan, runs[1].order, runs[1].outcomes, "it timed out")
    assert core.decide(runs, suite).trouble == "run 2 (shuffle): it timed out"


def test_at_most_ten_proposals_most_failures_first_and_frozen_ones_left_out() -> None:
    suite = [f"t.py::t{i:02}" for i in range(40)]
    runs = [
        run_of(0, set(suite[:5]), suite),
        run_of(1, set(suite[:3]) | set(suite[5:7]), suite),
        run_of(2, set(suite[7:12]), suite),
    ]
    decision = core.decide(runs, suite, frozen={"t.py::t00"})
    assert [t.nodeid for t in decision.flaky][:2] == ["t.py::t01", "t.py::t02"]
    assert len(decision.flaky) == 10
    assert decision.already_frozen == ("t.py::t00",)
    assert decision.over_limit == ("t.py::t11",)


def probe_to_end(answers: dict[str, bool], network: tuple[str, ...] = ()) -> list[str]:
    """Drive next_probe with fixed answers; return the probes asked for."""
    from dataclasses import replace

    found = core.Probes(network_attempts=network)
    asked = []
    fields = {
        core.PROBE_ALONE_FAILING_SEED: "alone_failing_seed",
        core.PROBE_ALONE_PASSING_SEED: "alone_passing_seed",
        core.PROBE_REPLAY_FAILING_ORDER: "replay_failing_order",
        core.PROBE_REPLAY_PASSING_ORDER: "replay_passing_order",
    }
    while (probe := core.next_probe(found)) is not None:
        asked.append(probe)
        if probe == core.PROBE_CPU_LOAD:
            failed = answers.get(probe, False)
            found = replace(
                found, load_runs=found.load_runs + 1, load_failures=found.load_failures + failed
            )
        else:
            # the field is chosen at run time, so its type cannot be checked here
            answer: dict[str, Any] = {fields[probe]: answers[probe]}
            found = replace(found, **answer)
    asked.append(core.classify(found, "AssertionError").flake_class)
    return asked


def test_probes_run_lazily_and_decide_the_class() -> None:
    f, p = core.PROBE_ALONE_FAILING_SEED, core.PROBE_ALONE_PASSING_SEED
    rf, rp = core.PROBE_REPLAY_FAILING_ORDER, core.PROBE_REPLAY_PASSING_ORDER
    assert core.next_probe(core.Probes()) == core.PROBE_NETWORK
    assert probe_to_end({}, network=("('10.0.0.1', 80)",)) == ["network"]
    assert probe_to_end({f: True, p: False}) == [f, p, "rng"]
    assert probe_to_end({f: True, p: True, rf: True, rp: False}) == [f, p, rf, rp, "order"]
    load = core.PROBE_CPU_LOAD
    timing = {f: False, p: False, rf: False, rp: False, load: True}
    assert probe_to_end(timing) == [f, p, rf, rp, load, load, "timing"]
    assert probe_to_end({f: False, p: False, rf: False, rp: False}) == [
        f,
        p,
        rf,
        rp,
        load,
        load,
        "env",
    ]


def test_confidences() -> None:
    net = core.Probes(network_attempts=("x",))
    assert core.classify(net, "ConnectionRefusedError: [Errno 111]").confidence == 0.9
    assert core.classify(net, "AssertionError: assert 1 == 2").confidence == 0.75
    timing = core.Probes(network_attempts=(), load_runs=2, load_failures=1)
    assert core.classify(timing).confidence == 0.7
    assert core.classify(core.Probes(network_attempts=())).flake_class == "env"
    always = core.Probes(
        has_passing_run=False,
        network_attempts=(),
        alone_failing_seed=False,
        replay_failing_order=True,
    )
    assert core.next_probe(always) is None
    assert core.classify(always).flake_class == "order"


@pytest.mark.parametrize(
    ("base", "head", "on_base", "label"),
    [
        (0, 3, True, "regression"),
        (0, 1, True, "flaky under the patch"),
        (0, 0, True, "flaky under the patch"),
        (3, 3, True, "already failing on base"),
        (1, 3, True, "already failing on base"),
        (0, 3, False, "regression"),
        (0, 2, False, "flaky under the patch"),
    ],
)
def test_triage_label(base: int, head: int, on_base: bool, label: str) -> None:
    assert core.triage_label(base, head, 3, on_base) == label


def test_failure_signature_takes_the_first_E_line() -> None:
    text = "def test():\n>   assert 1 == 2\nE   assert 1 == 2\nE    +  where ...\n\nt.py:2: Assert"
    assert core.failure_signature(text) == "assert 1 == 2"
    assert core.failure_signature("") == "failed without a message"
    assert core.failure_signature("boom\nlast line") == "last line"
