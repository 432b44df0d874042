"""Findings of the observed signs, each weighed against what the base showed under the same
conditions (signs/compare.py): the patch is blamed only for what main does not show.

PG562 (hunks, exit 5): production code opened a file the test side reads (the oracle), whatever
the path's spelling; a warning when main's production code opened the same file in the same
test on the base. Production code opening a locked file no test reads (an input) is a warning
for the reviewer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from planegate import untrusted
from planegate.config.planemap import file_of
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.probes.fixture.wire import ProbeResult
from planegate.runner.session import RunResult, Tamper
from planegate.signs.compare import MainsSigns, harness_sign, mains_harness, mains_read
from planegate.signs.lines import MainsLines

ORACLE = "which main's tests read as their expected values"


def fixture_findings(
    ctx: GitFacts, probed: ProbeResult, signs: MainsSigns, owner: str
) -> list[Finding]:
    """PG106 for a survivor the base caught (or that the base could not tell about); PG113,
    a warning for the fixture plane's owner, for one that survives on the base too."""
    found = [
        _mains_survivor(
            ctx,
            nodeid,
            f"{nodeid} passes on main with every byte of {', '.join(files)} changed (main's "
            "digest; not run again on the patch)",
        )
        for nodeid, files in probed.as_on_main
    ]
    for nodeid, files in probed.survivors:
        what = f"{nodeid} still passes with one byte of {', '.join(files)} changed"
        if nodeid in signs.survivors:
            found.append(_mains_survivor(ctx, nodeid, f"{what}, on main too"))
            continue
        found.append(
            Finding(
                "PG106",
                Step.PLANES,
                Severity.ERROR,
                f"{what}: it does not check its locked data",
                path=file_of(nodeid),
                owner=owner,
                plane="fixture",
                nodeid=nodeid,
            )
        )
    return found


def _mains_survivor(ctx: GitFacts, nodeid: str, what: str) -> Finding:
    """PG113: a fixture survivor that is main's state, a warning for the plane's owner."""
    return Finding(
        "PG113",
        Step.PLANES,
        Severity.WARNING,
        f"{what}: main's test does not check that data (an input it reads only in part, or "
        "a comparison main already makes lenient)",
        path=file_of(nodeid),
        owner=ctx.who.of_plane("fixture", file_of(nodeid)),
        plane="fixture",
        nodeid=nodeid,
    )


def notes(signs: MainsSigns) -> tuple[str, ...]:
    """What main showed (its run in the digest, or the base's sessions), for the planes
    step's notes."""
    found = []
    if signs.recorded:
        found.append("main's signs read from main's run in the digest")
    if signs.survivors or signs.caught:
        found.append(
            f"fixture survivors compared with main: {len(signs.survivors)} survive there too, "
            f"{len(signs.caught)} caught"
        )
    if signs.traced:
        found.append(
            f"signs compared with main's: production reads under {len(signs.prod_reads)} keys, "
            f"{len(signs.harness)} harness changes main's run shows"
        )
    return (*found, *signs.problems)


def tamper_finding(
    t: Tamper,
    owner: str,
    mains: MainsLines,
    signs: MainsSigns,
    fed: Callable[[str], tuple[str, ...]] = lambda _path: (),
) -> Finding:
    """PG107, or PG112 when main's own code shows it: a harness change the integrity checks
    saw (no line of the tree made it; the file and line are those of the inserted object) is
    main's when the base's session shows the same change and nothing that fed it changed
    (`fed`: what the patch changed of the code at a path and of what it read; of the file
    defining the object, only the function or class around that object counts, so a patch
    elsewhere in the file feeds nothing); a sign about a file of the tree (no line) is main's
    when main has the file and the patch leaves it as it is; any other sign is main's when a
    line main already had, unchanged, raised it."""
    if harness_sign(t) is not None:
        main_s = mains_harness(t, signs, mains.base_line)
        changed = fed(t.path) if main_s and t.path else ()
        if t.path in changed and not mains.definition_changed(t.path, t.line):
            changed = tuple(path for path in changed if path != t.path)
        on_main = ", as on main" if main_s else ""
        if changed:
            main_s = False
            on_main = (
                ", as on main, but the patch changes what feeds it: "
                + ", ".join(changed)
                + " (the code that made the change, or a file it read during the run)"
            )
    elif t.path and not t.line:  # a file of the tree (committed bytecode, a link out)
        main_s = mains.on_base(t.path) and t.path not in fed(t.path)
        on_main = ", a file main has as it is" if main_s else ""
    else:
        main_s = bool(t.path and t.line and mains.is_mains(t.path, t.line))
        on_main = ""
    what = "main's own code" if main_s else "the run was tampered with"
    return Finding(
        "PG112" if main_s else "PG107",
        Step.PLANES,
        Severity.WARNING if main_s else Severity.ERROR,
        untrusted.one_line(f"{what}: {t.event}" + _where(t.path, t.line) + on_main),
        path=t.path or None,
        line=t.line or None,
        owner=owner,
    )


def _where(path: str | None, line: int | None) -> str:
    if path and line:
        return f" at {path}:{line}"
    return f" in {path}" if path else ""


class SignsRun(Protocol):
    """What the signs' findings read of the run (the steps' `RunFacts` satisfies it)."""

    @property
    def head_run(self) -> RunResult: ...
    @property
    def mains_signs(self) -> MainsSigns: ...


def oracle_findings(ctx: GitFacts, run: SignsRun, locked: Iterable[str]) -> list[Finding]:
    """PG562: production code opened what the test side reads (an error, unless main's
    production code opened it under the same test on the base: then a warning for the
    fixture plane's owner) or a locked file (a warning: inputs are read by production code by
    design)."""
    reads = run.head_run.reads
    test_side = {path for r in reads.values() for path in r.test}
    prod = sorted({path for r in reads.values() for path in r.prod})
    locked_set = set(locked)
    findings = []
    for path in prod:
        owner = ctx.author
        if path in test_side and mains_read(path, reads, run.mains_signs):
            severity, why = Severity.WARNING, f"{ORACLE}; main's production code opens it too"
            owner = ctx.who.of_plane("fixture", path)
        elif path in test_side:
            severity, why = Severity.ERROR, ORACLE
        elif path in locked_set:
            severity, why = Severity.WARNING, "a locked file (fine for an input; not for answers)"
        else:
            continue
        findings.append(
            Finding(
                "PG562",
                Step.HUNKS,
                severity,
                f"production code reads the oracle: it opened {path}, {why}",
                path=path,
                owner=owner,
            )
        )
    return findings
