"""The gate-written ini reads back, through pytest's own ini reader, as the base's options."""

from __future__ import annotations

from pathlib import Path

from planegate.runner.pytest_ini import render


def test_real_pytest_runs_with_the_rendered_marker_expression(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "gate.ini").write_text(
        render({"addopts": ["-m", "not slow"], "markers": ["slow: marks a slow test"]}), "utf-8"
    )
    (tmp_path / "test_m.py").write_text(
        "import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    assert False\n\n\n"
        "def test_quick():\n    assert True\n",
        "utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", "gate.ini", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 deselected" in done.stdout
