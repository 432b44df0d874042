"""The action's modes on a `runner: junit` suite (tests/helpers/junit_suite.py) against the fake
GitHub server: `digest` on a push to main, the gate given that digest in its three phases, and
`sweep`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import junit_suite
from helpers.fake_github import FakeGitHub, digest_zip, running
from helpers.github_support import action_env, phase_envs, read_outputs, run_action
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
        fetch_env, run_env, judge_env = phase_envs(pull, fetched, exchange)
        assert run_action(monkeypatch, fetch_env) == 0
        assert run_action(monkeypatch, run_env) == 0
        assert FROM_MAIN in (exchange / "run.json").read_text("utf-8")
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


RUN_ID = 4242


def shard_job(
    gh: FakeGitHub, env: dict[str, str], job: Path, shard: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One matrix job (run phase without the token, then the judge), its evidence uploaded
    as this run's artifact."""
    exchange, out = job / "exchange", job / "out"
    out.mkdir(parents=True)
    shard_env = env | {"INPUT_SHARD": shard, "PLANEGATE_OUT": str(out)}
    run_env = {k: v for k, v in shard_env.items() if k != "GITHUB_TOKEN"}
    phase = {"PLANEGATE_EXCHANGE": str(exchange)}
    assert run_action(monkeypatch, run_env | phase | {"INPUT_PHASE": "run"}) == 0
    run_action(monkeypatch, shard_env | phase | {"INPUT_PHASE": "judge"})
    evidence = (out / "planegate-shard.json").read_bytes()
    gh.add_artifact(
        head_sha=env["GITHUB_SHA"],
        name="planegate-shard-" + shard.replace("/", "-of-"),
        zip_bytes=digest_zip(evidence, "planegate-shard.json"),
        run_id=RUN_ID,
        event="pull_request",
    )


def test_shard_jobs_and_the_merge_gate_a_junit_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = junit_suite.build(tmp_path / "project")
    main = repo.git("rev-parse", "main")
    repo.branch("patch")
    bug = "def add(a, b):\n    return a + b + (1 if a > 5 else 0)\n"
    head = repo.commit("faster add", {"src/calc.py": bug})
    with running() as gh:
        gh.add_pull(1, head_sha=head, base_sha=main, author="coder[bot]")
        env = action_env(
            tmp_path, gh.api_url, gh.event_payload(1), working_directory=str(repo.root)
        )
        env |= {"GITHUB_SHA": head, "GITHUB_RUN_ID": str(RUN_ID)}
        for k in (1, 2):
            shard_job(gh, env, tmp_path / f"shard-{k}", f"{k}/2", monkeypatch)
        assert not gh.check_runs  # the shards post nothing
        merge_env = env | {"INPUT_MODE": "merge", "INPUT_REPORT-FILE": str(tmp_path / "m.json")}
        assert run_action(monkeypatch, merge_env) == 1
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "failure"
    report = json.loads((tmp_path / "m.json").read_text())
    failed = {f["nodeid"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"}
    assert failed == {"props::add_commutes", "props::add_zero", "golden::golden_table"}
