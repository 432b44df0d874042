"""Which sessions probe the tests a patch flips (fail on the base, pass on the head), and the
command that repeats each one (pure). Few sessions, since each costs a pytest start-up:

1. one session of every flipped test, twice each, with strict comparisons (child/
   probe_strict.py) and called plainly (child/probe_plain.py: `@given` tests as a plain loop
   over fresh examples outside Hypothesis' engine, the harness out of sight). A delegated
   comparison is the strict-comparisons probe's finding; any other failure of the first run
   is the plain call's, of the second run (child/probe_repeat.py) the repeat probe's;
2. one session of the flipped `@given` tests with another seed and `factor` times their
   budget (child/probe_fresh.py): the fresh-inputs probe;
3. per flipped test, a fresh process that runs it first (the alone probe), then the rest of
   its file in reverse order, then it again (the module-reversed probe).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from planegate.probes.answers.child import options

STRICT = "strict comparisons"
FRESH = "fresh inputs"
PLAIN = "plain call"
REPEAT = "repeat"
REVERSED = "module reversed"
ALONE = "alone"
KINDS = (STRICT, FRESH, PLAIN, REPEAT, ALONE, REVERSED)
BASE_RUN = "base run"  # the report's record of the base's run that finds the flipped tests
FIXTURE_DATA = "fixture data"  # ... and of the fixture probe
DELEGATED = "comparison delegated to"
PLUGINS = {
    options.STRICT_COMPARE: options.STRICT_MODULE,
    options.FRESH_SEED: options.FRESH_MODULE,
    options.PLAIN_SEED: options.PLAIN_MODULE,
    options.REPEAT_EACH: options.REPEAT_MODULE,
    options.REPEAT_AGAIN: options.REPEAT_MODULE,
}


@dataclass(frozen=True)
class Plan:
    """What the probes need to know. `modules`: each test file with flipped tests -> its
    nodeids as the head's run selected them; `suspects`: the production files the patch
    changed (their classes are the ones strict comparisons watch)."""

    flipped: tuple[str, ...]
    given: frozenset[str] = frozenset()  # flipped tests that are @given tests
    modules: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    suspects: tuple[str, ...] = ()
    seed: int = 1
    factor: int = 5
    examples: int = 100


@dataclass(frozen=True)
class ProbeSession:
    """One pytest session. `runs`: flipped nodeid -> (run nodeid, probe) of each of its runs
    in this session, each of which must pass; `kinds`: the probes the session serves."""

    kinds: tuple[str, ...]
    targets: tuple[str, ...]
    args: tuple[str, ...] = ()
    runs: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)


def sessions(plan: Plan) -> list[ProbeSession]:
    if not plan.flipped:
        return []
    flipped = plan.flipped
    # no production file changed: no class of the patch's can decide a comparison
    strict = (options.STRICT_COMPARE, ",".join(plan.suspects)) if plan.suspects else ()
    args: tuple[str, ...] = (
        *strict,
        *(options.PLAIN_SEED, str(plan.seed), options.PLAIN_EXAMPLES, str(plan.examples)),
        *(options.REPEAT_EACH, "2"),
    )
    runs = {n: ((n, PLAIN), (options.copy_nodeid(n, 2), REPEAT)) for n in flipped}
    kinds = (STRICT, PLAIN, REPEAT) if strict else (PLAIN, REPEAT)
    found = [ProbeSession(kinds, flipped, args, runs)]
    given = tuple(n for n in flipped if n in plan.given)
    if given:
        args = (options.FRESH_SEED, str(plan.seed), options.FRESH_FACTOR, str(plan.factor))
        found.append(ProbeSession((FRESH,), given, args, {n: ((n, FRESH),) for n in given}))
    for nodeid in flipped:
        others = reversed_others(plan.modules.get(nodeid.split("::", 1)[0], ()), nodeid)
        if not others:
            found.append(ProbeSession((ALONE,), (nodeid,), (), {nodeid: ((nodeid, ALONE),)}))
            continue
        again = ((nodeid, ALONE), (options.copy_nodeid(nodeid, 2), REVERSED))
        args = (options.REPEAT_AGAIN, nodeid)
        found.append(ProbeSession((ALONE, REVERSED), (nodeid, *others), args, {nodeid: again}))
    return found


def reversed_others(nodeids: tuple[str, ...], nodeid: str) -> tuple[str, ...]:
    """The rest of the test's file in reverse order."""
    return tuple(n for n in reversed(nodeids) if n != nodeid)


def probe_of(run_probe: str, message: str) -> str:
    """The probe a failed run belongs to: a delegated comparison is strict comparisons'."""
    return STRICT if DELEGATED in message else run_probe


def plugin_args(session: ProbeSession) -> tuple[str, ...]:
    """`-p <module>` for the repro command (the gate hands the plugins over directly)."""
    modules = dict.fromkeys(PLUGINS[a] for a in session.args if a in PLUGINS)
    return tuple(arg for module in modules for arg in ("-p", module))


def repro(session: ProbeSession, nodeid: str, checkout: str, pytest_args: tuple[str, ...]) -> str:
    """A command that reruns the session of `nodeid` as the gate does, after `checkout` (the
    command that gives the tree the gate ran)."""
    targets = session.targets if set(session.kinds) & {ALONE, REVERSED} else (nodeid,)
    args = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += [*pytest_args, *plugin_args(session), *session.args, *targets]
    return f"{checkout} && " + shlex.join(args)
