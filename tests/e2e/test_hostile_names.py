"""File names git quotes or splits on (a newline, a tab, a leading `:` or `!`, look-alike
letters): the gate sees every changed file, analyses each, and shows hidden characters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate import untrusted
from planegate.cli import main
from planegate.repo.git import GitRepo
from planegate.repo.gitdiff import Change

TRICK = "import pytest\n\n\ndef label(n):\n    return f'n={n}'\n"
HOSTILE = (
    "calc/we\nird.py",
    "calc/:colon.py",
    "calc/!bang.py",
    "calc/tab\there.py",
    "calc/zеro.py",  # a Cyrillic e
    "calc/\u202eyp.evil.py",  # a right-to-left override
)


def gate_json(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    return code, json.loads(capsys.readouterr().out)


def test_every_hostile_name_is_seen_and_analysed(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("names")
    project.commit("hostile names", dict.fromkeys(HOSTILE, TRICK))

    code, report = gate_json(project, capsys)

    found = [f for step in report["steps"] for f in step["findings"]]
    assert code == 5
    shown = sorted(map(untrusted.clean, HOSTILE))  # reports show hidden characters escaped
    assert sorted(f["path"] for f in found if f["rule"] == "PG550") == shown
    hidden = {f["path"] for f in found if f["rule"] == "PG309"}
    assert hidden == {"calc/we\nird.py", "calc/tab\there.py", "calc/\\u202eyp.evil.py"}


def test_the_text_report_shows_hidden_characters_escaped(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("names")
    project.commit("hostile names", {"calc/we\nird.py": TRICK})

    code = main(["-C", str(project.root), "gate", "--base", "main", "-q"])

    out = capsys.readouterr().out
    assert code == 5
    assert "'calc/we\\nird.py': the file name holds a control or invisible character" in out
    assert not any(line.startswith("ird.py") for line in out.splitlines())


def test_renames_and_deletions_with_hostile_names_are_read_from_git(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "r")
    base = repo.commit("base", {"a\nb.py": "x = 1\n" * 20, ":gone.py": "y = 2\n", "!k": "k"})
    repo.git("mv", "a\nb.py", "!c\td.py")
    repo.delete(":gone.py")
    head = repo.commit("change", {"!k": "changed", "new\r.py": "z = 3\n"})

    changes = GitRepo(repo.root).changes(base, head)

    assert changes == [
        Change("!c\td.py", "R", "a\nb.py"),
        Change("!k", "M"),
        Change(":gone.py", "D"),
        Change("new\r.py", "A"),
    ]
