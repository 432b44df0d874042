"""The pytest11 entry points a packaging file declares (pyproject.toml, setup.cfg,
entry_points.txt): each loads a pytest plugin wherever the package is installed."""

from __future__ import annotations

import configparser
from typing import Any

from planegate import loading


def _table(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key, {}) if isinstance(data, dict) else {}
    return data


def pytest11(name: str, text: str) -> dict[str, str]:
    if name == "pyproject.toml":
        try:
            data = loading.toml_value(text)
        except loading.Problem:
            return {}
        found: dict[str, str] = {}
        for table in (
            _table(data, "project", "entry-points"),
            _table(data, "tool", "poetry", "plugins"),
        ):
            group = table.get("pytest11", {}) if isinstance(table, dict) else {}
            if isinstance(group, dict):
                found.update({str(k): str(v) for k, v in group.items()})
        return found
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    if name == "entry_points.txt":
        return dict(parser.items("pytest11")) if parser.has_section("pytest11") else {}
    if not parser.has_option("options.entry_points", "pytest11"):
        return {}
    value = parser.get("options.entry_points", "pytest11")
    pairs = (row.partition("=") for row in value.splitlines() if "=" in row)
    return {key.strip(): target.strip() for key, _, target in pairs}
