"""The `junit` section of planegate.yml: a suite run by any command that writes JUnit XML
(`runner: junit`; docs/configuration.md, "runner: junit")."""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from planegate.config import defaults
from planegate.errors import ConfigError

DEFAULT_ID = defaults.JUNIT_ID
FIELDS = ("classname", "name", "file", "suite")
FIX = 'see docs/configuration.md, "runner: junit"'


@dataclass(frozen=True)
class JunitSection:
    """The command that builds and runs the suite, where it writes JUnit XML, how a test id is
    formed, and the runner's own filter for deselecting frozen tests (`none`: run, ignored)."""

    command: str
    xml: tuple[str, ...]
    id_format: str = DEFAULT_ID
    filter: str = defaults.JUNIT_FILTER
    timeout: float = defaults.PYTEST_TIMEOUT
    env_allow: tuple[str, ...] = ()


def check_id_format(id_format: str, where: str) -> None:
    """The `id` format names only classname, name and file (a configuration error otherwise)."""
    try:
        names = [field for _, field, _, _ in string.Formatter().parse(id_format) if field]
    except ValueError as exc:
        raise ConfigError(f"{where}: junit.id {id_format!r}: {exc}", FIX) from exc
    if not names or any(name not in FIELDS for name in names):
        raise ConfigError(
            f"{where}: junit.id {id_format!r} may name only {{classname}}, {{name}}, {{file}}, "
            "{suite}",
            FIX,
        )


def section_of(data: dict[str, Any], path: str) -> JunitSection | None:
    """The validated document's `junit` section (the schema checked its shape), or None."""
    raw = data.get("junit")
    if not isinstance(raw, dict):
        return None
    check_id_format(str(raw.get("id", DEFAULT_ID)), path)
    return JunitSection(
        command=str(raw["command"]),
        xml=tuple(str(p) for p in raw["xml"]),
        id_format=str(raw.get("id", DEFAULT_ID)),
        filter=str(raw.get("filter", defaults.JUNIT_FILTER)),
        timeout=float(raw.get("timeout", defaults.PYTEST_TIMEOUT)),
        env_allow=tuple(str(n) for n in raw.get("env", ())),
    )
