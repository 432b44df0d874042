"""Reports, events and environments for the GitHub tests."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from helpers.repo_helper import TestRepo
from planegate import demo
from planegate.cli import main
from planegate.findings import Finding, Severity, Step
from planegate.github.client import ClientSettings
from planegate.repo import git as gitrepo
from planegate.report import Report, StepResult

HEAD = "a" * 40
BASE = "b" * 40
FAST = ClientSettings(
    total_retries=3,
    backoff_factor=0.01,
    secondary_rate_wait=1.0,
    max_rate_limit_wait=5.0,
    seconds_between_requests=0.0,
    seconds_between_writes=0.0,
    timeout=10,
)


def finding(
    n: int = 1,
    *,
    rule: str = "PG301",
    step: Step = Step.EVIDENCE,
    severity: Severity = Severity.ERROR,
    path: str | None = "tests/test_money.py",
    message: str = "the test file changed",
    owner: str = "@octo/qa",
) -> Finding:
    return Finding(rule, step, severity, message, path=path, line=n, owner=owner)


def report_of(findings: Iterable[Finding] = (), *, head: str = HEAD, agent: bool = True) -> Report:
    by_step: dict[Step, list[Finding]] = {step: [] for step in Step}
    for f in findings:
        by_step[f.step].append(f)
    return Report(
        base=BASE,
        head=head,
        merge_base=BASE,
        agent=agent,
        digest_source="artifact planegate-digest (test)",
        steps=tuple(StepResult(step, tuple(items)) for step, items in by_step.items()),
    )


def action_env(
    tmp: Path, api_url: str, event: Mapping[str, object], name: str = "pull_request", **inputs: str
) -> dict[str, str]:
    event_path = tmp / "event.json"
    event_path.write_text(json.dumps(event))
    (tmp / "summary.md").touch()
    (tmp / "output.txt").touch()
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": "octo/demo",
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_SHA": "c" * 40,
        "GITHUB_RUN_ID": "777",
        "GITHUB_WORKSPACE": str(tmp),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
        "GITHUB_TOKEN": "ghs_test_token",
    }
    for key, value in inputs.items():
        env[f"INPUT_{key.upper().replace('_', '-')}"] = value
    return env


def read_outputs(path: Path) -> dict[str, str]:
    """Parse GITHUB_OUTPUT's `name<<DELIMITER` blocks the way the runner does."""
    lines = path.read_text().split("\n")
    outputs: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line:
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            outputs[name] = "\n".join(lines[index + 1 : end])
            index = end + 1
        else:
            assert line == "", f"unexpected output line {line!r}"
            index += 1
    return outputs


def demo_shop(root: Path, patches: Iterable[str]) -> dict[str, str]:
    """The demo repository at `root`, with a branch per named patch: each branch's sha."""
    root.mkdir()
    demo.build(root)
    repo = TestRepo.__new__(TestRepo)
    repo.root = root
    shas = {"main": repo.git("rev-parse", "HEAD")}
    wanted = set(patches)
    for patch in demo.PATCHES:
        if patch.name in wanted:
            repo.branch(patch.name)
            patch.edit(root)
            shas[patch.name] = gitrepo.commit_all(gitrepo.GitRepo(root), patch.what)
            repo.checkout("main")
    return shas


def run_action(monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str]) -> int:
    """`planegate action` with exactly `env`'s inputs and GitHub variables."""
    for key in [k for k in os.environ if k.startswith(("INPUT_", "GITHUB_"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return main(["action", "-q"])


def phase_envs(
    env: Mapping[str, str], main: Path, exchange: Path
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """The environments of the action's three phases for one pull request's `env`: the fetch
    of main's digest into `main`, the run phase (no token) and the judge, which share
    `exchange`."""
    fetch = {**env, "INPUT_PHASE": "fetch", "PLANEGATE_MAIN_DIGEST": str(main)}
    run = {k: v for k, v in env.items() if k != "GITHUB_TOKEN"}
    run |= {
        "INPUT_PHASE": "run",
        "PLANEGATE_EXCHANGE": str(exchange),
        "PLANEGATE_MAIN_DIGEST": str(main),
    }
    judge = {**env, "INPUT_PHASE": "judge", "PLANEGATE_EXCHANGE": str(exchange)}
    return fetch, run, judge
