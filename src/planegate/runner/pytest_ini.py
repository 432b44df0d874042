"""The gate-written pytest ini, made from the base's pytest configuration only."""

from __future__ import annotations

import configparser
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from planegate.config.protection import parse_toml, pytest_table
from planegate.errors import ConfigError

Reader = Callable[[str], "bytes | None"]


def base_options(read: Reader) -> dict[str, Any]:
    """The ini options pytest itself would pick at the base, by pytest's precedence
    (pytest 9 reads `pytest.toml` and `.pytest.toml` first, with native TOML values)."""
    for name in ("pytest.toml", ".pytest.toml"):
        data = read(name)
        if data is not None:
            return _toml_table(data)
    for name in ("pytest.ini", ".pytest.ini"):
        data = read(name)
        if data is not None:
            return _ini_section(data, "pytest") or {}
    table = pytest_table("pyproject.toml", read("pyproject.toml"))
    if isinstance(table, dict) and isinstance(table.get("ini_options"), dict):
        return dict(table["ini_options"])
    if isinstance(table, dict) and table and "unparseable" not in table:
        return dict(table)  # pytest 9's native `[tool.pytest]`
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        data = read(name)
        options = _ini_section(data, section) if data is not None else None
        if options is not None:
            return options
    return {}


def _toml_table(data: bytes) -> dict[str, Any]:
    table = (parse_toml(data) or {}).get("pytest")
    return dict(table) if isinstance(table, dict) else {}


def _ini_section(data: bytes, section: str) -> dict[str, Any] | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error:
        return None
    return dict(parser.items(section)) if parser.has_section(section) else None


# pytest's ini options read one item a line; every other list option is split like a shell
# command line (`args`, `paths`), so its items are written quoted.
LINELIST = frozenset({"markers", "filterwarnings", "env"})


def render(options: dict[str, Any]) -> str:
    """The options as an ini file pytest reads back to the same values: native TOML lists
    keep each item whole (`["-m", "not slow"]` stays two arguments, not three)."""
    lines = ["[pytest]"]
    for key, value in options.items():
        if isinstance(value, list):
            lines.append(f"{key} =")
            lines += [f"    {_item(key, item)}" for item in value]
        elif isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        else:
            text = str(value).replace("\n", "\n    ")
            lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def _item(key: str, item: Any) -> str:
    text = "true" if item is True else "false" if item is False else str(item)
    if key not in LINELIST:
        return shlex.quote(text)
    line = " ".join(text.split("\n"))
    if line.strip().startswith(("#", ";")):
        # an ini file reads such a line as a comment: the option cannot be reproduced
        raise ConfigError(
            f"the base's pytest option {key!r} has an item starting with "
            f"{line.strip()[0]!r} ({line.strip()[:40]!r}), which an ini file reads as a comment",
            "reword the item in the base's pytest configuration",
        )
    return line


def testpaths(options: dict[str, Any]) -> list[str]:
    value = options.get("testpaths")
    if value is None:
        return []
    return _split(value)


def pythonpath(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The `pythonpath` entries (a list in TOML, split like a shell command line in ini)."""
    value = options.get("pythonpath")
    if value is None:
        return ()
    return tuple(_split(value))


def _split(value: Any) -> list[str]:
    """pytest splits its `args` and `paths` options like a shell command line."""
    if isinstance(value, list):
        return [str(item) for item in value]
    try:
        return shlex.split(str(value))
    except ValueError:
        return str(value).split()
