"""The ledger in the gate: frozen tests leave scoring and run in the shadow lane."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.freeze.events import thaw_runs_required
from planegate.freeze.write import evidence_hash

FLAKY = "tests/fix/test_flaky.py::test_flaky"


def freeze_line(base_commit: str, nodeid: str = FLAKY) -> str:
    return json.dumps(
        {
            "event": "freeze",
            "nodeid": nodeid,
            "flake_class": "timing",
            "class_confidence": 0.7,
            "owner": "@org/flakes",
            "note": "fails under load",
            "frozen_at": "2026-11-01",
            "base_commit": base_commit,
            "env_fingerprint": {"python": "3.12"},
            "runs": 3,
            "failures": 1,
            "mode": "scoring",
            "failure_signature": "AssertionError",
            "evidence_hash": evidence_hash(nodeid.encode()),
            "test_source_hash": evidence_hash(b"source"),
            "thaw_runs_required": thaw_runs_required(3, 1),
        },
        sort_keys=True,
    )


@pytest.fixture
def frozen_project(project: TestRepo) -> TestRepo:
    first = project.git("rev-parse", "HEAD")
    project.commit(
        "a flaky test, frozen",
        {
            "tests/fix/test_flaky.py": "def test_flaky():\n    assert False, 'noisy'\n",
            "planegate.yml": (project.root / "planegate.yml")
            .read_text()
            .replace(
                "pytest:", "  freeze:\n    owner: '@org/flakes'\n    max_fraction: 0.5\npytest:"
            ),
            "freeze_ledger.jsonl": freeze_line(first) + "\n",
        },
    )
    return project


def gate_json(
    repo: TestRepo, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_frozen_failure_in_the_shadow_lane_leaves_exit_0(
    frozen_project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    frozen_project.branch("fix")
    frozen_project.commit("docs", {"calc/__init__.py": "# calc\n"})
    code, report = gate_json(frozen_project, capsys)
    assert code == 0
    assert report["shadow"] == [{"nodeid": FLAKY, "outcome": "failed", "owner": "@org/flakes"}]
    assert all(f["nodeid"] != FLAKY for s in report["steps"] for f in s["findings"])


def test_rewritten_ledger_line_fails_the_ledger_step(
    frozen_project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    frozen_project.branch("rewrite")
    text = (frozen_project.root / "freeze_ledger.jsonl").read_text()
    frozen_project.commit("tweak", {"freeze_ledger.jsonl": text.replace("fails under load", "meh")})
    code, report = gate_json(frozen_project, capsys, "--human")
    assert code == 4
    (rewritten,) = [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG402"]
    assert rewritten["line"] == 1
    assert rewritten["path"] == "freeze_ledger.jsonl"


def test_ledger_check_command(frozen_project: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(frozen_project.root)
    assert main(["-C", root, "ledger", "check"]) == 0
    assert "1 events, 1 frozen" in capsys.readouterr().out
    path = frozen_project.root / "freeze_ledger.jsonl"
    path.write_text(
        path.read_text()
        + "not json\n"
        + freeze_line("a" * 40, "t.py::t").replace('"timing"', '"slow"')
        + "\n"
    )
    assert main(["-C", root, "ledger", "check"]) == 65
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("freeze_ledger.jsonl:2: ")
    assert out[1].startswith("freeze_ledger.jsonl:3: ")
    assert "timing, order, network, rng, env" in out[1]


def test_a_frozen_tests_file_is_protected_wherever_it_lives(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    first = project.git("rev-parse", "HEAD")
    outside = "tests/flaky/test_outside.py::test_flaky"
    config = (project.root / "planegate.yml").read_text()
    project.commit(
        "freeze a test no plane path names",
        {
            "tests/flaky/test_outside.py": "def test_flaky():\n    assert False, 'noisy'\n",
            "planegate.yml": config.replace("pytest:", "  freeze:\n    max_fraction: 0.5\npytest:"),
            "freeze_ledger.jsonl": freeze_line(first, outside) + "\n",
        },
    )
    project.branch("edit-frozen")
    project.commit(
        "make it pass",
        {
            "tests/flaky/test_outside.py": "def test_flaky():\n    assert True\n",
        },
    )
    code, report = gate_json(project, capsys)
    assert code == 3
    (edited,) = [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG301"]
    assert edited["path"] == "tests/flaky/test_outside.py"
    assert report["shadow"][0]["outcome"] == "failed"  # main's version still runs in the shadow
