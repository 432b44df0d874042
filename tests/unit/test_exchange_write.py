"""run.json is written atomically by planegate, never through anything planted in the folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planegate.errors import ServiceUnavailable
from planegate.gate import exchange


def test_a_symlink_planted_at_the_name_is_replaced_not_written_through(tmp_path: Path) -> None:
    folder, target = tmp_path / "exchange", tmp_path / "elsewhere.json"
    folder.mkdir()
    target.write_text("untouched\n")
    (folder / "run.json").symlink_to(target)
    path = exchange.write_file(folder, "run.json", '{"schema": "x"}\n')
    assert path == folder / "run.json"
    assert not path.is_symlink() and path.read_text() == '{"schema": "x"}\n'
    assert target.read_text() == "untouched\n"
    assert sorted(os.listdir(folder)) == ["run.json"]  # no temporary file left
    assert path.stat().st_mode & 0o777 == 0o644


def test_an_existing_file_is_replaced_whole(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("x" * 10_000)
    exchange.write_file(tmp_path, "run.json", "{}\n")
    assert (tmp_path / "run.json").read_text() == "{}\n"


def test_a_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "exchange").symlink_to(real)
    with pytest.raises(ServiceUnavailable, match="cannot write there"):
        exchange.write_file(tmp_path / "exchange", "run.json", "{}\n")
    assert os.listdir(real) == []


def test_a_folder_planted_at_the_name_stops_the_write_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "run.json").mkdir()
    with pytest.raises(ServiceUnavailable, match="cannot be written"):
        exchange.write_file(tmp_path, "run.json", "{}\n")
    assert os.listdir(tmp_path) == ["run.json"]
    assert (tmp_path / "run.json").is_dir()
