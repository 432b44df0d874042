"""planegate migrate: the seed layout, and a wrongly spelled file named by the one that exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planegate.cli import main
from planegate.config import load as config


def test_migrate_seed_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "planes.json").write_text(
        json.dumps(
            {
                "property": ["tests/test_p.py::test_inv"],
                "fixture": ["tests/test_g.py::test_gold"],
                "freeze": ["tests/test_t.py::test_slow"],
            }
        )
    )
    (tmp_path / "scoring_map.yaml").write_text("forbidden_to_agent:\n  - tests/\n  - golden/\n")
    assert main(["-C", str(tmp_path), "migrate", "planes.json", "scoring_map.yaml"]) == 0
    captured = capsys.readouterr()
    migrated = config.parse(captured.out, "planegate.yml")
    assert migrated.planes["property"].nodeids == ("tests/test_p.py::test_inv",)
    assert migrated.protected == ("golden/", "tests/")
    assert "tests/test_t.py::test_slow was frozen without class or evidence" in captured.err


def test_migrate_wrong_spelling_names_the_existing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "scoring_map.yaml").write_text("forbidden_to_agent: []\n")
    assert main(["-C", str(tmp_path), "migrate", "scoring_map.json"]) == 78
    err = capsys.readouterr().err
    assert err.startswith(
        f"planegate: scoring_map.json: no such file in {tmp_path}; scoring_map.yaml exists"
    )
