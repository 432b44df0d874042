"""Main's digest artifact: provenance checks, choice, and a download that keeps the token home."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fake_github import FakeGitHub, digest_zip, running
from github_support import FAST
from planegate.errors import InputDataError
from planegate.github import artifacts
from planegate.github.client import make_github

MERGE_BASE = "1" * 40
OLDER = "2" * 40
UNRELATED = "3" * 40
TOKEN = "ghs_secret_token"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with running() as fake:
        yield fake


def _fetch(gh: FakeGitHub, ancestors: tuple[str, ...] = ()) -> artifacts.DigestFetch:
    repo = make_github(gh.api_url, TOKEN, FAST).get_repo("octo/demo")
    return artifacts.fetch_digest(
        repo,
        token=TOKEN,
        repository_id=4242,
        default_branch="main",
        merge_base=MERGE_BASE,
        is_ancestor=lambda sha: sha in ancestors,
    )


def test_push_artifact_at_the_merge_base_is_used(gh: FakeGitHub) -> None:
    artifact_id = gh.add_artifact(head_sha=MERGE_BASE, payload=b'{"root": "abc"}')
    fetch = _fetch(gh)

    assert fetch.data == b'{"root": "abc"}'
    assert fetch.artifact is not None and fetch.artifact.id == artifact_id
    assert "(the merge base)" in fetch.source
    assert fetch.findings() == ()


def test_artifact_from_a_pull_request_run_is_refused(gh: FakeGitHub) -> None:
    # A pull request whose head is main's commit makes a run with head_sha == merge base.
    gh.add_artifact(head_sha=MERGE_BASE, payload=b"forged", event="pull_request", branch="main")
    fetch = _fetch(gh)

    assert fetch.data is None
    (refusal,) = fetch.refused
    assert "pull_request run" in refusal.reason
    rules = [(f.rule, f.severity.value) for f in fetch.findings()]
    assert rules == [("PG306", "warning"), ("PG307", "notice")]
    assert "recomputed at the merge base" in fetch.source
    assert gh.blob_requests == []


def test_artifact_from_a_fork_run_is_refused(gh: FakeGitHub) -> None:
    gh.add_artifact(head_sha=MERGE_BASE, payload=b"forged", head_repo_id=9999)
    fetch = _fetch(gh)

    assert fetch.data is None
    assert "another repository (id 9999, a fork)" in fetch.refused[0].reason
    # The artifact's own workflow_run facts were enough: the run was not even fetched.
    assert gh.requests_to("GET", r"/actions/runs/") == []


def test_artifact_from_another_branch_is_refused(gh: FakeGitHub) -> None:
    gh.add_artifact(head_sha=MERGE_BASE, payload=b"x", branch="release")
    fetch = _fetch(gh)
    assert "branch 'release'" in fetch.refused[0].reason


def test_newest_ancestor_when_the_merge_base_has_none(gh: FakeGitHub) -> None:
    gh.add_artifact(head_sha=OLDER, payload=b"older", created_at="2024-04-01T00:00:00Z")
    gh.add_artifact(head_sha=UNRELATED, payload=b"other", created_at="2024-04-03T00:00:00Z")
    wanted = gh.add_artifact(head_sha=OLDER, payload=b"newer", created_at="2024-04-02T00:00:00Z")
    fetch = _fetch(gh, ancestors=(OLDER,))

    assert fetch.data == b"newer"
    assert fetch.artifact is not None and fetch.artifact.id == wanted
    assert "newest ancestor" in fetch.source


def test_a_refused_artifact_does_not_hide_a_good_older_one(gh: FakeGitHub) -> None:
    gh.add_artifact(head_sha=OLDER, payload=b"main's")
    gh.add_artifact(head_sha=MERGE_BASE, payload=b"forged", event="pull_request")
    fetch = _fetch(gh, ancestors=(OLDER,))

    assert fetch.data == b"main's"
    assert len(fetch.refused) == 1
    assert [f.rule for f in fetch.findings()] == ["PG306"]


def test_no_artifact_means_recompute_and_say_so(gh: FakeGitHub) -> None:
    fetch = _fetch(gh)
    assert fetch.data is None and fetch.refused == ()
    (notice,) = fetch.findings()
    assert notice.rule == "PG307" and "no usable planegate-digest artifact" in notice.message


def test_zip_redirect_to_the_storage_host_carries_no_authorization(gh: FakeGitHub) -> None:
    gh.add_artifact(head_sha=MERGE_BASE, payload=b"{}")
    fetch = _fetch(gh)

    assert fetch.data == b"{}"
    (api_zip,) = gh.requests_to("GET", r"/actions/artifacts/\d+/zip$")
    assert api_zip.status == 302
    assert api_zip.headers.get("Authorization") == f"Bearer {TOKEN}"
    assert len(gh.blob_requests) == 1
    blob_headers = {k.lower(): v for k, v in gh.blob_requests[0].items()}
    assert "authorization" not in blob_headers
    assert TOKEN not in repr(gh.blob_requests)
    assert blob_headers["host"].startswith("localhost:")


def test_a_zip_without_the_digest_is_a_problem_not_a_crash(gh: FakeGitHub) -> None:
    gh.add_artifact(head_sha=MERGE_BASE, zip_bytes=digest_zip(b"x", member="other.json"))
    fetch = _fetch(gh)
    assert fetch.data is None
    assert "has no planegate-digest.json" in (fetch.problem or "")
    assert "could not be read" in fetch.findings()[-1].message


def test_listing_failure_falls_back_to_recompute(gh: FakeGitHub) -> None:
    gh.fail("GET", "/repos/octo/demo/actions/artifacts", 502, times=10)
    fetch = _fetch(gh)
    assert fetch.data is None and "listing artifacts failed" in (fetch.problem or "")


def test_extract_refuses_what_is_not_a_zip() -> None:
    with pytest.raises(InputDataError, match="not a zip"):
        artifacts.extract_digest(b"plain text")
