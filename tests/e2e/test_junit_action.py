"""The action's modes on a `runner: junit` suite (tests/helpers/junit_suite.py) against the fake
GitHub server: `digest` on a push to main, the gate given that digest in its three phases, and
`sweep`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import junit_suite
from helpers.fake_github import running
from helpers.github_support import action_env, read_outputs, run_action
from helpers.repo_helper import TestRepo
from planegate.gate.junit_gate import FROM_MAIN
from planegate.repo import digest_format

ALWAYS = 'def slow_clock():\n    assert False, "timed out waiting for the clock"\n'


def push_event(head: str, repository: dict[str, object]) -> dict[str, object]:
    return {"after": head, "before": "0" * 40, "ref": "refs/heads/main", "repository": repository}


def test_digest_mode_then_a_gate_that_runs_no_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = junit_suite.build(tmp_path / "project")
    main = repo.git("rev-parse", "main")
    repo.branch("patch")
    head = repo.commit("a comment", {"src/calc.py": "# adds\n" + junit_suite.CALC})
    out = tmp_path / "out"
    out.mkdir()
    with running() as gh:
        event = push_event(main, gh.repository())
        env = action_env(
            tmp_path,
            gh.api_url,
            event,
            name="push",
            mode="digest",
            working_directory=str(repo.root),
        )
        env |= {"GITHUB_SHA": main, "PLANEGATE_OUT": str(out)}
        assert run_action(monkeypatch, env) == 0
        made = digest_format.from_json((out / digest_format.FILE_NAME).read_bytes(), "digest")
        assert made.inventory["property"] == ("props::add_commutes", "props::add_zero")
        assert made.run is not None and made.run.not_passed == {}

        gh.add_pull(1, head_sha=head, base_sha=main, author="coder[bot]")
        pull = action_env(
            tmp_path, gh.api_url, gh.event_payload(1), working_directory=str(repo.root)
        )
        pull["GITHUB_SHA"] = head
        gh.add_artifact(head_sha=main, payload=(out / digest_format.FILE_NAME).read_bytes())
        fetched, exchange = tmp_path / "main", tmp_path / "exchange"
        fetch_env = pull | {"INPUT_PHASE": "fetch", "PLANEGATE_MAIN_DIGEST": str(fetched)}
        assert run_action(monkeypatch, fetch_env) == 0
        run_env = {k: v for k, v in pull.items() if k != "GITHUB_TOKEN"}
        run_env |= {
            "INPUT_PHASE": "run",
            "PLANEGATE_EXCHANGE": str(exchange),
            "PLANEGATE_MAIN_DIGEST": str(fetched),
        }
        assert run_action(monkeypatch, run_env) == 0
        assert FROM_MAIN in (exchange / "run.json").read_text("utf-8")
        judge_env = pull | {"INPUT_PHASE": "judge", "PLANEGATE_EXCHANGE": str(exchange)}
        assert run_action(monkeypatch, judge_env) == 0
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "success"


def test_sweep_mode_sweeps_the_configured_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo: TestRepo = junit_suite.build(tmp_path / "project")
    head = repo.commit("the clock test, unfrozen", {"freeze_ledger.jsonl": ""})
    assert ALWAYS in (repo.root / "tests/run_suite.py").read_text()
    with running() as gh:
        env = action_env(
            tmp_path,
            gh.api_url,
            push_event(head, gh.repository()),
            name="push",
            mode="sweep",
            working_directory=str(repo.root),
        )
        env["GITHUB_SHA"] = head
        assert run_action(monkeypatch, env) == 6
        assert gh.check_runs == {}
        outputs = read_outputs(tmp_path / "output.txt")
        assert (outputs["verdict"], outputs["exit-code"]) == ("fail", "6")
    assert junit_suite.FROZEN in (tmp_path / "summary.md").read_text()
    report = json.loads(Path(outputs["report-path"]).read_text())
    assert report["base_broken"] == [junit_suite.FROZEN]
