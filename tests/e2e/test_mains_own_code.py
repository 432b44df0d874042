"""A sign of tampering raised by a line main already had is main's behaviour (PG112, a
notice, summarised once); the same sign from a line the patch adds fails the run (PG107)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main

NAMING = (
    "import sys\n\n\ndef add(a, b):\n"
    "    sys._getframe(1).f_globals.get('__name__')  # who called: like attrs' make_class\n"
    "    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n"
)


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    report = json.loads(capsys.readouterr().out)
    return code, [f for step in report["steps"] for f in step["findings"]]


def test_mains_own_frame_walk_is_a_notice_and_the_patchs_fails(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.commit("name the caller", {"calc/core.py": NAMING})
    project.branch("honest")
    project.commit("a comment", {"calc/core.py": "# arithmetic\n" + NAMING})

    code, found = gate(project, capsys)

    assert code == 0
    mains = [f for f in found if f["rule"] == "PG112"]
    # main's own sign, summarised once: a notice, not a warning on every pull request
    assert mains and all(f["severity"] == "notice" for f in mains)
    assert {(f["path"], f["line"]) for f in mains} == {("calc/core.py", 6)}
    assert not [f for f in found if f["rule"] == "PG107"]

    project.checkout("main")
    project.branch("walker")
    walker = NAMING.replace("    return a + b\n", "    sys._getframe(2)\n    return a + b\n")
    project.commit("walk further", {"calc/core.py": walker})

    code, found = gate(project, capsys)

    assert code == 5  # the production scan sees the added walk first; the run saw it too
    assert {(f["rule"], f["line"]) for f in found if f["rule"] in ("PG107", "PG112")} >= {
        ("PG107", 6),
        ("PG112", 5),
    }
