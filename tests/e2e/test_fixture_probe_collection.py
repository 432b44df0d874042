"""A fixture test file that reads its locked data at collection (a parametrize list loaded
from a JSON file, as markdown-it-py's spec tests do) fails to collect when the probe changes
a byte of that data: its tests noticed the change. The probe's session still runs the other
candidates, on the patch and on main's tree for the digest, so an always-true comparison in
another fixture test is not hidden behind that collection error, and main's digest still
records its signs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main

CASES = "tests/fix/data/cases.json"
LABEL = "tests/fix/test_label.py::test_label_golden"
FILES: dict[str, str | bytes] = {
    "tests/fix/test_cases.py": (
        "import json\nfrom pathlib import Path\n\nimport pytest\n\nfrom calc.core import add\n\n"
        "ROWS = json.loads((Path(__file__).parent / 'data' / 'cases.json').read_text())\n\n\n"
        "@pytest.mark.parametrize(('a', 'b', 'total'), ROWS)\n"
        "def test_sum(a, b, total):\n    assert add(a, b) == total\n"
    ),
    CASES: json.dumps([[1, 2, 3], [2, 2, 4], [10, 5, 15]]),
}
ALWAYS_EQUAL = (
    "class Label(str):\n    def __eq__(self, other):\n        return isinstance(other, str)\n\n"
    "    __hash__ = str.__hash__\n\n\n"
    "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return Label(f'N={n}')\n"
)


def _setup(project: TestRepo) -> Path:
    data = {path: text for path, text in PROJECT.items() if path.startswith("tests/fix/data/")}
    project.commit(
        "cases read at collection",
        {**FILES, "tests/fixtures.lock.json": manifest_for({**data, **FILES})},
    )
    digest = project.root.parent / "digest.json"
    assert main(["-C", str(project.root), "digest", "--out", str(digest), "-q"]) == 0
    return digest


def _gate(
    project: TestRepo, capsys: pytest.CaptureFixture[str], digest: Path | None
) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    given = ["--digest", str(digest)] if digest else []
    args = ["-C", str(project.root), "gate", "--base", "main", *given, "--format", "json", "-q"]
    code = main(args)
    return code, json.loads(capsys.readouterr().out)


def _rules(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == rule]


def test_mains_digest_records_its_signs_though_a_file_fails_to_collect(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = _setup(project)
    signs = json.loads(digest.read_text("utf-8"))["run"]["signs"]
    assert set(signs["probed"]) >= {LABEL, "tests/fix/test_cases.py::test_sum[1-2-3]"}
    assert signs["survivors"] == []  # the cases did not collect: caught, as the golden test was

    project.branch("comment")
    core = (project.root / "calc/core.py").read_text("utf-8")
    project.commit("a comment", {"calc/core.py": "# arithmetic\n" + core})
    code, report = _gate(project, capsys, digest)

    assert code == 0, report
    assert not _rules(report, "PG106")
    (planes,) = [s for s in report["steps"] if s["step"] == "planes"]
    assert "main's signs read from main's run in the digest" in planes["notes"]


@pytest.mark.parametrize("with_digest", [True, False])
def test_an_always_true_comparison_is_not_hidden_behind_a_collection_error(
    project: TestRepo, capsys: pytest.CaptureFixture[str], with_digest: bool
) -> None:
    digest = _setup(project)
    project.branch("always-equal")
    project.commit("labels", {"calc/core.py": ALWAYS_EQUAL})

    code, report = _gate(project, capsys, digest if with_digest else None)

    assert code != 0
    assert [(f["nodeid"], f["severity"]) for f in _rules(report, "PG106")] == [(LABEL, "error")]
