"""The gate on what the traced run saw: files tests read that nothing locks, production code
reading the oracle, and honest patches that read their own package data."""

from __future__ import annotations

from pathlib import Path

from helpers.seed_project import CORE, findings, gate_json, seed_project

BAD_LABEL = CORE.replace("f'n={n}'", "f'N={n}'")
ORACLE = CORE.replace(
    "def label(n):\n    return f'n={n}'\n",
    "def label(n):\n"
    "    from pathlib import Path\n"
    "    here = Path(__file__).resolve().parent\n"
    "    return (here / '..' / 'tests' / 'data' / '..' / 'data' / 'label.txt').read_text()\n",
)
PACKAGE_DATA = CORE.replace(
    "def label(n):\n    return f'n={n}'\n",
    "def label(n):\n"
    "    from pathlib import Path\n"
    "    prefix = (Path(__file__).parent / 'prefix.txt').read_text().strip()\n"
    "    return f'{prefix}={n}'\n",
)


def test_a_golden_rewritten_to_match_a_bug_is_unlocked_evidence_changed(tmp_path: Path) -> None:
    repo = seed_project(tmp_path / "seed")
    repo.branch("rewrite")
    repo.commit("new label", {"calc/core.py": BAD_LABEL, "tests/data/label.txt": "N=3"})
    code, report = gate_json(repo.root)
    assert code == 3
    (changed,) = findings(report, "PG308")
    assert changed["path"] == "tests/data/label.txt"
    assert "tests/test_golden.py::test_label_golden" in str(changed["message"])
    assert changed["plane"] == "fixture"
    # step 1 judged the test against main's bytes: the bug fails it
    assert [f["nodeid"] for f in findings(report, "PG101")] == [
        "tests/test_golden.py::test_label_golden"
    ]
    steps = report["steps"]
    assert isinstance(steps, list)
    (planes,) = [step for step in steps if step["step"] == "planes"]
    assert any("reran 1 tests with main's bytes" in note for note in planes["notes"])


def test_production_code_reading_the_golden_is_exit_5(tmp_path: Path) -> None:
    repo = seed_project(tmp_path / "seed")
    repo.branch("oracle")
    repo.commit("label from the golden", {"calc/core.py": ORACLE})
    code, report = gate_json(repo.root)
    assert code == 5
    (oracle,) = findings(report, "PG562")
    assert oracle["path"] == "tests/data/label.txt"
    assert oracle["severity"] == "error"


def test_production_package_data_and_a_new_module_pass(tmp_path: Path) -> None:
    repo = seed_project(tmp_path / "seed", {"calc/prefix.txt": "m\n"})
    repo.commit("package data", {"calc/core.py": PACKAGE_DATA})
    repo.branch("honest")
    repo.commit(
        "prefix n, a new module",
        {"calc/prefix.txt": "n\n", "calc/extra.py": "def twice(x):\n    return 2 * x\n"},
    )
    code, report = gate_json(repo.root)
    assert code == 0, findings(report)
    assert findings(report, "PG308") == findings(report, "PG562") == []
