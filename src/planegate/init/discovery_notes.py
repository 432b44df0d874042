"""What `init` and `lock` say after running the suite traced (init/discover.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from planegate.config import default_evidence
from planegate.config import load as config_mod
from planegate.config.planemap import PlaneMap
from planegate.config.protection import Protection
from planegate.init import discover
from planegate.init.propose import Proposal
from planegate.runner import pytest_ini
from planegate.runner.session import RunResult


def _ini(root: Path) -> dict[str, object]:
    return discover.checkout_ini(root)


def propose_data(root: Path, proposal: Proposal, traced: RunResult, verbose: bool = False) -> None:
    """From init's traced run of the suite: `data` patterns for every tracked file its tests
    read, notes on helpers, on tests that read the package and on tests that read nothing,
    under the proposed planes."""
    cfg = config_mod.parse(proposal.text, "planegate.yml")
    files = discover.tracked_files(root)
    evidence = _protection_evidence(root, cfg, files)
    found = discover.summarise(_renamed(traced, proposal.renamed), PlaneMap(cfg), evidence, files)
    protection = Protection(cfg, evidence.paths)
    test_side = frozenset(evidence.test_side)
    data = [p for p in found.reads if p not in test_side and not protection.covers(p)]
    proposal.data = discover.data_patterns(data, files)  # tests and helpers are evidence already
    notes = [
        f"data: {pattern} (read by tests; locked by `planegate lock`)" for pattern in proposal.data
    ]
    notes += [
        f"helper: {path} (imported by plane tests: evidence by default)" for path in found.helpers
    ]
    notes += package_notes(found)
    notes += read_nothing_notes(found, verbose)
    proposal.notes += notes


def package_notes(found: discover.Discovery) -> list[str]:
    """One line per test that reads the project's own source (a packaging test): noted, never
    data (config/production.py)."""
    return [
        f"reads the package: {nodeid} (production source and project metadata are never "
        "fixture data)"
        for nodeid in found.read_package
    ]


def read_nothing_notes(found: discover.Discovery, verbose: bool) -> list[str]:
    """One summary line; each test's line only with `--verbose`."""
    count = len(found.read_nothing)
    if not count:
        return []
    notes = [
        f"reads no file: {count} scoring tests (their expected values are in the test files, "
        "locked with them)" + ("" if verbose else "; `--verbose` lists them")
    ]
    if verbose:
        notes += [f"reads no file: {nodeid}" for nodeid in found.read_nothing]
    return notes


def lock_warnings(
    root: Path, cfg: config_mod.Config, locked: Mapping[str, str], trace: bool
) -> list[str]:
    """One line per problem: a fixture plane with tests and nothing locked; a tracked file
    tests read that is neither locked, nor otherwise protected, nor production source."""
    files = discover.tracked_files(root)
    warnings = []
    if not locked and _fixture_has_tests(cfg, files):
        warnings.append(
            f"the fixture plane has tests but {cfg.manifest} locks no file: name the files they "
            "read in planes.fixture.data (`planegate init` proposes patterns)"
        )
    if not trace:
        return warnings
    found = discover.discover(root, cfg, _ini(root))
    protection = _protection(root, cfg, files)
    excluded = default_evidence.exclusion(cfg)
    for path, tests in found.reads.items():
        if path in locked or protection.covers(path) or excluded.match_file(path):
            continue
        more = f" and {len(tests) - 1} more" if len(tests) > 1 else ""
        warnings.append(
            f"{path} is read by {tests[0]}{more} but is not locked: add it to "
            "planes.fixture.data and run `planegate lock` again"
        )
    if not found.closed:
        warnings.append("the traced run did not finish: files tests read may be missing here")
    return warnings


def _fixture_has_tests(cfg: config_mod.Config, files: list[str]) -> bool:
    plane_map = PlaneMap(cfg)
    if cfg.planes["fixture"].nodeids:
        return True
    return any(plane_map.plane_of_file(p) == "fixture" for p in files if p.endswith(".py"))


def _protection(root: Path, cfg: config_mod.Config, files: list[str]) -> Protection:
    """What the gate protects in this checkout: the patterns and the default default_evidence."""
    return Protection(cfg, _protection_evidence(root, cfg, files).paths)


def _protection_evidence(
    root: Path, cfg: config_mod.Config, files: list[str]
) -> default_evidence.DefaultEvidence:
    def read(path: str) -> bytes | None:
        return (root / path).read_bytes() if (root / path).is_file() else None

    return default_evidence.collect(cfg, files, read, pythonpath=pytest_ini.pythonpath(_ini(root)))


def _renamed(result: RunResult, renamed: Mapping[str, str]) -> RunResult:
    """The run's nodeids as they are after `init --split` moved tests to other files."""
    if not renamed:
        return result

    def new(nodeid: str) -> str:
        return renamed.get(nodeid, nodeid)

    return replace(
        result,
        collected=tuple(new(n) for n in result.collected),
        outcomes={new(n): outcome for n, outcome in result.outcomes.items()},
        reads={new(n): reads for n, reads in result.reads.items()},
    )
