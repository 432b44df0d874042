"""Rendered reports against golden files, which tests/fixtures.lock.json locks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from planegate.config import manifest as fixtures
from planegate.findings import Finding, Severity, Step
from planegate.repo.hashing import file_sha256
from planegate.report import (
    NewTestResult,
    ProbeRecord,
    Report,
    ShadowResult,
    StepResult,
    json_report,
    markdown,
    text,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"

REPORT = Report(
    base="a" * 40,
    head="b" * 40,
    merge_base="c" * 40,
    merged="d" * 40,
    agent=True,
    digest_source="recomputed from git at the base tip aaaaaaaaaaaa",
    steps=(
        StepResult(
            Step.INVENTORY,
            (
                Finding(
                    "PG201",
                    Step.INVENTORY,
                    Severity.ERROR,
                    "tests/test_x.py::test_x is in no plane",
                    path="tests/test_x.py",
                    owner="@org/plane-map",
                    nodeid="tests/test_x.py::test_x",
                ),
            ),
            ("3 nodeids: 1 property, 1 fixture, 0 freeze, 1 unclassified",),
        ),
        StepResult(
            Step.EVIDENCE,
            (
                Finding(
                    "PG302",
                    Step.EVIDENCE,
                    Severity.ERROR,
                    "tests/fix/data/g.txt changed: locked 0123456789ab, found ba9876543210 "
                    "(on the head)",
                    path="tests/fix/data/g.txt",
                    owner="@org/goldens",
                    plane="fixture",
                ),
                Finding(
                    "PG301",
                    Step.EVIDENCE,
                    Severity.ERROR,
                    "protected tests/fix/data/g.txt modified",
                    path="tests/fix/data/g.txt",
                    owner="@org/goldens",
                    plane="fixture",
                ),
            ),
            ("2 changed paths, 1 protected",),
        ),
        StepResult(Step.LEDGER),
        StepResult(
            Step.HUNKS,
            (
                Finding(
                    "PG501",
                    Step.HUNKS,
                    Severity.ERROR,
                    "pytest.mark.skip added",
                    path="tests/fix/test_g.py",
                    line=7,
                    owner="agent[bot]",
                    plane="fixture",
                ),
            ),
            ("1 changed test files analysed",),
        ),
        StepResult(
            Step.PLANES,
            (
                Finding(
                    "PG101",
                    Step.PLANES,
                    Severity.ERROR,
                    "tests/prop/test_p.py::test_p failed: assert 1 == 2",
                    path="tests/prop/test_p.py",
                    owner="agent[bot]",
                    plane="property",
                    nodeid="tests/prop/test_p.py::test_p",
                ),
            ),
            ("1/2 expected nodeids passed",),
        ),
    ),
    shadow=(ShadowResult("tests/fix/test_t.py::test_slow", "failed", "@org/flakes"),),
    new_tests=(NewTestResult("tests/test_mean.py::test_mean", "passed", "unclassified"),),
    classify=("planes:", "  fixture:", "    nodeids:", '      - "tests/test_mean.py"'),
    probes=(
        ProbeRecord("base run", "pass", 1.25, 1, "1 of 2 scoring test files import the change"),
        ProbeRecord("alone", "fail", 0.5, 1, "1 failed"),
    ),
)


def test_text_report_matches_golden() -> None:
    assert text.render(REPORT, color=False) == (GOLDEN / "report.txt").read_text("utf-8")


def test_the_terminal_ends_with_the_total_time_not_every_timer() -> None:
    timed = replace(REPORT, timings={"context": 0.31, "head run": 9.5, "total": 12.34})
    last = text.render(timed, color=False).rstrip("\n").splitlines()[-1]
    assert last == "took 12.3 s (each part's time is in the JSON report's timings)"
    assert "head run" not in text.render(timed, color=False)
    verbose = text.render(timed, color=False, verbose=True).rstrip("\n").splitlines()
    assert verbose[-2:] == [last, "seconds: context 0.31, head run 9.50, total 12.34"]


def test_job_summary_matches_golden() -> None:
    """The job summary: the gate's order as a Mermaid diagram (the deciding step marked), the
    tables by step and by plane, then the findings."""
    rendered = markdown.render_job_summary(REPORT, markdown.MarkdownContext(repository="o/r"))
    assert rendered == (GOLDEN / "job_summary.md").read_text("utf-8")


def test_json_report_matches_golden() -> None:
    assert json_report.render(REPORT) == (GOLDEN / "report.json").read_text("utf-8")


def test_golden_files_match_our_fixture_manifest() -> None:
    manifest = fixtures.parse(
        (ROOT / "tests/fixtures.lock.json").read_text("utf-8"), "tests/fixtures.lock.json"
    )
    goldens = {p.relative_to(ROOT).as_posix(): p for p in GOLDEN.iterdir() if p.is_file()}
    assert goldens, "no golden files"
    actual: dict[str, str | None] = {path: file_sha256(p) for path, p in goldens.items()}
    assert fixtures.verify(manifest, actual) == []
