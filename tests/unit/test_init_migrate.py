"""migrate writes the seed's nodeids as per-nodeid membership."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planegate.cli import main
from planegate.config import load as config


def test_migrate_writes_seed_nodeids_as_per_nodeid_membership(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "planes.json").write_text(
        json.dumps(
            {
                "property": ["tests/test_m.py::test_prop", "tests/test_p.py::test_inv"],
                "fixture": ["tests/test_m.py::test_example"],
            }
        )
    )
    (tmp_path / "scoring_map.yaml").write_text("forbidden_to_agent:\n  - tests/test_p.py\n")
    assert main(["-C", str(tmp_path), "migrate", "planes.json", "scoring_map.yaml"]) == 0
    captured = capsys.readouterr()
    migrated = config.parse(captured.out, "planegate.yml")
    assert migrated.protected == ("tests/test_p.py",)
    assert "#  tests/test_m.py: MIXED: nodeids in both planes" in captured.out
    assert "planegate: tests/test_m.py: MIXED: nodeids in both planes (split it;" in captured.err
    assert (
        "planegate: tests/test_m.py: holds listed nodeids: evidence by default, protected"
        in captured.err
    )
    assert "tests/test_p.py: holds listed" not in captured.err  # scoring_map protects it
