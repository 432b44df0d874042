"""Evidence by default in whole gates of the seed layout: a weakened helper or listed test
fails evidence, an honest production change passes."""

from __future__ import annotations

from pathlib import Path

from helpers.seed_project import (
    CORE,
    GOLDEN_TEST,
    RENDER_BUG_HELPER_LOOSENED,
    findings,
    gate_json,
    seed_project,
)


def test_a_deleted_assert_in_a_listed_test_file_fails_evidence_and_mains_test_runs(
    tmp_path: Path,
) -> None:
    repo = seed_project(tmp_path / "seed")
    repo.branch("weaken")
    repo.commit(
        "label bug, assert gone",
        {
            "calc/core.py": CORE.replace("f'n={n}'", "f'N={n}'"),
            "tests/test_golden.py": GOLDEN_TEST.replace(
                "    assert label(3) == (DATA / 'label.txt').read_text()\n",
                "    label(3)\n",
            ),
        },
    )
    code, report = gate_json(repo.root)
    assert code == 3
    (changed,) = findings(report, "PG301")
    assert changed["path"] == "tests/test_golden.py"
    assert "lists" in str(changed["message"])
    failed = [f["nodeid"] for f in findings(report, "PG101")]
    assert failed == ["tests/test_golden.py::test_label_golden"]  # main's test ran


def test_a_weakened_comparison_helper_fails_evidence(tmp_path: Path) -> None:
    repo = seed_project(tmp_path / "seed")
    repo.branch("weaken")
    repo.commit("render bug, helper loosened", RENDER_BUG_HELPER_LOOSENED)
    code, report = gate_json(repo.root)
    assert code == 3
    (changed,) = findings(report, "PG301")
    assert changed["path"] == "tests/helpers.py"
    assert "helper" in str(changed["message"])
    assert [f["nodeid"] for f in findings(report, "PG101")] == [
        "tests/test_golden.py::test_render_golden"
    ]


def test_an_honest_production_change_in_the_seed_layout_passes(tmp_path: Path) -> None:
    repo = seed_project(tmp_path / "seed")
    repo.branch("refactor")
    repo.commit(
        "refactor",
        {
            "calc/core.py": CORE.replace(
                "return a + b", "total = a\n    total += b\n    return total"
            ),
            "calc/extra.py": "def twice(x):\n    return 2 * x\n",
        },
    )
    code, report = gate_json(repo.root)
    assert code == 0, findings(report)
