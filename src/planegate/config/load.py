"""planegate.yml: loading with line numbers, JSON Schema validation, and the typed Config."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import PurePosixPath
from typing import Any

import yaml

from planegate import loading, untrusted
from planegate.errors import ConfigError

CONFIG_NAMES = ("planegate.yml", "planegate.yaml", "planegate.json")
DEFAULT_MANIFEST = "tests/fixtures.lock.json"
DEFAULT_LEDGER = "freeze_ledger.jsonl"
SCORING_PLANES = ("property", "fixture")
PLANES = ("property", "fixture", "freeze")

# Paths protected whatever the configuration says (DESIGN §2, §5).
DEFAULT_PROTECTED = (
    "**/conftest.py",
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "tox.ini",
    ".github/workflows/**",
    "**/sitecustomize.py",
    "**/usercustomize.py",
    "**/*.pth",
    "CODEOWNERS",
    ".github/CODEOWNERS",
    "docs/CODEOWNERS",
)


@dataclass(frozen=True)
class PlaneConfig:
    name: str
    owner: str
    paths: tuple[str, ...] = ()
    nodeids: tuple[str, ...] = ()
    data: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    path: str
    owner: str
    planes: dict[str, PlaneConfig]
    manifest: str = DEFAULT_MANIFEST
    ledger: str = DEFAULT_LEDGER
    protected: tuple[str, ...] = ()
    agent_authors: tuple[str, ...] = ("*[bot]",)
    agent_labels: tuple[str, ...] = ("agent",)
    on_human: str = "review"
    pytest_args: tuple[str, ...] = ()
    pytest_plugins: tuple[str, ...] = ("hypothesis",)
    pytest_timeout: float = 1200.0
    env_allow: tuple[str, ...] = ()
    triage_runs: int = 3
    triage_max: int = 10
    max_examples: int = 100
    seed: int = 0
    max_frozen_fraction: float = 0.05
    fixture_probe: bool = True
    max_file_bytes: int = 1024 * 1024  # analysis.max_file_bytes (planegate.analysis.limits)
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def plane(self, name: str) -> PlaneConfig:
        return self.planes[name]

    def line_of(self, key_path: str) -> int | None:
        return self.lines.get(key_path)


def schema() -> dict[str, Any]:
    text = (
        resources.files("planegate")
        .joinpath("config/schema/planegate.schema.json")
        .read_text("utf-8")
    )
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def parse(text: str | bytes, path: str) -> Config:
    """Parse and validate configuration text; every error names file, line and key path."""
    data, lines = _load_with_lines(text, path)
    _validate(data, lines, path)
    return _build(data, lines, path)


def _load_with_lines(text: str | bytes, path: str) -> tuple[Any, dict[str, int]]:
    if path.endswith(".json"):
        loading.load_json(text, path, error=ConfigError, limits=loading.CONFIG)
    document = loading.load_yaml(text, path, error=ConfigError, limits=loading.CONFIG)
    if document.node is None:
        raise ConfigError(
            f"{path}:1: the file is empty", "see docs/configuration.md for a minimal file"
        )
    lines: dict[str, int] = {}
    _record_lines(document.node, "", lines)
    return document.value, lines


def _record_lines(node: yaml.Node, key_path: str, lines: dict[str, int]) -> None:
    lines.setdefault(key_path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = f"{key_path}.{key_node.value}" if key_path else str(key_node.value)
            lines[child] = key_node.start_mark.line + 1
            _record_lines(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record_lines(item, f"{key_path}[{index}]", lines)


def key_path_of(parts: list[str | int] | tuple[str | int, ...]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _validate(data: Any, lines: dict[str, int], path: str) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(
        validator.iter_errors(data), key=lambda e: (len(e.absolute_path), str(e.absolute_path))
    )
    if not errors:
        return
    error = errors[0]
    parts = list(error.absolute_path)
    key_path = key_path_of(parts)
    message = _describe(error, parts)
    if error.validator == "additionalProperties":
        unknown = _unknown_keys(error)
        if unknown:
            key_path = key_path_of([*parts, unknown[0]])
    line = lines.get(key_path) or lines.get(key_path_of(parts)) or 1
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    shown = untrusted.one_line(key_path) or "(top level)"
    raise ConfigError(f"{path}:{line} {shown}: {message}{more}", "see docs/configuration.md")


def _unknown_keys(error: Any) -> list[str]:
    allowed = set(error.schema.get("properties", {}))
    return sorted(key for key in error.instance if key not in allowed)


def _describe(error: Any, parts: list[str | int]) -> str:
    kind = error.validator
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unknown = _unknown_keys(error)
        if unknown:
            close = difflib.get_close_matches(unknown[0], allowed, n=1)
            hint = (
                f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(allowed)}"
            )
            return f"unknown key {unknown[0]!r}{hint}"
    if kind == "type":
        expected = error.validator_value
        names = {
            "string": "a string",
            "array": "a list",
            "object": "a mapping",
            "integer": "an integer",
            "number": "a number",
            "boolean": "true or false",
        }
        wanted = (
            names.get(expected, str(expected))
            if isinstance(expected, str)
            else " or ".join(expected)
        )
        return f"expected {wanted}, got {_type_name(error.instance)}"
    if kind == "required":
        return str(error.message).replace("is a required property", "is required")
    if kind == "enum":
        return (
            f"expected one of {', '.join(map(str, error.validator_value))}, got {error.instance!r}"
        )
    if kind == "const":
        return f"expected {error.validator_value!r}, got {error.instance!r}"
    return str(error.message)


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
    }.get(type(value), type(value).__name__)


def _strings(section: dict[str, Any], key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    value = section.get(key)
    return default if value is None else tuple(value)


def _build(data: dict[str, Any], lines: dict[str, int], path: str) -> Config:
    map_owner = str(data.get("owner", "unowned"))
    raw_planes = data["planes"]
    planes = {}
    for name in PLANES:
        section = raw_planes.get(name) or {}
        planes[name] = PlaneConfig(
            name=name,
            owner=str(section.get("owner", map_owner)),
            paths=_strings(section, "paths"),
            nodeids=_strings(section, "nodeids"),
            data=_strings(section, "data"),
        )
    prop = raw_planes.get("property") or {}
    fixture = raw_planes.get("fixture") or {}
    freeze = raw_planes.get("freeze") or {}
    agents = data.get("agents") or {}
    pytest_section = data.get("pytest") or {}
    return Config(
        path=path,
        owner=map_owner,
        planes=planes,
        manifest=str(data.get("manifest", DEFAULT_MANIFEST)),
        ledger=str(data.get("ledger", DEFAULT_LEDGER)),
        protected=_strings(data, "protected"),
        agent_authors=_strings(agents, "authors", ("*[bot]",)),
        agent_labels=_strings(agents, "labels", ("agent",)),
        on_human=str(agents.get("on_human", "review")),
        pytest_args=_strings(pytest_section, "args"),
        pytest_plugins=_strings(pytest_section, "plugins", ("hypothesis",)),
        pytest_timeout=float(pytest_section.get("timeout", 1200)),
        env_allow=_strings(pytest_section, "env"),
        triage_runs=int(pytest_section.get("triage_runs", 3)),
        triage_max=int(pytest_section.get("triage_max", 10)),
        max_examples=int(prop.get("max_examples", 100)),
        seed=int(prop.get("seed", 0)),
        max_frozen_fraction=float(freeze.get("max_fraction", 0.05)),
        fixture_probe=bool(fixture.get("probe", True)),
        max_file_bytes=int((data.get("analysis") or {}).get("max_file_bytes", 1024 * 1024)),
        lines=lines,
    )


def misspelled_sibling(requested: str, existing: set[str]) -> str | None:
    """`scoring_map.json` asked for while `scoring_map.yaml` exists: name the file that does."""
    wanted = PurePosixPath(requested)
    for suffix in (".yml", ".yaml", ".json"):
        candidate = str(wanted.with_suffix(suffix))
        if candidate != requested and candidate in existing:
            return candidate
    return None


def missing_config_error(requested: str, existing: set[str], where: str) -> ConfigError:
    sibling = misspelled_sibling(requested, existing)
    if sibling is not None:
        return ConfigError(
            f"{requested}: no such file {where}; {sibling} exists",
            f"pass --config {sibling} or rename the file",
        )
    return ConfigError(
        f"{requested}: no such file {where}",
        "create one with `planegate init`, or `planegate migrate` from the seed layout",
    )


def find_config_name(existing: set[str], requested: str | None) -> str | None:
    if requested is not None:
        return requested if requested in existing else None
    return next((name for name in CONFIG_NAMES if name in existing), None)
