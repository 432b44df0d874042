"""The action's judge phase driven in-process: a stand-in `gate` mode that returns a fixed
report, and `run_action` against the fake GitHub with it."""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from helpers.fake_github import FakeGitHub
from helpers.github_support import FAST, action_env, report_of
from planegate.github.action import run_action
from planegate.github.inputs import FetchedDigest, Job
from planegate.modes.registry import MODES
from planegate.progress import Progress
from planegate.repo.git import GitRepo
from planegate.report import Report

HONEST = report_of([])


class Seen:
    """A `gate` mode whose judge returns a fixed Report and remembers the job and digest."""

    name = "gate"
    posts_verdict = True
    uses_main_digest = True
    writes_report = True

    def __init__(self, report: Report | Exception) -> None:
        self.result = report
        self.jobs: list[Job] = []
        self.digests: list[FetchedDigest | None] = []

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report:
        del environ, progress  # a fixed report needs neither
        self.jobs.append(job)
        self.digests.append(digest)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def run_with(
    gh: FakeGitHub,
    tmp: Path,
    evaluate: Seen,
    trigger: tuple[dict[str, Any], str] | None = None,
    *,
    git: GitRepo | None = None,
    **kw: str,
) -> tuple[int, str]:
    event, name = trigger or (gh.event_payload(7), "pull_request")
    env = action_env(tmp, gh.api_url, event, name, **kw)
    out = io.StringIO()
    code = run_action(
        env,
        modes={**MODES, "gate": evaluate},
        ancestry=None if git is None else lambda _job: git,
        settings=FAST,
        out=out,
    )
    return code, out.getvalue()


def check_runs(gh: FakeGitHub) -> list[dict[str, Any]]:
    return list(gh.check_runs.values())
