"""The child's environment: an allowlist, nothing inherited by default (DESIGN §5)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

ALLOWED = ("PATH", "LANG", "LC_ALL", "CI")
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
    }
)


def is_forbidden(name: str) -> bool:
    return name in FORBIDDEN or name.startswith(FORBIDDEN_PREFIXES)


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
