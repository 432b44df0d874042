"""Check runs against the fake GitHub: batching, retries, conclusions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from github.Repository import Repository

from helpers.fake_github import FakeGitHub, running
from helpers.github_support import FAST, HEAD, finding, report_of
from planegate.findings import Severity
from planegate.github import check_runs
from planegate.github.client import make_github


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with running() as fake:
        yield fake


def _repo(gh: FakeGitHub) -> Repository:
    return make_github(gh.api_url, "ghs_test_token", FAST).get_repo("octo/demo")


def _post(gh: FakeGitHub, annotations: list[dict[str, object]]) -> check_runs.CheckOutcome:
    return check_runs.post_check_run(
        _repo(gh),
        check_runs.CheckRun(
            name="planegate",
            head_sha=HEAD,
            conclusion="failure",
            title="planegate: fail",
            summary="summary",
            annotations=annotations,
        ),
    )


def test_120_annotations_take_three_requests_none_over_50(gh: FakeGitHub) -> None:
    severities = [Severity.NOTICE, Severity.WARNING, Severity.ERROR]
    findings = [finding(n, severity=severities[n % 3]) for n in range(1, 121)]
    outcome = _post(gh, check_runs.annotations_for(findings))

    assert outcome.posted and outcome.requests == 3 and outcome.annotations_posted == 120
    writes = gh.requests_to("POST", r"/check-runs$") + gh.requests_to("PATCH", r"/check-runs/\d+$")
    sizes = [len(r.json()["output"].get("annotations", [])) for r in writes]
    assert sizes == [50, 50, 20]
    (run_id,) = gh.check_runs
    stored = gh.annotations[run_id]
    assert len(stored) == 120
    levels = [a["annotation_level"] for a in stored]
    assert levels == ["failure"] * 40 + ["warning"] * 40 + ["notice"] * 40
    assert stored[0]["title"] == "PG301 · @octo/qa"
    assert gh.check_runs[run_id]["conclusion"] == "failure"


def test_502_twice_then_201_posts_once(gh: FakeGitHub) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 502, times=2)
    outcome = _post(gh, [])

    assert outcome.posted and outcome.error is None
    assert [r.status for r in gh.requests_to("POST", r"/check-runs$")] == [502, 502, 201]
    assert len(gh.check_runs) == 1


def test_secondary_rate_limit_waits_for_retry_after(gh: FakeGitHub) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 403, headers={"Retry-After": "1"})
    outcome = _post(gh, [])

    assert outcome.posted
    assert [r.status for r in gh.requests_to("POST", r"/check-runs$")] == [403, 201]
    assert len(gh.check_runs) == 1


def test_read_only_token_is_reported_as_forbidden(gh: FakeGitHub) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 403)
    outcome = _post(gh, [])

    assert not outcome.posted and outcome.forbidden
    assert "403" in (outcome.error or "")
    assert gh.check_runs == {}


def test_retries_give_up_as_a_value_not_an_exception(gh: FakeGitHub) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 502, times=10)
    outcome = _post(gh, [])

    assert not outcome.posted and not outcome.forbidden
    assert "502" in (outcome.error or "")
    assert len(gh.requests_to("POST", r"/check-runs$")) == FAST.total_retries + 1


def test_conclusion_is_only_success_or_failure() -> None:
    assert check_runs.conclusion_of(report_of()) == "success"
    assert check_runs.conclusion_of(report_of([finding()])) == "failure"
    assert check_runs.conclusion_of(report_of([finding(severity=Severity.WARNING)])) == "success"
    with pytest.raises(ValueError, match="neutral"):
        check_runs.post_check_run(
            None,  # type: ignore[arg-type]  # the guard runs before the repository is used
            check_runs.CheckRun(
                name="planegate",
                head_sha=HEAD,
                conclusion="neutral",  # type: ignore[arg-type]  # the value the guard refuses
                title="t",
                summary="s",
            ),
        )


def test_findings_without_a_file_are_not_annotations() -> None:
    located = finding(3, path="src/app.py")
    loose = finding(4, path=None)
    annotations = check_runs.annotations_for([loose, located])
    assert [a["path"] for a in annotations] == ["src/app.py"]
    assert annotations[0]["start_line"] == annotations[0]["end_line"] == 3
    assert "Fix: Revert the change" in annotations[0]["message"]
