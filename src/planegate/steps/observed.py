"""What the traced run (runner/child/reads.py) showed of evidence: files main's scoring tests read.

PG308 (evidence, exit 3): a file read from the test side by a scoring test, changed by the
patch, and not protected (not locked, named by no pattern, not default evidence): the test now
compares against the patch's bytes. The gate reruns those tests with main's bytes for the
planes step (gate/execute.py). Production code opening what the test side reads (PG562) is an
observed sign: signs/findings.py.
"""

from __future__ import annotations

from collections.abc import Callable

from planegate.config import default_evidence
from planegate.config.planemap import file_of
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.pyimports import parent
from planegate.runner.session import RunResult
from planegate.steps.run_facts import RunFacts
from planegate.vocabulary import SCORING_PLANES

SHOWN = 3


def readers(ctx: GitFacts, run: RunResult, wanted: Callable[[str], bool]) -> dict[str, list[str]]:
    """File read from the test side (each that `wanted` keeps) -> the scoring tests that read
    it. Reads outside any test are keyed by the reading module: a test module's reads count
    for its tests, a conftest's or helper's for the tests below its folder. Linear in the
    reads: tests are indexed by file once (a real suite has thousands of tests, each with its
    own reads), and only the wanted files' readers are gathered and sorted (a module-level
    read of 500 data files by a module of 7,000 tests is 3.5 million names otherwise); when
    no wanted file was read, the tests are not indexed at all."""
    hits = _wanted_reads(run, wanted)
    if not hits:
        return {}  # no wanted file was read: the tests need not be indexed
    by_file: dict[str, list[str]] = {}
    for nodeid in run.outcomes:
        if ctx.plane_map.plane_of(nodeid) in SCORING_PLANES:
            by_file.setdefault(file_of(nodeid), []).append(nodeid)
    scoring = {n for tests in by_file.values() for n in tests}
    found: dict[str, set[str]] = {}
    for key, paths in hits:
        own = [key] if key in scoring else []
        tests = own if "::" in key else _tests_of_module(key, by_file)
        if not tests:
            continue
        for path in paths:
            found.setdefault(path, set()).update(tests)
    return {path: sorted(tests) for path, tests in sorted(found.items())}


def _wanted_reads(run: RunResult, wanted: Callable[[str], bool]) -> list[tuple[str, list[str]]]:
    """(reading key, the wanted files it read from the test side) for each key that read one;
    `wanted` is asked once a file."""
    kept: dict[str, bool] = {}
    hits = []
    for key, reads in run.reads.items():
        paths = []
        for path in reads.test:
            keep = kept.get(path)
            if keep is None:
                keep = kept[path] = wanted(path)
            if keep:
                paths.append(path)
        if paths:
            hits.append((key, paths))
    return hits


def _tests_of_module(module: str, by_file: dict[str, list[str]]) -> list[str]:
    own = by_file.get(module)
    if own:
        return own
    folder = parent(module)
    return [
        n
        for path, tests in by_file.items()
        if not folder or path.startswith(folder + "/")
        for n in tests
    ]


def unlocked_changes(ctx: GitFacts, run: RunResult) -> dict[str, list[str]]:
    """Files scoring tests read, that the patch changed, and that nothing protects; never
    production source (config/production.py: a packaging test reads the project, not data)."""
    changed = {c.path for c in ctx.changes} | {c.old_path for c in ctx.changes if c.old_path}
    excluded = default_evidence.exclusion(ctx.cfg)
    production = ctx.evidence.production
    return readers(
        ctx,
        run,
        lambda path: (
            path in changed
            and not ctx.protection.covers(path)
            and not excluded.match_file(path)
            and not production.covers(path)
        ),
    )


def evidence_findings(ctx: GitFacts, run: RunFacts) -> list[Finding]:
    findings = []
    for path, tests in unlocked_changes(ctx, run.head_run).items():
        plane = ctx.plane_map.plane_of(tests[0])
        shown = ", ".join(tests[:SHOWN]) + (
            f" and {len(tests) - SHOWN} more" if len(tests) > SHOWN else ""
        )
        findings.append(
            Finding(
                "PG308",
                Step.EVIDENCE,
                Severity.ERROR,
                f"unlocked evidence changed: {path} is read by {shown}; the patch changed it "
                "and nothing locks it (those tests ran again with main's bytes)",
                path=path,
                owner=ctx.who.of_plane(plane, path),
                plane=plane,
                nodeid=tests[0],
            )
        )
    return findings
