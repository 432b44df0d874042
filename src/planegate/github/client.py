"""The PyGithub client: GITHUB_API_URL (GitHub Enterprise Server too), retries, throttled writes."""

from __future__ import annotations

from dataclasses import dataclass

import requests
from github import Auth, Github, GithubException, GithubRetry
from urllib3.util.retry import Retry

API_VERSION = "2022-11-28"
# Errors a GitHub call can end in once GithubRetry has given up.
CALL_ERRORS: tuple[type[Exception], ...] = (GithubException, requests.RequestException)


@dataclass(frozen=True)
class ClientSettings:
    """Retry and pacing. The defaults suit GitHub; tests shrink the waits."""

    total_retries: int = 5
    backoff_factor: float = 1.0
    secondary_rate_wait: float = 60.0
    max_rate_limit_wait: float | None = 600.0
    seconds_between_requests: float = 0.25
    seconds_between_writes: float = 1.0
    timeout: int = 30


def make_retry(settings: ClientSettings) -> GithubRetry:
    # PATCH is added to the retried methods: editing a check run or a comment is idempotent.
    # raise_on_status=False hands the last response to PyGithub, which raises a
    # GithubException with the status instead of a bare urllib3 MaxRetryError.
    return GithubRetry(
        total=settings.total_retries,
        backoff_factor=settings.backoff_factor,
        secondary_rate_wait=settings.secondary_rate_wait,
        max_rate_limit_wait=settings.max_rate_limit_wait,
        allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"GET", "POST", "PATCH"},
        raise_on_status=False,
    )


def make_github(
    api_url: str, token: str, settings: ClientSettings | None = None, verify: bool | str = True
) -> Github:
    """`verify`: True, or the path of a PEM bundle (the `ca-bundle` input: a private CA)."""
    chosen = settings or ClientSettings()
    return Github(
        base_url=api_url.rstrip("/"),
        auth=Auth.Token(token),
        retry=make_retry(chosen),
        lazy=True,
        timeout=chosen.timeout,
        verify=verify,
        seconds_between_requests=chosen.seconds_between_requests,
        seconds_between_writes=chosen.seconds_between_writes,
        api_version=API_VERSION,
        user_agent="planegate",
    )


def is_forbidden(error: BaseException) -> bool:
    """A 403 that is not a rate limit: a fork's read-only token ("Resource not accessible by
    integration"). GithubRetry has already waited out rate limits before this is asked."""
    if not isinstance(error, GithubException) or error.status != 403:
        return False
    return "rate limit" not in describe(error).lower()


def describe(error: BaseException) -> str:
    if isinstance(error, GithubException):
        data = error.data
        message = data.get("message") if isinstance(data, dict) else None
        return f"GitHub answered {error.status}: {message or error.message or 'no message'}"
    return f"{type(error).__name__}: {error}"
