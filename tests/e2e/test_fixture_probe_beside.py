"""The fixture probe's sessions begun beside the head's scoring run (probes/fixture/early.py):
taken when main's digest names the tests the probe picks, and not when the head's tree got
main's bytes of a file the patch changed (the session after the run sees those bytes)."""

from __future__ import annotations

from typing import Any

import pytest

from helpers.answers_support import Project

BEGUN_BESIDE = "its sessions began beside the head's run"
CORE = "def banner(width):\n    return '=' * width + '\\n'\n"
FILES: dict[str, str | bytes] = {
    "calc/__init__.py": "",
    "calc/core.py": CORE,
    "calc/width.txt": "5\n",  # read by the test, locked by nothing
    "tests/fix/test_banner.py": (
        "from pathlib import Path\n\nfrom calc.core import banner\n\n"
        "ROOT = Path(__file__).resolve().parents[2]\n"
        "DATA = Path(__file__).parent / 'data'\n\n\n"
        "def test_banner():\n"
        "    width = int((ROOT / 'calc' / 'width.txt').read_text())\n"
        "    assert banner(width) == (DATA / 'banner.txt').read_text()\n"
    ),
    "tests/fix/data/banner.txt": "=====\n",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    made = Project(tmp_path_factory.mktemp("probe-beside"), FILES)
    made.branch("comment", {"calc/core.py": "# banners\n" + CORE})
    made.branch("width", {"calc/width.txt": "6\n"})
    return made


def fixture_probe(report: dict[str, Any]) -> dict[str, Any]:
    probes: list[dict[str, Any]] = [p for p in report["probes"] if p["probe"] == "fixture data"]
    (probe,) = probes
    return probe


def notes(report: dict[str, Any]) -> list[str]:
    return [note for step in report["steps"] for note in step["notes"]]


def test_the_probe_takes_the_sessions_begun_beside_the_head_s_run(project: Project) -> None:
    code, report = project.gate("comment")

    assert code == 0, report["steps"]
    probe = fixture_probe(report)
    assert (probe["outcome"], probe["tests"]) == ("pass", 1)
    assert BEGUN_BESIDE in probe["detail"]


def test_not_when_the_head_s_tree_got_main_s_bytes_of_a_file_the_patch_changed(
    project: Project,
) -> None:
    code, report = project.gate("width")

    assert any("with main's bytes of 1 unlocked files" in note for note in notes(report)), notes(
        report
    )
    probe = fixture_probe(report)
    assert (probe["outcome"], probe["tests"]) == ("pass", 1)
    assert BEGUN_BESIDE not in probe["detail"]
    assert code != 0  # the test's unlocked input changed under it (PG308)
