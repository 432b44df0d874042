"""The child's environment: an allowlist, nothing inherited by default (DESIGN §5).

The allowlist holds the names an ordinary shell session has that carry no secret and lead to
no service of the user's (locale, terminal, user name, time zone), so the child's environment
reads like a plain run's without what the gate keeps out. Nothing is set for determinism but
the hash seed, and only when the caller has none: the child removes it from its environment
once the interpreter has started (`hidden`), so `sys.flags` and the names read as a plain
run's (docs/runner.md, "How the run differs from plain pytest").

Two variables of the gate's own environment say how the child is started; they never reach
the child: `PLANEGATE_PROJECT_SITE`, the project's site folders (the action's `setup`
installs there), added by the child after the harness is imported; `PLANEGATE_CHILD_USER`,
`uid:gid` the child runs as (the action's container; needs CAP_SETUID, CAP_SETGID, CAP_KILL).
"""

from __future__ import annotations

import configparser
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from planegate.errors import UsageError

ALLOWED = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "TZ",
    "CI",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "COLORTERM",
    "COLUMNS",
    "LINES",
    "SHLVL",
    "HOSTNAME",
    "TMPDIR",
    "VIRTUAL_ENV",
    "NO_COLOR",
    "FORCE_COLOR",
)
ALLOWED_PREFIXES = ("LC_",)
HASH_SEED = "PYTHONHASHSEED"
# Fixed when the caller sets none: not 0, so sys.flags.hash_randomization reads 1 as it does
# in a run with the variable unset.
GATE_SEED = "3141592653"
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


def minimal(
    parent: Mapping[str, str],
    home: str,
    allow: Iterable[str] = (),
    cwd: str | None = None,
    ci: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The child's environment: the allowed names the caller has, then what the project's CI
    sets (`ci`: `ci_settings`), `HOME` a fresh folder, `PWD` the folder the child starts in
    and `_` the interpreter (as a shell sets them, when the caller has them), and the hash
    seed (`hidden` says when it is the gate's)."""
    names = [*ALLOWED, *(n for n in parent if n.startswith(ALLOWED_PREFIXES)), *allow]
    env = {name: parent[name] for name in names if name in parent and not is_forbidden(name)}
    env.update({k: v for k, v in (ci or {}).items() if not is_forbidden(k) and k != "HOME"})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["HOME"] = home
    if "PWD" in parent and cwd is not None:
        env["PWD"] = cwd
    if "_" in parent:
        env["_"] = sys.executable
    theirs = (ci or {}).get(HASH_SEED, parent.get(HASH_SEED))
    env[HASH_SEED] = theirs if theirs is not None and _seed(theirs) else GATE_SEED
    return env


def hidden(parent: Mapping[str, str], ci: Mapping[str, str] | None = None) -> list[str]:
    """The names the gate sets only for the interpreter's start: the child removes them."""
    theirs = (ci or {}).get(HASH_SEED, parent.get(HASH_SEED))
    return [] if _seed(theirs) else [HASH_SEED]


def ci_settings(tree: Path) -> dict[str, str]:
    """What the project's tox configuration sets for every environment (`setenv` of
    `[testenv]` in the tree's `tox.ini`, which the overlay makes the base's): the variables
    the project's own CI runs its tests with. Lines with tox substitutions (`{...}`) or
    files (`file|...`) are left out; forbidden names never reach the child."""
    try:
        return ci_settings_of((tree / "tox.ini").read_text("utf-8", "replace"))
    except OSError:
        return {}


def ci_settings_of(tox_ini: str) -> dict[str, str]:
    """`ci_settings` of a `tox.ini`'s text."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(tox_ini)
        text = parser.get("testenv", "setenv", fallback="")
    except configparser.Error:
        return {}
    found: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.strip().partition("=")
        name, value = name.strip(), value.strip()
        if (
            sep
            and name.isidentifier()
            and "{" not in value
            and not line.strip().startswith("file|")
        ):
            found[name] = value
    return found


def _seed(value: str | None) -> bool:
    return value is not None and value.isdigit() and int(value) <= 4294967295
