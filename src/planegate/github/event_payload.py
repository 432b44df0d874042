"""The triggering event (GITHUB_EVENT_PATH) as plain values, and who counts as an agent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planegate import loading
from planegate.errors import InputDataError, UsageError

SUPPORTED_EVENTS = (
    "pull_request",
    "pull_request_target",
    "workflow_run",
    "push",
    "workflow_dispatch",
    "merge_group",
)
_PR_EVENTS = ("pull_request", "pull_request_target")
_ZERO_SHA = "0" * 40


@dataclass(frozen=True)
class PullRequest:
    number: int
    head_sha: str
    base_sha: str
    base_ref: str
    head_ref: str
    author: str
    labels: tuple[str, ...]
    head_repository: str | None
    base_repository: str | None

    @property
    def from_fork(self) -> bool:
        return self.head_repository is not None and self.head_repository != self.base_repository


@dataclass(frozen=True)
class Event:
    """What planegate needs from an event. `pull_trusted` is False when the pull request facts
    come from a file a pull request's own run uploaded, or from workflow_run's minimal list:
    they must be re-read from the API before anything relies on them."""

    name: str
    repository: str
    repository_id: int | None
    default_branch: str | None
    sha: str
    before: str | None = None
    pull: PullRequest | None = None
    pull_trusted: bool = True


def load_json(path: str) -> Mapping[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise InputDataError(f"{path}: cannot read the event file: {error.strerror}") from None
    data = loading.load_json(raw, path, limits=loading.EVENT)
    if not isinstance(data, dict):
        raise InputDataError(f"{path}: the event file is not a JSON object")
    return data


def _get(data: Mapping[str, Any], *keys: str) -> Any:
    value: Any = data
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _str(data: Mapping[str, Any], *keys: str) -> str:
    value = _get(data, *keys)
    if not isinstance(value, str) or not value:
        raise InputDataError(f"the event has no {'.'.join(keys)}")
    return value


def parse_pull(pull: Mapping[str, Any]) -> PullRequest:
    number = pull.get("number")
    if not isinstance(number, int):
        raise InputDataError("the event's pull_request has no number")
    labels = pull.get("labels") or []
    if not isinstance(labels, list):
        raise InputDataError("the event's pull_request.labels is not a list")
    return PullRequest(
        number=number,
        head_sha=_str(pull, "head", "sha"),
        base_sha=_str(pull, "base", "sha"),
        base_ref=_str(pull, "base", "ref"),
        head_ref=_str(pull, "head", "ref"),
        author=_str(pull, "user", "login"),
        labels=tuple(str(label.get("name")) for label in labels if isinstance(label, Mapping)),
        head_repository=_get(pull, "head", "repo", "full_name"),
        base_repository=_get(pull, "base", "repo", "full_name"),
    )


def parse_event(
    name: str,
    payload: Mapping[str, Any],
    *,
    repository: str,
    sha: str,
    uploaded: Mapping[str, Any] | None = None,
) -> Event:
    """`uploaded` is the pull_request event file a `workflow_run`'s triggering run uploaded."""
    if name not in SUPPORTED_EVENTS:
        raise UsageError(
            f"event {name!r} is not supported",
            f"run planegate on one of: {', '.join(SUPPORTED_EVENTS)}",
        )
    repo_id = _get(payload, "repository", "id")
    common = {
        "name": name,
        "repository": repository,
        "repository_id": repo_id if isinstance(repo_id, int) else None,
        "default_branch": _get(payload, "repository", "default_branch"),
    }
    if name in _PR_EVENTS:
        pull_data = _get(payload, "pull_request")
        pull = parse_pull(pull_data if isinstance(pull_data, Mapping) else {})
        return Event(**common, sha=pull.head_sha, pull=pull)
    if name == "workflow_run":
        return _workflow_run(payload, common, uploaded)
    if name == "merge_group":  # the queue's commit, judged against the branch it merges into
        group = _get(payload, "merge_group")
        group = group if isinstance(group, Mapping) else {}
        return Event(**common, sha=_str(group, "head_sha"), before=_str(group, "base_sha"))
    before = payload.get("before")
    return Event(
        **common,
        sha=str(payload.get("after") or sha),
        before=before if isinstance(before, str) and before != _ZERO_SHA else None,
    )


def _workflow_run(
    payload: Mapping[str, Any], common: dict[str, Any], uploaded: Mapping[str, Any] | None
) -> Event:
    head_sha = _str(payload, "workflow_run", "head_sha")
    pull: PullRequest | None = None
    trusted = True
    if uploaded is not None and isinstance(uploaded.get("pull_request"), Mapping):
        pull = parse_pull(uploaded["pull_request"])
        trusted = False
        if pull.head_sha != head_sha:
            raise InputDataError(
                f"the uploaded event file is for {pull.head_sha[:12]}, but the workflow run "
                f"tested {head_sha[:12]}",
                "upload the event file from the same run that triggers this workflow",
            )
    else:
        pulls = _get(payload, "workflow_run", "pull_requests") or []
        if isinstance(pulls, list) and pulls and isinstance(pulls[0], Mapping):
            pull = _minimal_pull(pulls[0], payload)
            trusted = False  # no author or labels: re-read from the API
    return Event(**common, sha=head_sha, pull=pull, pull_trusted=trusted)


def _minimal_pull(pull: Mapping[str, Any], payload: Mapping[str, Any]) -> PullRequest:
    # workflow_run.pull_requests holds only number, head and base (and is empty for forks).
    number = pull.get("number")
    if not isinstance(number, int):
        raise InputDataError("the event's workflow_run.pull_requests[0] has no number")
    return PullRequest(
        number=number,
        head_sha=_str(pull, "head", "sha"),
        base_sha=_str(pull, "base", "sha"),
        base_ref=_str(pull, "base", "ref"),
        head_ref=_str(pull, "head", "ref"),
        author=str(_get(payload, "workflow_run", "actor", "login") or ""),
        labels=(),
        head_repository=_get(payload, "workflow_run", "head_repository", "full_name"),
        base_repository=_get(payload, "repository", "full_name"),
    )
