"""Main's digest artifact: provenance checks, choice, and a download that keeps the token home.

The git facts come from the real adapter on a real repository: `older` <- `base` (the merge
base) on main, `side` on a branch cut from `older`, and UNKNOWN a commit the clone lacks.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from helpers.fake_github import DROP, FakeGitHub, digest_zip, running
from helpers.github_support import FAST
from helpers.repo_helper import TestRepo
from planegate.errors import InputDataError
from planegate.github import artifacts
from planegate.github.client import make_github
from planegate.github.download import Transfer, download_zip
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


NO_WAIT = Transfer(backoff=0.0, timeout=10.0)


def _fetch(
    gh: FakeGitHub, clone: tuple[GitRepo, dict[str, str]], transfer: Transfer = NO_WAIT
) -> artifacts.DigestFetch:
    repo = make_github(gh.api_url, TOKEN, FAST).get_repo("octo/demo")
    request = artifacts.DigestRequest(
        token=TOKEN, repository_id=4242, default_branch="main", base=clone[1]["base"]
    )
    return artifacts.fetch_digest(repo, request, clone[0], transfer=transfer)


def test_push_artifact_at_the_base_tip_is_used(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    artifact_id = gh.add_artifact(head_sha=shas["base"], payload=b'{"root": "abc"}')
    fetch = _fetch(gh, clone)

    assert fetch.data == b'{"root": "abc"}'
    assert fetch.artifact is not None and fetch.artifact.id == artifact_id
    assert "(the base tip)" in fetch.source
    assert fetch.findings() == ()


def test_artifact_from_a_pull_request_run_is_refused(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    # A pull request whose head is main's commit makes a run with head_sha == the base tip.
    gh.add_artifact(head_sha=shas["base"], payload=b"forged", event="pull_request", branch="main")
    fetch = _fetch(gh, clone)

    assert fetch.data is None
    (refusal,) = fetch.refused
    assert "pull_request run" in refusal.reason
    rules = [(f.rule, f.severity.value) for f in fetch.findings()]
    assert rules == [("PG306", "warning"), ("PG307", "notice")]
    assert "recomputed at the base tip" in fetch.source
    assert gh.blob_requests == []


def test_artifact_from_a_fork_run_is_refused(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["base"], payload=b"forged", head_repo_id=9999)
    fetch = _fetch(gh, clone)

    assert fetch.data is None
    assert "another repository (id 9999, a fork)" in fetch.refused[0].reason
    # The artifact's own workflow_run facts were enough: the run was not even fetched.
    assert gh.requests_to("GET", r"/actions/runs/") == []


def test_artifact_from_another_branch_is_refused(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["base"], payload=b"x", branch="release")
    fetch = _fetch(gh, clone)
    assert "branch 'release'" in fetch.refused[0].reason


def test_the_listing_refuses_before_git_or_the_runs_api_is_asked(
    gh: FakeGitHub, clone: Clone
) -> None:
    # none of these shas could be asked of git safely; none is
    fork = gh.add_artifact(head_sha="--output=/tmp/x", head_repo_id=9999)
    branch = gh.add_artifact(head_sha="HEAD", branch="feature")
    shape = gh.add_artifact(head_sha="main")
    fetch = _fetch(gh, clone)

    reasons = {r.artifact_id: r.reason for r in fetch.refused}
    assert "a fork" in reasons[fork]
    assert "branch 'feature'" in reasons[branch]
    assert "is not a commit sha" in reasons[shape]
    assert fetch.data is None
    assert gh.requests_to("GET", r"/actions/runs/") == []


def test_an_artifact_of_another_name_is_refused(shas: dict[str, str]) -> None:
    ref = artifacts.ArtifactRef(
        1, "planegate-digest-2", shas["base"], None, "u", 2, 4242, 4242, "main"
    )
    request = artifacts.DigestRequest("t", 4242, "main", shas["base"])
    assert artifacts.artifact_refusal(ref, request) == (
        "it is named 'planegate-digest-2', not 'planegate-digest'"
    )


def test_no_artifact_means_recompute_and_say_so(gh: FakeGitHub, clone: Clone) -> None:
    fetch = _fetch(gh, clone)
    assert fetch.data is None and fetch.refused == ()
    (notice,) = fetch.findings()
    assert notice.rule == "PG307" and "no usable planegate-digest artifact" in notice.message


def test_zip_redirect_to_the_storage_host_carries_no_authorization(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["base"], payload=b"{}")
    fetch = _fetch(gh, clone)

    assert fetch.data == b"{}"
    (api_zip,) = gh.requests_to("GET", r"/actions/artifacts/\d+/zip$")
    assert api_zip.status == 302
    assert api_zip.headers.get("Authorization") == f"Bearer {TOKEN}"
    assert len(gh.blob_requests) == 1
    blob_headers = {k.lower(): v for k, v in gh.blob_requests[0].items()}
    assert "authorization" not in blob_headers
    assert TOKEN not in repr(gh.blob_requests)
    assert blob_headers["host"].startswith("localhost:")


def test_the_storage_host_is_retried_after_a_5xx_and_a_dropped_connection(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["base"], payload=b'{"root": "r"}')
    gh.blob_failures += [503, DROP, 502]
    fetch = _fetch(gh, clone)

    assert fetch.data == b'{"root": "r"}'
    assert fetch.problem is None
    assert len(gh.blob_requests) == 4
    assert all("authorization" not in {k.lower() for k in r} for r in gh.blob_requests)


def test_a_storage_host_that_keeps_failing_falls_back_naming_the_artifact(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    artifact_id = gh.add_artifact(head_sha=shas["base"], payload=b"{}")
    gh.blob_failures += [503] * 3
    fetch = _fetch(gh, clone, replace(NO_WAIT, retries=2))

    assert fetch.data is None
    assert fetch.problem is not None
    assert fetch.problem.startswith(f"artifact {artifact_id} could not be read: ")
    assert "planegate-digest answered 503" in fetch.problem
    assert len(gh.blob_requests) == 3


def test_an_artifact_over_the_byte_cap_is_refused_in_one_line_naming_it(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["base"], payload=b"x" * 5000)
    fetch = _fetch(gh, clone, replace(NO_WAIT, max_bytes=1000))

    assert fetch.data is None
    assert fetch.problem is not None
    assert "\n" not in fetch.problem
    assert fetch.problem.endswith(
        "the artifact planegate-digest is larger than the 1000-byte download cap"
    )


def test_the_cap_holds_while_streaming_a_body_of_unknown_length() -> None:
    big = digest_zip(b"y" * 50_000)
    with _chunked_server(big) as url, pytest.raises(InputDataError) as refused:
        download_zip(url, TOKEN, "main-digest", replace(NO_WAIT, max_bytes=10_000))
    assert refused.value.message == (
        "the artifact main-digest is larger than the 10000-byte download cap"
    )
    with _chunked_server(big) as url:
        assert download_zip(url, TOKEN, "main-digest", NO_WAIT) == big


@contextmanager
def _chunked_server(body: bytes) -> Iterator[str]:
    """A host that answers with a chunked body: no Content-Length to refuse early."""

    class Chunked(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(body), 4096):
                piece = body[start : start + 4096]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Chunked)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/zip"
    finally:
        server.shutdown()
        server.server_close()


def test_a_zip_without_the_digest_is_a_problem_not_a_crash(
    gh: FakeGitHub, clone: Clone, shas: dict[str, str]
) -> None:
    gh.add_artifact(head_sha=shas["base"], zip_bytes=digest_zip(b"x", member="other.json"))
    fetch = _fetch(gh, clone)
    assert fetch.data is None
    assert "has no planegate-digest.json" in (fetch.problem or "")
    assert "could not be read" in fetch.findings()[-1].message


def test_listing_failure_falls_back_to_recompute(gh: FakeGitHub, clone: Clone) -> None:
    gh.fail("GET", "/repos/octo/demo/actions/artifacts", 502, times=10)
    fetch = _fetch(gh, clone)
    assert fetch.data is None and "listing artifacts failed" in (fetch.problem or "")


def test_extract_refuses_what_is_not_a_zip() -> None:
    with pytest.raises(InputDataError, match="not a zip"):
        artifacts.extract_digest(b"plain text")


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
