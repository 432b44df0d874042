"""The gate on real repositories: each cheat gets its step's exit code, its finding and owner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.analysis.hunks.batch import POOL_FROM
from planegate.cli import main

BUGGY_CORE = "def add(a, b):\n    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"


def gate(
    repo: TestRepo, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q", *extra])
    report = json.loads(capsys.readouterr().out)
    return code, report


def findings(report: dict[str, Any], rule: str | None = None) -> list[dict[str, Any]]:
    found = [f for step in report["steps"] for f in step["findings"]]
    return [f for f in found if rule is None or f["rule"] == rule]


def test_production_only_fix_passes(project: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    project.branch("fix")
    project.commit(
        "faster add",
        {
            "calc/core.py": "def add(a, b):\n    return b + a\n\n\n"
            "def label(n):\n    return 'n=' + str(n)\n"
        },
    )
    code, report = gate(project, capsys)
    assert (code, report["verdict"], report["exit_code"]) == (0, "pass", 0)
    assert [s["step"] for s in report["steps"]] == [
        "inventory",
        "evidence",
        "ledger",
        "hunks",
        "planes",
    ]
    assert "2/2 expected nodeids passed" in report["steps"][4]["notes"][0]


def test_unclassified_test_exits_2_naming_nodeid_and_owner(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("extra")
    project.commit("more tests", {"tests/test_misc.py": "def test_misc():\n    assert 1 == 1\n"})
    code, report = gate(project, capsys)
    assert code == 2
    (finding,) = findings(report, "PG207")  # a test file the patch adds: its claim
    assert finding["path"] == "tests/test_misc.py"
    assert "(tests/test_misc.py::test_misc)" in finding["message"]
    assert finding["owner"] == "@org/plane-map"


def test_golden_byte_changed_exits_3_naming_file_and_owner(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("golden")
    project.commit(
        "new label",
        {
            "calc/core.py": "def add(a, b):\n    return a + b\n\n\n"
            "def label(n):\n    return f'N={n}'\n",
            "tests/fix/data/label.txt": "N=3",
        },
    )
    code, report = gate(project, capsys)
    assert code == 3
    locked = findings(report, "PG302")
    assert [f["path"] for f in locked] == ["tests/fix/data/label.txt"]
    assert locked[0]["owner"] == "@org/goldens"
    protected = findings(report, "PG301")
    assert [f["path"] for f in protected] == ["tests/fix/data/label.txt"]
    # main's golden still votes: the new label fails it, at its assert's line (8)
    assert [(f["nodeid"], f["path"], f["line"]) for f in findings(report, "PG101")] == [
        ("tests/fix/test_label.py::test_label_golden", "tests/fix/test_label.py", 8)
    ]


def skip_the_golden_test(project: TestRepo) -> None:
    """A branch `skip` whose only change adds a skip marker to the golden test (the cheat)."""
    project.branch("skip")
    source = (project.root / "tests/fix/test_label.py").read_text()
    marked = source.replace("def test_label_golden", "@pytest.mark.skip\ndef test_label_golden")
    project.commit("skip it", {"tests/fix/test_label.py": "import pytest\n" + marked})


def test_skip_added_by_a_person_exits_5(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    skip_the_golden_test(project)
    code, report = gate(project, capsys, "--human")
    assert code == 5
    (skip,) = findings(report, "PG501")
    assert skip["path"] == "tests/fix/test_label.py" and skip["line"] == 7
    review = findings(report, "PG304")
    assert [f["severity"] for f in review] == ["warning"]


def test_same_skip_by_an_agent_fails_evidence_first(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    skip_the_golden_test(project)
    code, report = gate(project, capsys)
    assert code == 3
    failed = {s["step"] for s in report["steps"] if s["status"] == "fail"}
    assert failed == {"evidence", "hunks"}  # every step reports, the first failing one decides


def test_bug_with_no_cheat_exits_1(project: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    project.branch("bug")
    project.commit(
        "bug",
        {
            "calc/core.py": "def add(a, b):\n    return a - b\n\n\n"
            "def label(n):\n    return f'n={n}'\n"
        },
    )
    code, report = gate(project, capsys)
    assert code == 1
    (failed,) = findings(report, "PG101")
    assert failed["nodeid"] == "tests/prop/test_add_props.py::test_add_commutes"
    assert failed["plane"] == "property"


def test_new_conftest_hook_is_removed_and_reported(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("hook")
    project.commit(
        "hook",
        {
            "calc/core.py": BUGGY_CORE,
            "tests/conftest.py": (
                "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
                "def pytest_runtest_makereport(item, call):\n"
                "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
            ),
        },
    )
    code, report = gate(project, capsys)
    assert code == 3
    assert [f["path"] for f in findings(report, "PG301")] == ["tests/conftest.py"]
    assert [f["nodeid"] for f in findings(report, "PG101")] == [
        "tests/prop/test_add_props.py::test_add_commutes"
    ]


def test_deleted_protected_test_is_restored_and_reported(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("gone")
    project.delete("tests/prop/test_add_props.py")
    project.commit("remove property test")
    code, report = gate(project, capsys)
    assert code == 3
    assert [(f["path"], f["message"]) for f in findings(report, "PG301")] == [
        ("tests/prop/test_add_props.py", "protected tests/prop/test_add_props.py deleted")
    ]
    assert "2/2 expected nodeids passed" in report["steps"][4]["notes"][0]


def test_nodeid_vanished_through_production_code_exits_2(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.commit(
        "cases",
        {
            "calc/cases.py": "CASES = [1, 2, 3]\n",
            "tests/fix/test_cases.py": (
                "import pytest\n\nfrom calc.cases import CASES\n\n\n"
                "@pytest.mark.parametrize('n', CASES)\ndef test_case(n):\n    assert n > 0\n"
            ),
        },
    )
    project.branch("fewer")
    project.commit("fewer cases", {"calc/cases.py": "CASES = [1, 2]\n"})
    code, report = gate(project, capsys)
    assert code == 2
    assert [f["nodeid"] for f in findings(report, "PG205")] == [
        "tests/fix/test_cases.py::test_case[3]"
    ]
    assert findings(report, "PG205")[0]["owner"] == "@org/plane-map"


def test_text_report_groups_findings_by_step(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("extra")
    project.commit("more tests", {"tests/test_misc.py": "def test_misc():\n    assert 1 == 1\n"})
    code = main(["-C", str(project.root), "gate", "--base", "main", "-q"])
    out = capsys.readouterr().out
    assert code == 2
    assert out.startswith("planegate: FAIL (exit 2, inventory)")
    assert "[failed] inventory (exit 2)" in out
    assert "PG207 tests/test_misc.py: 1 test the patch adds, in no plane" in out
    assert "[passed] planes — 2/2 expected nodeids passed" in out


def test_failing_test_is_triaged_as_a_regression_with_a_repro(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    config = (project.root / "planegate.yml").read_text()
    project.commit(
        "triage on", {"planegate.yml": config.replace("triage_runs: 0", "triage_runs: 2")}
    )
    project.branch("bug")
    project.commit("bug", {"calc/core.py": BUGGY_CORE})
    code, report = gate(project, capsys)
    assert code == 1
    (failed,) = findings(report, "PG101")
    assert "[regression; repro: git checkout " in failed["message"]
    assert failed["message"].endswith("tests/prop/test_add_props.py::test_add_commutes]")


SELFHOST_CONFIG = "version: 1\nplanes:\n  property: {}\n  fixture:\n    paths: ['tests/']\n"
SELFHOST_PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["src"]\n'


def test_a_project_named_planegate_is_tested_from_its_own_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "selfhost")
    repo.commit(
        "init",
        {
            "planegate.yml": SELFHOST_CONFIG,
            "pyproject.toml": SELFHOST_PYPROJECT,
            "src/planegate/__init__.py": "ANSWER = 42\n",
            "tests/test_answer.py": "from planegate import ANSWER\n\n\ndef test_answer():\n"
            "    assert ANSWER == 42\n",
        },
    )
    repo.branch("patch")
    repo.commit("break it", {"src/planegate/__init__.py": "ANSWER = 41\n"})
    code, report = gate(repo, capsys)
    assert code == 1  # the patch's planegate ran, not the gate's own
    assert [f["nodeid"] for f in findings(report, "PG101")] == ["tests/test_answer.py::test_answer"]


def test_twenty_weakened_test_files_are_each_listed_with_file_line_and_rule(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "def test_value_{n}():\n    value = {n} * 2\n    assert value == {twice}\n"
    files = {f"tests/fix/test_many_{n:02}.py": body.format(n=n, twice=2 * n) for n in range(20)}
    project.commit("twenty tests", files)
    project.branch("weaken")
    weakened = {
        path: text.replace(f"    assert value == {2 * n}\n", "    assert value or True\n")
        for n, (path, text) in enumerate(sorted(files.items()))
    }
    project.commit("weaken", weakened)
    code = main(["-C", str(project.root), "gate", "--base", "main", "--human", "-q"])
    out = capsys.readouterr().out
    assert code == 5
    hunk_lines = [line for line in out.splitlines() if line.startswith("  error   PG503 ")]
    assert [line.split()[2] for line in hunk_lines] == [
        f"tests/fix/test_many_{n:02}.py:3:" for n in range(20)
    ]


def test_a_patch_past_the_pool_threshold_lists_every_weakening_in_file_order(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    count = POOL_FROM + 10
    body = "def test_value_{n}():\n    value = {n} * 2\n    assert value == {twice}\n"
    files = {f"tests/fix/test_bulk_{n:03}.py": body.format(n=n, twice=2 * n) for n in range(count)}
    project.commit("many tests", files)
    project.branch("weaken")
    project.commit(
        "weaken",
        {
            path: text.replace("    assert value == ", "    assert value or True or ")
            for path, text in files.items()
        },
    )
    code = main(["-C", str(project.root), "gate", "--base", "main", "--human", "-q"])
    out = capsys.readouterr().out
    assert code == 5
    hunk_lines = [line for line in out.splitlines() if line.startswith("  error   PG503 ")]
    assert [line.split()[2] for line in hunk_lines] == [
        f"tests/fix/test_bulk_{n:03}.py:3:" for n in range(count)
    ]


def test_sarif_output_names_each_rule_and_location(
    project: TestRepo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project.branch("extra")
    project.commit("more tests", {"tests/test_misc.py": "def test_misc():\n    assert 1 == 1\n"})
    out = tmp_path / "planegate.sarif"
    code = main(
        [
            "-C",
            str(project.root),
            "gate",
            "--base",
            "main",
            "--format",
            "sarif",
            "--output",
            str(out),
            "-q",
        ]
    )
    assert code == 2
    assert capsys.readouterr().out.startswith("planegate: FAIL (exit 2, inventory)")
    sarif = json.loads(out.read_text())
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]
    (result,) = [r for r in run["results"] if r["ruleId"] == "PG207"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert location == "tests/test_misc.py"
    assert "PG207" in {rule["id"] for rule in run["tool"]["driver"]["rules"]}
