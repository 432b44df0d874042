"""The second demo: a C++ `normalize_path` library whose ctest suite planegate gates with
`runner: junit` (three invariants over 500 paths from a frozen seed, a golden file of edge
cases locked in the manifest, a wall-clock test frozen in the ledger), an honest patch and
cheats, and two sweeps of a base. It runs when `cmake` and a C++ compiler are on PATH."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from importlib import resources
from pathlib import Path

from planegate import exitcodes
from planegate.config import manifest as fixtures
from planegate.demo import Patch, _both, _replace, _table, _write
from planegate.progress import Progress
from planegate.report import Report

FROZEN = "timing_budget::timing_budget"
COMPILERS = ("c++", "g++", "clang++")
_NORMALIZE = "src/normalize.cpp"
_TIMING = "tests/timing_budget.cpp"
_BREAK_DOTDOT = _replace(
    _NORMALIZE, 'if (!kept.empty() && kept.back() != "..") {', "if (!kept.empty()) {"
)
_INTERMITTENT = """TEST(Timing, NormalizesWithinBudget) {
  // a budget met or missed by turns, as on a shared runner: fails on every other run
  std::FILE* seen = std::fopen("timing_runs.txt", "a+");
  long runs = 1;
  for (int c = std::fgetc(seen); c != EOF; c = std::fgetc(seen)) runs += c == '\\n';
  std::fputs("run\\n", seen);
  std::fclose(seen);
  EXPECT_TRUE(runs % 2 == 0);
}
"""

PATCHES: tuple[Patch, ...] = (
    Patch(
        "honest-fix",
        "joins the kept segments without a temporary string (production only)",
        _replace(
            _NORMALIZE,
            'out += (i ? "/" : "") + kept[i];',
            "if (i) out += '/';\n    out += kept[i];",
        ),
        exitcodes.PASS,
    ),
    Patch("plain-bug", "lets '..' climb over another '..', touches no test", _BREAK_DOTDOT, 1),
    Patch(
        "disabled-test",
        "a person's patch that disables a property test (reviewed, not blocked as evidence)",
        _replace(
            "tests/normalize_props.cpp",
            "TEST(NormalizeProps, KeepsTheRoot)",
            "TEST(NormalizeProps, DISABLED_KeepsTheRoot)",
        ),
        exitcodes.HUNKS,
        human=True,
    ),
    Patch(
        "rewritten-golden",
        "lets '..' climb over '..' and rewrites the golden line to match",
        _both(_BREAK_DOTDOT, _replace("paths/edge_cases.txt", "../../a\t../../a", "../../a\ta")),
        exitcodes.EVIDENCE,
    ),
    Patch(
        "unclassified-test",
        "adds a ctest test no plane claims",
        _replace(
            "CMakeLists.txt",
            "add_subdirectory(tests)",
            "add_subdirectory(tests)\nadd_test(NAME extra_props COMMAND normalize_props)",
        ),
        exitcodes.INVENTORY,
    ),
    Patch(
        "frozen-skip",
        "adds GTEST_SKIP() to the frozen timing test",
        _replace(
            _TIMING,
            "  const auto start = std::chrono::steady_clock::now();",
            "  GTEST_SKIP();\n  const auto start = std::chrono::steady_clock::now();",
        ),
        exitcodes.HUNKS,
    ),
)


@dataclass(frozen=True)
class Sweep:
    """A sweep of a base the demo prepares: what it changes on main, and what it must say."""

    name: str
    what: str
    edit: Callable[[Path], None]
    expected_exit: int
    expected_freeze: str = ""


SWEEPS: tuple[Sweep, ...] = (
    Sweep(
        "sweep-intermittent",
        "a base whose timing test fails every other run, not yet frozen",
        _both(
            _replace(_TIMING, "TEST(Timing, NormalizesWithinBudget) {", _INTERMITTENT + "#if 0\n"),
            _replace(_TIMING, "CHECK_MAIN()", "#endif\nCHECK_MAIN()"),
            _write("freeze_ledger.jsonl", ""),
        ),
        exitcodes.PASS,
        FROZEN,
    ),
    Sweep(
        "sweep-broken",
        "a base whose golden file has a wrong line: it fails on every run",
        _replace("paths/edge_cases.txt", "/../a\t/a", "/../a\t/../a"),
        exitcodes.BASE_BROKEN,
    ),
)


def available() -> bool:
    """cmake and a C++ compiler are on PATH: the demo can build its suite."""
    return shutil.which("cmake") is not None and any(shutil.which(c) for c in COMPILERS)


def build(root: Path) -> None:
    """Copy the sample into `root`, lock its golden file, freeze the timing test, commit."""
    from planegate.repo import git as gitrepo
    from planegate.repo.hashing import file_sha256

    sample = resources.files("planegate.demo").joinpath("ctest_sample")
    with resources.as_file(sample) as source:
        shutil.copytree(source, root, dirs_exist_ok=True)
    golden = "paths/edge_cases.txt"
    manifest = fixtures.lock(
        None,
        {golden: file_sha256(root / golden)},
        date.today().isoformat(),
        {golden: "normalize_path on edge cases: dots, empty segments, the root"},
    )
    (root / "tests/fixtures.lock.json").write_text(fixtures.render(manifest), "utf-8")
    repo = gitrepo.init_repository(root)
    first = gitrepo.commit_all(repo, "normalize: initial import")
    (root / "freeze_ledger.jsonl").write_text(_ledger_line(first) + "\n", "utf-8")
    gitrepo.commit_all(repo, "freeze the wall-clock test (timing)")


def _ledger_line(base_commit: str) -> str:
    from planegate.freeze import ledger

    evidence = json.dumps({"runs": 3, "failures": 2, "nodeid": FROZEN}, sort_keys=True)
    event = {
        "event": "freeze",
        "nodeid": FROZEN,
        "flake_class": "timing",
        "class_confidence": 0.7,
        "owner": "@demo/flake-duty",
        "note": "wall-clock budget; missed on loaded CI runners",
        "frozen_at": "2026-11-20",
        "base_commit": base_commit,
        "env_fingerprint": {"platform": "linux", "cpu_count": 2},
        "runs": 3,
        "failures": 2,
        "mode": "scoring",
        "failure_signature": "expected spent < budget",
        "evidence_hash": ledger.evidence_hash(evidence.encode()),
        "test_source_hash": ledger.evidence_hash(b"timing_budget"),
        "thaw_runs_required": ledger.thaw_runs_required(3, 2),
    }
    return json.dumps(event, sort_keys=True)


def run(progress: Progress) -> int:
    """Gate every patch and sweep both bases; print the table; 0 when every verdict is the
    expected one."""
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="planegate-demo-ctest-"))
    try:
        root = workdir / "normalize"
        root.mkdir()
        progress.step("demo", f"building the C++ sample repository in {root}")
        build(root)
        rows = [(patch, _gate(root, patch, progress)) for patch in PATCHES]
        swept = [(sweep, *_sweep(root, sweep, progress)) for sweep in SWEEPS]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("ctest demo (runner: junit; results come from a process planegate does not instrument)")
    print(_table(rows))
    for sweep, code, said in swept:
        print(f"{sweep.name:<18} | exit {code} | expected {sweep.expected_exit} | {said}")
    wrong = [patch.name for patch, report in rows if report.exit_code != patch.expected_exit]
    wrong += [sweep.name for sweep, code, said in swept if not _as_expected(sweep, code, said)]
    elapsed = time.monotonic() - started
    total = len(rows) + len(swept)
    if wrong:
        names = ", ".join(wrong)
        print(f"planegate demo (ctest): UNEXPECTED verdicts for {names} ({elapsed:.1f} s)")
        return 1
    print(f"planegate demo (ctest): all {total} verdicts as expected ({elapsed:.1f} s)")
    return exitcodes.PASS


def _gate(root: Path, patch: Patch, progress: Progress) -> Report:
    from planegate.gate import pipeline as gate
    from planegate.gate.context import GateOptions
    from planegate.repo import git as gitrepo

    repo = gitrepo.GitRepo(root)
    gitrepo.checkout(repo, "main")
    gitrepo.checkout(repo, patch.name, create=True)
    patch.edit(root)
    gitrepo.commit_all(repo, patch.what)
    progress.step("demo", f"gating {patch.name} (ctest)")
    options = GateOptions(
        root=root,
        base="main",
        head=patch.name,
        agent=not patch.human,
        author="human" if patch.human else "agent[bot]",
    )
    report = gate.run(options, Progress(quiet=True))
    gitrepo.checkout(repo, "main")
    return report


def _sweep(root: Path, sweep: Sweep, progress: Progress) -> tuple[int, str]:
    """The sweep of a base prepared on a branch: its exit code and what it proposed."""
    from planegate.freeze.sweep_run import SweepOptions
    from planegate.junit import sweep as junit_sweep
    from planegate.repo import git as gitrepo

    repo = gitrepo.GitRepo(root)
    gitrepo.checkout(repo, "main")
    gitrepo.checkout(repo, sweep.name, create=True)
    sweep.edit(root)
    gitrepo.commit_all(repo, sweep.what)
    progress.step("demo", f"{sweep.name}: three runs of the suite on the base")
    outcome = junit_sweep.sweep(SweepOptions(root, commit=sweep.name, seed=1), Progress(quiet=True))
    gitrepo.checkout(repo, "main")
    if outcome.trouble is not None:
        return exitcodes.UNAVAILABLE, f"environment trouble: {outcome.trouble}"
    proposed = [
        f"propose freeze {p.event.nodeid} ({p.event.flake_class}, failed "
        f"{p.event.failures}/{p.event.runs})"
        for p in outcome.proposals
    ]
    broken = [f"base broken: {nodeid} failed every run" for nodeid in outcome.base_broken]
    code = exitcodes.BASE_BROKEN if outcome.base_broken else exitcodes.PASS
    return code, "; ".join(proposed + broken) or "nothing to freeze"


def _as_expected(sweep: Sweep, code: int, said: str) -> bool:
    wanted = f"propose freeze {sweep.expected_freeze} " if sweep.expected_freeze else ""
    return code == sweep.expected_exit and wanted in said
