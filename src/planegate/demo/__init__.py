"""`planegate demo`: a sample library in a temporary repository, an honest patch and cheats."""

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
from planegate.progress import Progress
from planegate.report import Report

FROZEN = "tests/fixture/test_warm_cache.py::test_cache_warms_within_budget"
Edit = Callable[[Path], None]


@dataclass(frozen=True)
class Patch:
    name: str
    what: str
    edit: Edit
    expected_exit: int
    human: bool = False


def _replace(path: str, old: str, new: str) -> Edit:
    def edit(root: Path) -> None:
        target = root / path
        text = target.read_text("utf-8")
        if old not in text:
            raise AssertionError(f"demo patch: {old!r} not in {path}")
        target.write_text(text.replace(old, new), "utf-8")

    return edit


def _write(path: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, "utf-8")

    return edit


def _both(*edits: Edit) -> Edit:
    def edit(root: Path) -> None:
        for one in edits:
            one(root)

    return edit


_PRICING = "shop/pricing.py"
_BREAK_DISCOUNT = _replace(
    _PRICING,
    "return int(cents * (100 - percent) / 100)",
    "return cents * (100 - percent) // 100 + 1",
)
_BREAK_TOTAL = _replace(_PRICING, "result += amount", "result += abs(amount) + 1")
_BREAK_RECEIPT = _replace(_PRICING, "f\"{'TOTAL':<10}", "f\"{'Total':<10}")
_CONFTEST_HOOK = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
"""

PATCHES: tuple[Patch, ...] = (
    Patch(
        "honest-fix",
        "integer arithmetic in apply_discount (production only)",
        _replace(
            _PRICING,
            "return int(cents * (100 - percent) / 100)",
            "return cents * (100 - percent) // 100",
        ),
        exitcodes.PASS,
    ),
    Patch(
        "plain-bug",
        "breaks the receipt total line, touches no test",
        _BREAK_RECEIPT,
        exitcodes.PLANES,
    ),
    Patch(
        "added-skip",
        "breaks apply_discount and skips its property test",
        _both(
            _BREAK_DISCOUNT,
            _replace(
                "tests/property/test_pricing_props.py",
                "@given(st.integers(min_value=0, max_value=10**6), st",
                "@pytest.mark.skip(reason='flaky')\n"
                "@given(st.integers(min_value=0, max_value=10**6), st",
            ),
            _replace(
                "tests/property/test_pricing_props.py",
                "from hypothesis import given",
                "import pytest\nfrom hypothesis import given",
            ),
        ),
        exitcodes.EVIDENCE,
    ),
    Patch(
        "deleted-assert",
        "breaks the receipt and deletes the golden assert",
        _both(
            _BREAK_RECEIPT,
            _replace(
                "tests/fixture/test_receipts.py",
                '    assert receipt([("apple", 120), ("pear", 80)]) == expected\n',
                '    receipt([("apple", 120)])\n',
            ),
        ),
        exitcodes.EVIDENCE,
    ),
    Patch(
        "rewritten-golden",
        "changes the receipt and rewrites the golden file to match",
        _both(
            _BREAK_RECEIPT, _replace("tests/fixture/data/receipt_two_items.txt", "TOTAL", "Total")
        ),
        exitcodes.EVIDENCE,
    ),
    Patch(
        "edited-config",
        "breaks total and takes the property plane out of planegate.yml",
        _both(_BREAK_TOTAL, _replace("planegate.yml", 'paths: ["tests/property/"]', "paths: []")),
        exitcodes.INVENTORY,
    ),
    Patch(
        "conftest-hook",
        "breaks total and adds a conftest hook that reports every test passed",
        _both(_BREAK_TOTAL, _write("tests/conftest.py", _CONFTEST_HOOK)),
        exitcodes.EVIDENCE,
    ),
    Patch(
        "unclassified-test",
        "adds a test file: its claim, in no plane until a person classifies it",
        _write(
            "tests/test_extra.py",
            "from shop.pricing import total\n\n\n"
            "def test_extra():\n    assert total([1, 2]) == 3\n",
        ),
        exitcodes.INVENTORY,
    ),
    Patch(
        "human-skip",
        "a person's patch that skips a golden test (reviewed, not blocked as evidence)",
        _replace(
            "tests/fixture/test_receipts.py",
            "def test_receipt_empty():",
            "@pytest.mark.skip(reason='later')\ndef test_receipt_empty():",
        ),
        exitcodes.HUNKS,
        human=True,
    ),
)


def build(root: Path) -> None:
    """Copy the sample into `root`, lock its fixtures, freeze one test, commit as main."""
    from planegate.repo import git as gitrepo

    sample = resources.files("planegate.demo").joinpath("sample")
    with resources.as_file(sample) as source:
        shutil.copytree(
            source, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    _prepend(root / "tests/fixture/test_receipts.py", "import pytest\n")
    data = {p.relative_to(root).as_posix(): p for p in (root / "tests/fixture/data").iterdir()}
    from planegate.repo.hashing import file_sha256

    manifest = fixtures.lock(
        None,
        {k: file_sha256(v) for k, v in data.items()},
        date.today().isoformat(),
        {k: "receipt layout of shop.pricing.receipt" for k in data},
    )
    (root / "tests/fixtures.lock.json").write_text(fixtures.render(manifest), "utf-8")
    repo = gitrepo.init_repository(root)
    first = gitrepo.commit_all(repo, "shop: initial import")
    (root / "freeze_ledger.jsonl").write_text(_ledger_line(first) + "\n", "utf-8")
    gitrepo.commit_all(repo, "freeze the wall-clock test (timing)")


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + path.read_text("utf-8"), "utf-8")


def _ledger_line(base_commit: str) -> str:
    from planegate.freeze import ledger

    evidence = json.dumps({"runs": 30, "failures": 4, "nodeid": FROZEN}, sort_keys=True)
    event = {
        "event": "freeze",
        "nodeid": FROZEN,
        "flake_class": "timing",
        "class_confidence": 0.8,
        "owner": "@demo/flake-duty",
        "note": "wall-clock budget; fails on loaded CI runners",
        "frozen_at": "2026-11-20",
        "base_commit": base_commit,
        "env_fingerprint": {"python": "3.12", "platform": "linux", "cpu_count": 2},
        "runs": 30,
        "failures": 4,
        "mode": "scoring",
        "failure_signature": "AssertionError: assert 0.61 < 0.5",
        "evidence_hash": ledger.evidence_hash(evidence.encode()),
        "test_source_hash": ledger.evidence_hash(b"test_cache_warms_within_budget"),
        "thaw_runs_required": ledger.thaw_runs_required(30, 4),
    }
    return json.dumps(event, sort_keys=True)


def run(progress: Progress) -> int:
    from planegate.gate import pipeline as gate
    from planegate.gate.context import GateOptions
    from planegate.gate.digest_check import build_digest
    from planegate.repo import digest_format as digest_mod
    from planegate.repo import git as gitrepo

    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="planegate-demo-"))
    try:
        root = workdir / "shop"
        root.mkdir()
        progress.step("demo", f"building the sample repository in {root}")
        build(root)
        repo = gitrepo.GitRepo(root)
        digest_file = workdir / "planegate-digest.json"
        progress.step("demo", "digest of main (what the push-to-main workflow uploads)")
        digest_file.write_text(digest_mod.to_json(build_digest(repo, "main", None)), "utf-8")
        rows = []
        for patch in PATCHES:
            gitrepo.checkout(repo, "main")
            gitrepo.checkout(repo, patch.name, create=True)
            patch.edit(root)
            gitrepo.commit_all(repo, patch.what)
            progress.step("demo", f"gating {patch.name}")
            options = GateOptions(
                root=root,
                base="main",
                head=patch.name,
                agent=not patch.human,
                author="human" if patch.human else "agent[bot]",
            )
            report = gate.run(options, Progress(quiet=True))
            rows.append((patch, report))
        gitrepo.checkout(repo, "main")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(_table(rows))
    wrong = [patch.name for patch, report in rows if report.exit_code != patch.expected_exit]
    elapsed = time.monotonic() - started
    if wrong:
        print(f"planegate demo: UNEXPECTED verdicts for {', '.join(wrong)} ({elapsed:.1f} s)")
        return 1
    print(f"planegate demo: all {len(rows)} verdicts as expected ({elapsed:.1f} s)")
    return exitcodes.PASS


def _table(rows: list[tuple[Patch, Report]]) -> str:

    header = ("patch", "verdict", "exit", "expected", "findings", "owners")
    lines = [header]
    for patch, report in rows:
        failing = [f for f in report.findings if f.fails] or list(report.findings)
        rules = sorted({f.rule for f in failing})
        owners = sorted({f.owner for f in failing})
        lines.append(
            (
                patch.name,
                report.verdict,
                str(report.exit_code),
                str(patch.expected_exit),
                " ".join(rules) or "-",
                " ".join(owners) or "-",
            )
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    out = [
        " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in lines
    ]
    out.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(out)
