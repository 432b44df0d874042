"""Who counts as an agent: login and label patterns (`agents.authors`, `agents.labels`) and
the commit identities a classification by a person is told apart by."""

from __future__ import annotations

import re
from collections.abc import Iterable


def _glob(pattern: str) -> re.Pattern[str]:
    # Only `*` and `?` are wildcards: in `*[bot]` the brackets are literal, not fnmatch's set.
    parts = (".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)
    return re.compile("".join(parts), re.IGNORECASE | re.DOTALL)


def matches_any(value: str, patterns: Iterable[str]) -> bool:
    return any(_glob(pattern).fullmatch(value) for pattern in patterns)


def is_agent(
    author: str, labels: Iterable[str], *, authors: Iterable[str], agent_labels: Iterable[str]
) -> bool:
    """An agent's PR: the author matches a pattern (`*[bot]`, an exact login) or a label does."""
    return matches_any(author, authors) or any(matches_any(label, agent_labels) for label in labels)


_NOREPLY = re.compile(r"(?:\d+\+)?([^@]+)@users\.noreply\.github\.com", re.IGNORECASE)


def identities(name: str, email: str) -> tuple[str, ...]:
    """What a git identity may be matched as: its name, its email, the email's local part, and
    the login of a GitHub no-reply address (`123+coder[bot]@users.noreply.github.com`)."""
    found = [name, email, email.split("@", 1)[0]]
    noreply = _NOREPLY.fullmatch(email)
    if noreply:
        found.append(noreply.group(1))
    return tuple(item for item in found if item)


def agent_identity(name: str, email: str, authors: Iterable[str]) -> bool:
    """A git identity (as the commit claims it) any of whose spellings is an agent's."""
    patterns = tuple(authors)
    return any(matches_any(item, patterns) for item in identities(name, email))
