"""The hunk analysis's worker processes: the gate's own planegate runs there whatever the
repository under test holds, their failures reach the gate, and their results keep the
files' order."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from planegate.analysis.hunks import processes
from planegate.analysis.hunks.batch import FileChange, analyze_files
from planegate.errors import InternalError

BASE = "def test_total():\n    assert sum([1, 2]) == 3\n"
HEAD = "import pytest\n\n@pytest.mark.skip\ndef test_total():\n    assert sum([1, 2]) == 3\n"


def _changes(count: int) -> list[FileChange]:
    return [
        FileChange(f"tests/test_{n}.py", BASE, HEAD, "fixture", "@owner", True)
        for n in range(count)
    ]


def test_a_planegate_package_in_the_working_directory_or_pythonpath_is_not_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The repository under test is the working directory: a package of the same name there
    # (or on PYTHONPATH) must not stand in for the analysis the workers run.
    marker = tmp_path / "imported"
    for folder in ("repo", "elsewhere"):
        package = tmp_path / folder / "planegate"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({folder!r})\nraise SystemExit(0)\n"
        )
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "elsewhere"))
    changes = _changes(6)
    pooled = analyze_files(changes, workers=2, pool_from=1)
    assert pooled == analyze_files(changes, workers=1)
    assert [finding.rule for finding in pooled] == ["PG501"] * 6
    assert not marker.exists()


def test_an_error_in_a_worker_is_raised_in_the_gate_as_inline() -> None:
    broken = [*_changes(3), FileChange("tests/test_x.py", BASE, 12, "fixture", "@o", True)]  # type: ignore[arg-type]
    with pytest.raises(TypeError) as inline:
        analyze_files(broken, workers=1)
    with pytest.raises(TypeError) as pooled:
        analyze_files(broken, workers=2, pool_from=1)
    assert str(pooled.value) == str(inline.value)


def test_a_worker_that_dies_is_reported_with_its_exit_code_and_last_words() -> None:
    # sys.exit given the share: the worker prints it and ends with exit code 1, no results
    die = cast("Callable[[list[str]], list[str]]", sys.exit)
    results = processes.Workers(1, "json").run(["one", "two"], die, len)
    with pytest.raises(InternalError) as error:
        results()
    assert error.value.message == "an analysis worker ended with exit code 1: ['one', 'two']"


def test_workers_left_without_a_share_end_and_the_others_keep_the_order() -> None:
    # five workers, three items: each sorts its own one-item share, two end unused
    assert processes.Workers(5, "json").run(["c", "b", "a"], sorted, len)() == ["c", "b", "a"]
    assert processes.Workers(2, "json").run(["d", "c", "b", "a"], sorted, len)() == [
        "c",
        "d",
        "a",
        "b",
    ]


def test_workers_started_but_not_needed_end_when_closed() -> None:
    workers = processes.Workers(2, "json")
    workers.close()
    assert workers.count == 0
