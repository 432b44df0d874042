"""Discovery through the CLI: `init` proposes data patterns for the files tests read, `lock`
warns about what it does not lock."""

from __future__ import annotations

from pathlib import Path

from helpers.repo_helper import TestRepo
from helpers.seed_project import CORE, FILES, cli, findings, gate_json, seed_project
from planegate.config import load as config_mod


def test_init_proposes_data_patterns_helpers_and_tests_that_read_nothing(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "suite")
    repo.commit("project", {**FILES, "tests/data/nested/extra.txt": "unread"})
    done = cli(repo.root, "init")
    assert done.returncode == 0, done.stderr
    proposed = config_mod.parse(done.stdout, "planegate.yml")
    assert proposed.planes["fixture"].data == ("tests/data/label.txt", "tests/data/render.txt")
    assert "planegate: helper: tests/helpers.py" in done.stderr
    assert "planegate: reads no file: 1 scoring tests" in done.stderr
    assert "tests/test_props.py::test_add_commutes" not in done.stderr
    verbose = cli(repo.root, "init", "--verbose")
    assert "planegate: reads no file: tests/test_props.py::test_add_commutes" in verbose.stderr
    assert "test_label_golden" not in verbose.stderr


def test_init_collapses_a_folder_read_whole_and_no_trace_proposes_nothing(
    tmp_path: Path,
) -> None:
    repo = TestRepo(tmp_path / "suite")
    repo.commit("project", FILES)
    done = cli(repo.root, "init")
    assert config_mod.parse(done.stdout, "planegate.yml").planes["fixture"].data == ("tests/data/",)
    quiet = cli(repo.root, "init", "--no-trace")
    assert config_mod.parse(quiet.stdout, "planegate.yml").planes["fixture"].data == ()


def test_after_init_and_lock_a_rewritten_golden_fails_evidence(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "suite")
    repo.commit("project", FILES)
    assert cli(repo.root, "init", "--write").returncode == 0
    locked = cli(repo.root, "lock")
    assert locked.returncode == 0
    assert "locked 2 fixture data files" in locked.stdout
    assert "warning" not in locked.stderr
    repo.commit("planegate")
    repo.branch("rewrite")
    repo.commit(
        "new label and its golden",
        {"calc/core.py": CORE.replace("f'n={n}'", "f'N={n}'"), "tests/data/label.txt": "N=3"},
    )
    code, report = gate_json(repo.root)
    assert code == 3
    assert [f["path"] for f in findings(report, "PG302")] == ["tests/data/label.txt"]


def test_lock_warns_about_an_empty_manifest_and_each_unlocked_read(tmp_path: Path) -> None:
    repo = seed_project(tmp_path / "seed")
    done = cli(repo.root, "lock")
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "planegate: warning: the fixture plane has tests but tests/fixtures.lock.json locks no "
        "file: name the files they read in planes.fixture.data (`planegate init` proposes "
        "patterns)",
        "planegate: warning: tests/data/label.txt is read by "
        "tests/test_golden.py::test_label_golden but is not locked: add it to "
        "planes.fixture.data and run `planegate lock` again",
        "planegate: warning: tests/data/render.txt is read by "
        "tests/test_golden.py::test_render_golden but is not locked: add it to "
        "planes.fixture.data and run `planegate lock` again",
    ]
    untraced = cli(repo.root, "lock", "--no-trace")
    assert len([line for line in untraced.stderr.splitlines() if "warning" in line]) == 1
