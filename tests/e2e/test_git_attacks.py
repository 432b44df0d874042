"""Attacks on the git facts the gate reads: a replace ref and planted hooks change no verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main

FIXED_LABEL = "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n"
BROKEN_LABEL = "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'N={n}'\n"
GOLDEN_TEST = "tests/fix/test_label.py::test_label_golden"


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    return code, json.loads(capsys.readouterr().out)


def failed_nodeids(report: dict[str, Any]) -> list[str]:
    found = [f for step in report["steps"] for f in step["findings"]]
    return [f["nodeid"] for f in found if f["rule"] == "PG101"]


def break_the_label(project: TestRepo) -> None:
    project.branch("bug")
    project.commit("new label", {"calc/core.py": BROKEN_LABEL})


def test_a_replace_ref_swapping_mains_test_blob_changes_nothing(
    project: TestRepo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    break_the_label(project)
    original = project.git("rev-parse", f"main:{GOLDEN_TEST.split('::')[0]}")
    weak = tmp_path / "weak.py"
    weak.write_text("def test_label_golden():\n    pass\n")
    project.git("replace", original, project.git("hash-object", "-w", str(weak)))
    # plain git now shows the weakened test at main
    assert "pass" in project.git("show", "main:tests/fix/test_label.py")

    code, report = gate(project, capsys)

    assert code == 1
    assert failed_nodeids(report) == [GOLDEN_TEST]


def test_hooks_planted_in_the_repository_change_nothing(
    project: TestRepo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    break_the_label(project)
    marker = tmp_path / "hook-ran"
    fixed = tmp_path / "fixed.py"
    fixed.write_text(FIXED_LABEL)
    planted = tmp_path / "hooks"
    planted.mkdir()
    # run in a fresh checkout, the hook would put a working label back before the tests run
    script = f'#!/bin/sh\necho "$0" >> {marker}\ncp {fixed} calc/core.py 2>/dev/null\nexit 0\n'
    for folder in (project.root / ".git/hooks", planted):
        for name in ("post-checkout", "reference-transaction", "pre-auto-gc"):
            (folder / name).write_text(script)
            (folder / name).chmod(0o755)
    project.git("config", "core.hooksPath", str(planted))

    code, report = gate(project, capsys)

    assert code == 1
    assert failed_nodeids(report) == [GOLDEN_TEST]
    assert not marker.exists()


def test_an_honest_patch_still_passes_with_the_attacks_planted(
    project: TestRepo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project.branch("honest")
    project.commit("same label, other spelling", {"calc/core.py": FIXED_LABEL + "\n"})
    (project.root / ".git/hooks/post-checkout").write_text("#!/bin/sh\nexit 1\n")
    (project.root / ".git/hooks/post-checkout").chmod(0o755)
    original = project.git("rev-parse", "main:tests/fix/data/label.txt")
    other = tmp_path / "other.txt"
    other.write_text("N=3")
    project.git("replace", original, project.git("hash-object", "-w", str(other)))

    code, report = gate(project, capsys)

    assert (code, report["verdict"]) == (0, "pass")
