"""The environment of every git command planegate runs.

Git facts must not be bendable by the repository under test or by the machine's
configuration: replace refs and grafts are ignored (they would swap a blob or a commit's
parents behind a sha), hooks never run, and only the repository's own config plus what the
caller passes in GIT_CONFIG_COUNT (the action's `safe.directory`) is read.
"""

from __future__ import annotations

from collections.abc import Mapping

FIXED: dict[str, str] = {
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_GRAFT_FILE": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_TERMINAL_PROMPT": "0",
}
# Appended after the caller's GIT_CONFIG_COUNT entries, so these win over them.
CONFIG: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),
    ("advice.graftFileDeprecated", "false"),
)


def hardened(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables to set on top of `environ` for a git command."""
    count = environ.get("GIT_CONFIG_COUNT", "0").strip()
    start = int(count) if count.isdigit() else 0
    extra = dict(FIXED)
    for offset, (key, value) in enumerate(CONFIG):
        extra[f"GIT_CONFIG_KEY_{start + offset}"] = key
        extra[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    extra["GIT_CONFIG_COUNT"] = str(start + len(CONFIG))
    return extra


def alternates(first: str, existing: str | None) -> str:
    """GIT_ALTERNATE_OBJECT_DIRECTORIES with `first` searched before what was already set (a
    path holding the list separator is quoted, as git reads it)."""
    quoted = f'"{_escaped(first)}"' if ":" in first or first.startswith('"') else first
    return f"{quoted}:{existing}" if existing else quoted


def _escaped(path: str) -> str:
    return path.replace("\\", "\\\\").replace('"', '\\"')
