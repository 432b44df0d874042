"""Who GitHub says made a commit: the one identity the action trusts when a person's commit on
a pull request classifies the tests it adds (docs/configuration.md, "New tests").

A commit's author and committer names are what the commit claims: anyone can write them. GitHub
verifies a signature against the keys of the account whose verified email the committer's is
(`commit.verification.verified`); a commit made on github.com is signed by GitHub itself
(committer `web-flow`), on behalf of its author. So a commit is a person's only when GitHub
verified it, and the login it verified (the committer's; the author's for `web-flow`) is
present and matches no agent pattern. Anything GitHub cannot answer is nobody's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from github.GithubException import GithubException
from github.Repository import Repository

from planegate.config.agents import matches_any

WEB_FLOW = "web-flow"  # the committer GitHub names on commits made on github.com

VerifiedLogin = Callable[[str], "str | None"]  # commit sha -> the login GitHub verified


def verified_login(repo: Repository, agent_authors: Sequence[str] = ()) -> VerifiedLogin:
    """The login GitHub verified for a commit, read once per commit (`agent_authors`: the
    action's `agent-authors` input, when given, refuses those logins here too)."""
    known: dict[str, str | None] = {}

    def login_of(sha: str) -> str | None:
        if sha not in known:
            try:
                raw = repo.get_commit(sha).raw_data
            except GithubException:
                raw = {}
            known[sha] = login_in(raw, agent_authors)
        return known[sha]

    return login_of


def login_in(raw: Any, agent_authors: Sequence[str] = ()) -> str | None:
    """The verified login of a commit as the REST API returns it, or None."""
    if not isinstance(raw, dict):
        return None
    git_commit = raw.get("commit") if isinstance(raw.get("commit"), dict) else {}
    verification = git_commit.get("verification") if isinstance(git_commit, dict) else None
    if not isinstance(verification, dict) or verification.get("verified") is not True:
        return None
    author, committer = _login(raw.get("author")), _login(raw.get("committer"))
    who = author if committer == WEB_FLOW else committer
    if not who or any(login and matches_any(login, agent_authors) for login in (author, who)):
        return None
    return who


def nobody(_sha: str) -> str | None:
    """No client to ask (the run phase, a run without a pull request): no commit is a person's."""
    return None


def _login(user: Any) -> str | None:
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) and login else None
