"""planegate lint on a real repository."""

from __future__ import annotations

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main


def test_lint_command_reports_property_plane_files(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(project.root), "lint"]) == 0
    assert "no violations" in capsys.readouterr().out
    project.write(
        {
            "tests/prop/test_clock.py": "import time\n\n\ndef test_clock():\n"
            "    assert time.time() > 0\n",
            "tests/fix/test_clock.py": "import time\n\n\ndef test_clock():\n"
            "    assert time.time() > 0\n",
        }
    )
    assert main(["-C", str(project.root), "lint"]) == 5
    out = capsys.readouterr().out
    assert "tests/prop/test_clock.py:5: PG580" in out
    assert "tests/fix/" not in out  # only the property plane is linted
