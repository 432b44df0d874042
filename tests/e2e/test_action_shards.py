"""Sharding in the action: matrix jobs with `shard: K/N` post nothing and leave their evidence
for upload; a `merge` job downloads this run's shard artifacts, checks them against git and
posts one check run whose verdict is the unsharded gate's. Each shard runs its phases as the
composite action does: the run phase without the token, the judge with it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.fake_github import FakeGitHub, digest_zip, running
from helpers.github_support import action_env, demo_shop, read_outputs, run_action

RUN_ID = 4242


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    root = tmp_path_factory.mktemp("shards") / "shop"
    yield root, demo_shop(root, ("honest-fix", "added-skip"))


def environment(gh: FakeGitHub, tmp: Path, root: Path, head: str, base: str) -> dict[str, str]:
    gh.add_pull(1, head_sha=head, base_sha=base, author="coder[bot]")
    env = action_env(tmp, gh.api_url, gh.event_payload(1), working_directory=str(root))
    return env | {"GITHUB_SHA": head, "GITHUB_RUN_ID": str(RUN_ID)}


def shard_job(
    gh: FakeGitHub, env: dict[str, str], tmp: Path, shard: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, bytes]:
    """One matrix job: the run phase (no token) and the judge; returns the judge's exit and
    the evidence it left for upload, which is then uploaded as the artifact."""
    index, total = shard.split("/")
    job = tmp / f"shard-{index}"
    exchange, out = job / "exchange", job / "out"
    out.mkdir(parents=True)
    shard_env = env | {"INPUT_SHARD": shard, "PLANEGATE_OUT": str(out)}
    run_env = {k: v for k, v in shard_env.items() if k != "GITHUB_TOKEN"}
    run_env |= {"INPUT_PHASE": "run", "PLANEGATE_EXCHANGE": str(exchange)}
    assert run_action(monkeypatch, run_env) == 0
    judge_env = shard_env | {"INPUT_PHASE": "judge", "PLANEGATE_EXCHANGE": str(exchange)}
    code = run_action(monkeypatch, judge_env)
    evidence = (out / "planegate-shard.json").read_bytes()
    name = f"planegate-shard-{index}-of-{total}"
    gh.add_artifact(
        head_sha=env["GITHUB_SHA"],
        name=name,
        zip_bytes=digest_zip(evidence, "planegate-shard.json"),
        run_id=RUN_ID,
        event="pull_request",
    )
    return code, evidence


def test_shard_jobs_post_nothing_and_the_merge_posts_one_verdict(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    with running() as gh:
        env = environment(gh, tmp_path, root, shas["added-skip"], shas["main"])
        codes = [shard_job(gh, env, tmp_path, f"{k}/2", monkeypatch)[0] for k in (1, 2)]
        assert not gh.check_runs and not gh.comments_on(1)  # the shards post nothing
        assert set(codes) <= {0, 1, 3, 5}

        merge_env = env | {"INPUT_MODE": "merge", "INPUT_REPORT-FILE": str(tmp_path / "m.json")}
        assert run_action(monkeypatch, merge_env) == 3  # the unsharded gate's exit: evidence

        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "failure"
        report = json.loads((tmp_path / "m.json").read_text())
        rules = {f["rule"] for s in report["steps"] for f in s["findings"]}
        assert {"PG301", "PG501"} <= rules
        assert len(gh.comments_on(1)) == 1
        assert read_outputs(tmp_path / "output.txt")["exit-code"] == "3"


def test_a_merge_with_a_shard_missing_fails_closed(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    with running() as gh:
        env = environment(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        shard_job(gh, env, tmp_path, "1/2", monkeypatch)
        code = run_action(monkeypatch, env | {"INPUT_MODE": "merge"})
        assert code != 0
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "failure"  # a missing shard never reads as a pass


def test_shard_belongs_to_gate_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with running() as gh:
        gh.add_pull(1, head_sha="b" * 40, base_sha="a" * 40)
        env = action_env(tmp_path, gh.api_url, gh.event_payload(1), mode="digest", shard="1/2")
        assert run_action(monkeypatch, env) == 64
        assert not gh.check_runs
