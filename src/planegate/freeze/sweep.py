"""The flake sweep's decisions: modes, counts per nodeid, guards, probes, classes, triage labels.

Everything here is pure: the shell (`sweep_run`) runs pytest sessions and hands the results
in. docs/freeze.md is the reference.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from planegate.config import defaults
from planegate.freeze.child.sweep_options import ProbeOptions, ProbeOrder
from planegate.vocabulary import SWEEP_MODES, FlakeClass, OutcomeName, SweepMode

MODES = SWEEP_MODES
ORDER_OF_MODE: dict[SweepMode, ProbeOrder] = {
    "scoring": "collected",
    "reverse": "reverse",
    "shuffle": "shuffle",
}
FAILING: frozenset[OutcomeName] = frozenset({"failed", "error", "xpassed", "missing"})
MAX_PROPOSALS = defaults.MAX_PROPOSALS
GUARD_MIN = 5
GUARD_FRACTION = Fraction(2, 100)
LOAD_RUNS = 2
BUNDLE_FORMAT = 1

LABEL_REGRESSION = "regression"
LABEL_FLAKY_UNDER_PATCH = "flaky under the patch"
LABEL_FAILING_ON_BASE = "already failing on base"

_NETWORK_TEXT = re.compile(
    r"connect|socket|refused|unreachable|timed? ?out|resolv|getaddrinfo|network|reset by peer",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------- modes


@dataclass(frozen=True)
class ModePlan:
    """How one run of the suite is made: its mode, the probes' order and seeds."""

    index: int
    mode: SweepMode
    order_seed: int
    rng_seed: int

    @property
    def order(self) -> ProbeOrder:
        return ORDER_OF_MODE[self.mode]

    def probes(self, **extra: Any) -> dict[str, Any]:
        """The probe options of this run as the session passes them on; `extra` adds to them."""
        options = ProbeOptions(
            order=self.order, order_seed=self.order_seed, rng_seed=self.rng_seed, **extra
        )
        return options.as_dict()


def derive_seed(seed: int, *parts: object) -> int:
    """A 31-bit seed derived from `seed` and `parts` (stable across machines and versions)."""
    text = ":".join(str(part) for part in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") >> 1


def mode_of_run(index: int) -> SweepMode:
    """Run 0 is the scoring order, run 1 the reverse order, every later run a new shuffle."""
    return MODES[min(index, len(MODES) - 1)]


def plan(mode: str, index: int, seed: int, frozen_seed: int) -> ModePlan:
    """Run `index` in `mode`: scoring keeps the frozen seed; the others derive theirs."""
    known = _sweep_mode(mode)
    if known == "scoring":
        return ModePlan(index, known, 0, frozen_seed)
    return ModePlan(
        index, known, derive_seed(seed, "order", index), derive_seed(seed, "rng", index)
    )


def _sweep_mode(mode: str) -> SweepMode:
    for known in MODES:
        if mode == known:
            return known
    raise ValueError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")


def plan_sweep(runs: int, seed: int, frozen_seed: int) -> tuple[ModePlan, ...]:
    if runs < 1:
        raise ValueError(f"a sweep needs at least one run, got {runs}")
    return tuple(plan(mode_of_run(i), i, seed, frozen_seed) for i in range(runs))


# --------------------------------------------------------------------------- runs and counts


@dataclass(frozen=True)
class Attempt:
    """One nodeid's outcome in one session."""

    outcome: str
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.outcome in FAILING


@dataclass(frozen=True)
class SweepRun:
    """One session of the suite: its plan, the order it ran in, every nodeid's outcome."""

    plan: ModePlan
    order: tuple[str, ...]
    outcomes: Mapping[str, Attempt] = field(hash=False)
    problem: str | None = None  # the run did not finish, or its channel is not trustworthy

    def failed(self, nodeid: str) -> bool:
        attempt = self.outcomes.get(nodeid)
        return attempt is None or attempt.failed


@dataclass(frozen=True)
class Tally:
    nodeid: str
    runs: int
    failing_runs: tuple[int, ...]

    @property
    def failures(self) -> int:
        return len(self.failing_runs)


def tally(runs: Sequence[SweepRun], suite: Iterable[str]) -> dict[str, Tally]:
    """Failures per nodeid over the runs (a nodeid a run did not report failed in it)."""
    return {
        nodeid: Tally(
            nodeid, len(runs), tuple(i for i, run in enumerate(runs) if run.failed(nodeid))
        )
        for nodeid in suite
    }


def guard_limit(suite_size: int) -> Fraction:
    """More newly failing tests than this in one run is environment trouble."""
    return max(Fraction(GUARD_MIN), GUARD_FRACTION * suite_size)


@dataclass(frozen=True)
class Decision:
    """What the runs alone say, before any probe.

    `flaky`: failed in some runs but not all; `always`: failed in every run (rerun alone to
    tell base broken from order); `trouble`: why nothing may be frozen; `over_limit`: flaky
    nodeids left out because a sweep proposes at most MAX_PROPOSALS.
    """

    flaky: tuple[Tally, ...]
    always: tuple[Tally, ...]
    trouble: str | None
    over_limit: tuple[str, ...] = ()
    already_frozen: tuple[str, ...] = ()


def decide(
    runs: Sequence[SweepRun],
    suite: Sequence[str],
    frozen: Iterable[str] = (),
    max_proposals: int = MAX_PROPOSALS,
) -> Decision:
    counts = tally(runs, suite)
    always = tuple(t for t in counts.values() if t.failures == t.runs)
    trouble = _trouble(runs, counts, len(suite))
    frozen_set = set(frozen)
    flaky = sorted(
        (t for t in counts.values() if 0 < t.failures < t.runs),
        key=lambda t: (-t.failures, t.nodeid),
    )
    already = tuple(t.nodeid for t in flaky if t.nodeid in frozen_set)
    fresh = [t for t in flaky if t.nodeid not in frozen_set]
    if trouble is not None:
        return Decision((), always, trouble, already_frozen=already)
    kept = tuple(fresh[:max_proposals])
    over = tuple(t.nodeid for t in fresh[max_proposals:])
    return Decision(kept, always, None, over, already)


def _trouble(runs: Sequence[SweepRun], counts: Mapping[str, Tally], size: int) -> str | None:
    for run in runs:
        if run.problem is not None:
            return f"run {run.plan.index + 1} ({run.plan.mode}): {run.problem}"
    limit = guard_limit(size)
    consistent = {n for n, t in counts.items() if t.failures == t.runs}
    for index, run in enumerate(runs):
        newly = [n for n in counts if index in counts[n].failing_runs and n not in consistent]
        if len(newly) > limit:
            return (
                f"run {index + 1} ({run.plan.mode}): {len(newly)} tests newly failing, more than "
                f"max({GUARD_MIN}, 2 % of {size}); this looks like environment trouble, "
                "so nothing is frozen"
            )
    return None


# --------------------------------------------------------------------------- probes


PROBE_NETWORK = "network"
PROBE_ALONE_FAILING_SEED = "alone-failing-seed"
PROBE_ALONE_PASSING_SEED = "alone-passing-seed"
PROBE_REPLAY_FAILING_ORDER = "replay-failing-order"
PROBE_REPLAY_PASSING_ORDER = "replay-passing-order"
PROBE_CPU_LOAD = "cpu-load"


@dataclass(frozen=True)
class Probes:
    """What the probes found for one nodeid so far (None: not run).

    Booleans say whether the test *failed* in the probe. `has_passing_run` is False for a
    test that failed every sweep run: then "alone" is its passing order, and there is no
    passing seed to compare with.
    """

    has_passing_run: bool = True
    network_attempts: tuple[str, ...] | None = None
    alone_failing_seed: bool | None = None
    alone_passing_seed: bool | None = None
    replay_failing_order: bool | None = None
    replay_passing_order: bool | None = None
    load_runs: int = 0
    load_failures: int = 0


def next_probe(found: Probes) -> str | None:
    """The next probe to run for a nodeid, or None when `classify` can decide."""
    if found.network_attempts is None:
        return PROBE_NETWORK
    if found.network_attempts:
        return None
    if found.alone_failing_seed is None:
        return PROBE_ALONE_FAILING_SEED
    if found.has_passing_run and found.alone_passing_seed is None:
        return PROBE_ALONE_PASSING_SEED
    if found.alone_failing_seed and found.alone_passing_seed is False:
        return None  # the seed decides: rng
    if found.replay_failing_order is None:
        return PROBE_REPLAY_FAILING_ORDER
    if found.has_passing_run and found.replay_passing_order is None:
        return PROBE_REPLAY_PASSING_ORDER
    if _order_decides(found):
        return None
    if found.load_runs < LOAD_RUNS:
        return PROBE_CPU_LOAD
    return None


def _order_decides(found: Probes) -> bool:
    passing_order_failed = (
        found.replay_passing_order if found.has_passing_run else found.alone_failing_seed
    )
    return bool(found.replay_failing_order) and passing_order_failed is False


@dataclass(frozen=True)
class Classification:
    flake_class: FlakeClass
    confidence: float
    reason: str


def classify(found: Probes, failure_text: str = "") -> Classification:
    """The flake class from the probes (never from the code), with how sure it is."""
    if found.network_attempts:
        looks = bool(_NETWORK_TEXT.search(failure_text))
        where = ", ".join(found.network_attempts[:3])
        return Classification(
            "network",
            0.9 if looks else 0.75,
            f"opened a network connection ({where}) when run alone with sockets blocked"
            + ("; its failure reads like a network error" if looks else ""),
        )
    if found.alone_failing_seed and found.alone_passing_seed is False:
        return Classification(
            "rng",
            0.85,
            "run alone, it fails with the failing run's seed and passes with a passing run's seed",
        )
    if _order_decides(found):
        alone = found.alone_failing_seed is False
        return Classification(
            "order",
            0.9 if alone or found.has_passing_run else 0.8,
            "replaying the failing run's order up to it fails again, and "
            + (
                "a passing run's order with the same seed passes"
                if found.has_passing_run
                else "it passes alone"
            ),
        )
    if found.load_failures:
        share = found.load_failures / max(found.load_runs, 1)
        return Classification(
            "timing",
            round(0.5 + 0.4 * share, 2),
            f"failed {found.load_failures} of {found.load_runs} runs alone under CPU load",
        )
    return Classification(
        "env",
        0.3,
        "no probe reproduced the failure (not the order, the seed, the network or CPU load)",
    )


# --------------------------------------------------------------------------- evidence


def failure_signature(message: str) -> str:
    """Exception type and first line of a failure, from pytest's long report text."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    for line in lines:
        if line.startswith("E "):
            return line[2:].strip()[:200]
    return lines[-1][:200] if lines else "failed without a message"


def first_failing(runs: Sequence[SweepRun], nodeid: str) -> SweepRun | None:
    return next((run for run in runs if run.failed(nodeid)), None)


def first_passing(runs: Sequence[SweepRun], nodeid: str) -> SweepRun | None:
    return next((run for run in runs if not run.failed(nodeid)), None)


def prefix(order: Sequence[str], nodeid: str) -> tuple[str, ...]:
    """The order up to and including `nodeid` (just `nodeid` if it is not in the order)."""
    if nodeid not in order:
        return (nodeid,)
    return tuple(order[: list(order).index(nodeid) + 1])


def run_record(run: SweepRun, nodeid: str) -> dict[str, Any]:
    attempt = run.outcomes.get(nodeid, Attempt("missing"))
    return {
        "run": run.plan.index + 1,
        "mode": run.plan.mode,
        "order_seed": run.plan.order_seed,
        "rng_seed": run.plan.rng_seed,
        "order": list(run.order),
        "outcome": attempt.outcome,
        "message": attempt.message,
    }


def bundle(  # noqa: PLR0913 - keyword-only fields of one bundle
    *,
    kind: str,
    nodeid: str,
    commit: str,
    seed: int,
    created_at: str,
    env_fingerprint: Mapping[str, Any],
    attempts: Sequence[Mapping[str, Any]],
    probes: Sequence[Mapping[str, Any]] = (),
    summary: Mapping[str, Any],
) -> dict[str, Any]:
    """An evidence bundle: every attempt's outcome, seeds, order and failure text."""
    return {
        "format": BUNDLE_FORMAT,
        "kind": kind,
        "nodeid": nodeid,
        "commit": commit,
        "seed": seed,
        "created_at": created_at,
        "env_fingerprint": dict(env_fingerprint),
        "attempts": [dict(a) for a in attempts],
        "probes": [dict(p) for p in probes],
        "summary": dict(summary),
    }


def bundle_bytes(obj: Mapping[str, Any]) -> bytes:
    """The bundle as written to disk; its sha256 is the ledger's evidence_hash."""
    return (json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


# --------------------------------------------------------------------------- triage


def triage_label(base_failures: int, head_failures: int, head_runs: int, on_base: bool) -> str:
    """How a scoring test that failed on head relates to the base (same machine, same mode).

    A failure in any base run means it is already failing on base; a test the base does not
    have is judged by head alone. Otherwise failing every head rerun is a regression, and
    anything less (the gate's own run failed it, so it is intermittent) is flaky under the
    patch.
    """
    if on_base and base_failures > 0:
        return LABEL_FAILING_ON_BASE
    if head_failures >= head_runs:
        return LABEL_REGRESSION
    return LABEL_FLAKY_UNDER_PATCH
