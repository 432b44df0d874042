"""Choosing main's digest artifact by git ancestry in a real repository."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.fake_github import FakeGitHub, running
from helpers.github_support import FAST
from helpers.repo_helper import TestRepo
from planegate.github import artifacts
from planegate.github.client import make_github
from planegate.repo.git import GitRepo

TOKEN = "ghs_secret_token"
Clone = tuple[GitRepo, dict[str, str]]
UNKNOWN = "f" * 40


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[GitRepo, dict[str, str]]:
    repo = TestRepo(tmp_path_factory.mktemp("artifacts") / "clone")
    older = repo.commit("older", {"a.txt": "1\n"})
    tip = repo.commit("base tip", {"a.txt": "2\n"})
    repo.branch("side", older)
    unrelated = repo.commit("side", {"b.txt": "3\n"})
    return GitRepo(Path(repo.root)), {"older": older, "base": tip, "side": unrelated}


@pytest.fixture(scope="module")
def shas(clone: tuple[GitRepo, dict[str, str]]) -> dict[str, str]:
    return clone[1]


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with running() as fake:
        yield fake


def _fetch(gh: FakeGitHub, clone: tuple[GitRepo, dict[str, str]]) -> artifacts.DigestFetch:
    repo = make_github(gh.api_url, TOKEN, FAST).get_repo("octo/demo")
    request = artifacts.DigestRequest(
        token=TOKEN, repository_id=4242, default_branch="main", base=clone[1]["base"]
    )
    return artifacts.fetch_digest(repo, request, clone[0])


def test_newest_ancestor_when_the_base_tip_has_none(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["older"], payload=b"older", created_at="2024-04-01T00:00:00Z")
    gh.add_artifact(head_sha=shas["side"], payload=b"other", created_at="2024-04-03T00:00:00Z")
    wanted = gh.add_artifact(
        head_sha=shas["older"], payload=b"newer", created_at="2024-04-02T00:00:00Z"
    )
    fetch = _fetch(gh, clone)

    assert fetch.data == b"newer"
    assert fetch.artifact is not None and fetch.artifact.id == wanted
    assert "newest ancestor" in fetch.source


def test_a_refused_artifact_does_not_hide_a_good_older_one(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["older"], payload=b"main's")
    gh.add_artifact(head_sha=shas["base"], payload=b"forged", event="pull_request")
    fetch = _fetch(gh, clone)

    assert fetch.data == b"main's"
    assert len(fetch.refused) == 1
    assert [f.rule for f in fetch.findings()] == ["PG306"]


def test_a_stray_artifact_for_an_unknown_commit_is_refused_not_a_crash(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    # a newer push to main the clone has not fetched, listed first (newest)
    stray = gh.add_artifact(head_sha=UNKNOWN, payload=b"newer", created_at="2024-05-01T00:00:00Z")
    gh.add_artifact(head_sha=shas["base"], payload=b"main's", created_at="2024-04-01T00:00:00Z")
    fetch = _fetch(gh, clone)

    assert fetch.data == b"main's"
    (refusal,) = fetch.refused
    assert (refusal.artifact_id, refusal.head_sha) == (stray, UNKNOWN)
    assert "is not in this clone" in refusal.reason
    assert [f.rule for f in fetch.findings()] == ["PG306"]
