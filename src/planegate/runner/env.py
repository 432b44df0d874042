"""The child's environment: an allowlist, nothing inherited by default (DESIGN §5).

Two variables of the gate's own environment say how the child is started; they never reach
the child: `PLANEGATE_PROJECT_SITE`, the project's site folders (the action's `setup`
installs there), added by the child after the harness is imported; `PLANEGATE_CHILD_USER`,
`uid:gid` the child runs as (the action's container; needs CAP_SETUID, CAP_SETGID, CAP_KILL).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from planegate.errors import UsageError

ALLOWED = ("PATH", "LANG", "LC_ALL", "CI")
SITE_VARIABLE = "PLANEGATE_PROJECT_SITE"
USER_VARIABLE = "PLANEGATE_CHILD_USER"
# Never passed, even when a configuration names them.
FORBIDDEN_PREFIXES = ("GITHUB_", "ACTIONS_", "RUNNER_", "PYTEST_", "INPUT_")
FORBIDDEN = frozenset(
    {
        "PYTHONPATH",
        "PYTHONOPTIMIZE",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONINSPECT",
        "PYTHONUSERBASE",
        "PYTHONWARNINGS",
        "PYTHONBREAKPOINT",
        "COVERAGE_PROCESS_START",
        SITE_VARIABLE,
        USER_VARIABLE,
        "PLANEGATE_BWRAP",
        "PLANEGATE_SANDBOX_WRITABLE",
    }
)


def is_forbidden(name: str) -> bool:
    return name in FORBIDDEN or name.startswith(FORBIDDEN_PREFIXES)


def project_site(parent: Mapping[str, str]) -> tuple[str, ...]:
    """The project's site folders (`PLANEGATE_PROJECT_SITE`, separated like PATH): absolute
    paths only, in their order, each once."""
    folders: list[str] = []
    for folder in parent.get(SITE_VARIABLE, "").split(os.pathsep):
        if not folder:
            continue
        if not os.path.isabs(folder):
            raise UsageError(f"{SITE_VARIABLE}: {folder!r} is not an absolute path")
        if folder not in folders:
            folders.append(folder)
    return tuple(folders)


def child_user(parent: Mapping[str, str]) -> tuple[int, int] | None:
    """`PLANEGATE_CHILD_USER=uid:gid`: the ids the child runs as; None when unset."""
    text = parent.get(USER_VARIABLE, "").strip()
    if not text:
        return None
    uid, _, gid = text.partition(":")
    if not (uid.isdigit() and gid.isdigit()) or int(uid) == 0 or int(gid) == 0:
        raise UsageError(f"{USER_VARIABLE}: expected uid:gid of an unprivileged user, got {text!r}")
    return int(uid), int(gid)


def minimal(parent: Mapping[str, str], home: str, allow: Iterable[str] = ()) -> dict[str, str]:
    env = {
        name: parent[name]
        for name in (*ALLOWED, *allow)
        if name in parent and not is_forbidden(name)
    }
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(
        {
            "HOME": home,
            "TZ": "UTC",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    return env
