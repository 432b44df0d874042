"""planegate.yml: loading with line numbers, JSON Schema validation, and the typed Config."""

from __future__ import annotations

import difflib
import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import PurePosixPath
from typing import Any

import yaml

from planegate import loading, untrusted
from planegate.config import defaults
from planegate.config.junit_section import JunitSection, section_of
from planegate.errors import ConfigError
from planegate.loading import yamldoc
from planegate.vocabulary import PLANES, Plane

CONFIG_NAMES = ("planegate.yml", "planegate.yaml", "planegate.json")


@dataclass(frozen=True)
class PlaneConfig:
    name: Plane
    owner: str
    paths: tuple[str, ...] = ()
    nodeids: tuple[str, ...] = ()
    data: tuple[str, ...] = ()
    admit: tuple[str, ...] = ()  # folders where a test file the patch adds joins the plane


@dataclass(frozen=True)
class Config:
    path: str
    owner: str
    planes: dict[Plane, PlaneConfig]
    manifest: str = defaults.MANIFEST
    ledger: str = defaults.LEDGER
    protected: tuple[str, ...] = ()
    agent_authors: tuple[str, ...] = defaults.AGENT_AUTHORS
    agent_labels: tuple[str, ...] = defaults.AGENT_LABELS
    on_human: str = defaults.ON_HUMAN
    pytest_args: tuple[str, ...] = ()
    pytest_plugins: tuple[str, ...] = defaults.PYTEST_PLUGINS
    pytest_timeout: float = defaults.PYTEST_TIMEOUT
    env_allow: tuple[str, ...] = ()
    triage_runs: int = defaults.TRIAGE_RUNS
    triage_max: int = defaults.TRIAGE_MAX
    probe_budget: float = defaults.PROBE_BUDGET
    sampled_canaries: int = defaults.SAMPLED_CANARIES
    max_examples: int = defaults.MAX_EXAMPLES
    seed: int = defaults.SEED
    max_frozen_fraction: float = defaults.MAX_FROZEN_FRACTION
    fixture_probe: bool = defaults.FIXTURE_PROBE
    max_file_bytes: int = defaults.MAX_FILE_BYTES
    evidence_exclude: tuple[str, ...] = ()
    sandbox_network: bool = defaults.SANDBOX_NETWORK
    runner: str = defaults.RUNNER  # or "junit": the suite runs by `junit`'s command
    junit: JunitSection | None = None


def schema() -> dict[str, Any]:
    text = (
        resources.files("planegate")
        .joinpath("config/schema/planegate.schema.json")
        .read_text("utf-8")
    )
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def parse(text: str | bytes, path: str) -> Config:
    """Parse and validate configuration text; every error names file, line and key path.
    Line numbers are only worked out when there is an error to place."""
    document = _load(text, path)
    errors = _schema_errors(document.value)
    if errors:
        _raise_first(errors, _lines_of(_load(text, path, exact_marks=True).node), path)
    return _build(document.value, path)


def document(text: str | bytes, path: str) -> Any:
    """The configuration as plain values, after the same checks as `parse` (schema included):
    what two commits' files are compared on."""
    parse(text, path)
    return _load(text, path).value


def _load(text: str | bytes, path: str, *, exact_marks: bool = False) -> yamldoc.YamlDocument:
    if path.endswith(".json"):
        loading.load_json(text, path, error=ConfigError, limits=loading.CONFIG)
    document = yamldoc.load_yaml(
        text, path, error=ConfigError, limits=loading.CONFIG, exact_marks=exact_marks
    )
    if document.node is None:
        raise ConfigError(
            f"{path}:1: the file is empty", "see docs/configuration.md for a minimal file"
        )
    return document


def _lines_of(node: yaml.Node | None) -> dict[str, int]:
    lines: dict[str, int] = {}
    if node is not None:
        _record_lines(node, "", lines)
    return lines


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


@functools.cache
def validator() -> Any:
    """The configuration's JSON Schema validator (built once)."""
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def _schema_errors(data: Any) -> list[Any]:
    return sorted(
        validator().iter_errors(_short_nodeids(data)),
        key=lambda e: (len(e.absolute_path), str(e.absolute_path)),
    )


def _short_nodeids(data: Any) -> Any:
    """The document with every plane's `nodeids` emptied when each of them is a string: the
    schema asks nothing more of that list, so the errors are the same, without a validator
    call per listed nodeid (seconds at 50,000)."""
    planes = data.get("planes") if isinstance(data, dict) else None
    if not isinstance(planes, dict):
        return data
    short = {
        name: {**plane, "nodeids": []}
        if isinstance(plane, dict)
        and isinstance(plane.get("nodeids"), list)
        and all(type(nodeid) is str for nodeid in plane["nodeids"])
        else plane
        for name, plane in planes.items()
    }
    return {**data, "planes": short}


def _raise_first(errors: list[Any], lines: dict[str, int], path: str) -> None:
    error = errors[0]
    parts = list(error.absolute_path)
    key_path = key_path_of(parts)
    message = _describe(error)
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


def _describe(error: Any) -> str:
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
    if kind == "pattern" and "patternMessage" in error.schema:
        return f"{error.schema['patternMessage']}, got {error.instance!r}"
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


def _patterns(section: dict[str, Any], key: str) -> tuple[str, ...]:
    """Path patterns as written, where `./x` means the root's `x` (`/x` in gitignore's
    words: a gitignore line never starts with `./`, so it would match nothing)."""
    return tuple("/" + p[2:] if p.startswith("./") else p for p in _strings(section, key))


def _nodeids(section: dict[str, Any], key: str) -> tuple[str, ...]:
    """Nodeids as written, `./` before the path left out (pytest's nodeids have none)."""
    return tuple(n.removeprefix("./") for n in _strings(section, key))


def _planes(raw_planes: dict[str, Any], map_owner: str) -> dict[Plane, PlaneConfig]:
    planes = {}
    for name in PLANES:
        section = raw_planes.get(name) or {}
        planes[name] = PlaneConfig(
            name=name,
            owner=str(section.get("owner", map_owner)),
            paths=_patterns(section, "paths"),
            nodeids=_nodeids(section, "nodeids"),
            data=_patterns(section, "data"),
            admit=_patterns(section, "admit"),
        )
    return planes


def _build(data: dict[str, Any], path: str) -> Config:
    map_owner = str(data.get("owner", defaults.OWNER))
    raw_planes = data["planes"]
    prop = raw_planes.get("property") or {}
    fixture = raw_planes.get("fixture") or {}
    freeze = raw_planes.get("freeze") or {}
    analysis = data.get("analysis") or {}
    agents = data.get("agents") or {}
    pytest_section = data.get("pytest") or {}
    evidence = data.get("evidence") or {}
    sandbox = data.get("sandbox") or {}
    return Config(
        path=path,
        owner=map_owner,
        planes=_planes(raw_planes, map_owner),
        manifest=str(data.get("manifest", defaults.MANIFEST)),
        ledger=str(data.get("ledger", defaults.LEDGER)),
        protected=_patterns(data, "protected"),
        agent_authors=_strings(agents, "authors", defaults.AGENT_AUTHORS),
        agent_labels=_strings(agents, "labels", defaults.AGENT_LABELS),
        on_human=str(agents.get("on_human", defaults.ON_HUMAN)),
        pytest_args=_strings(pytest_section, "args"),
        pytest_plugins=_strings(pytest_section, "plugins", defaults.PYTEST_PLUGINS),
        pytest_timeout=float(pytest_section.get("timeout", defaults.PYTEST_TIMEOUT)),
        env_allow=_strings(pytest_section, "env"),
        triage_runs=int(pytest_section.get("triage_runs", defaults.TRIAGE_RUNS)),
        triage_max=int(pytest_section.get("triage_max", defaults.TRIAGE_MAX)),
        probe_budget=float(pytest_section.get("probe_budget", defaults.PROBE_BUDGET)),
        sampled_canaries=int(pytest_section.get("sampled_canaries", defaults.SAMPLED_CANARIES)),
        max_examples=int(prop.get("max_examples", defaults.MAX_EXAMPLES)),
        seed=int(prop.get("seed", defaults.SEED)),
        max_frozen_fraction=float(freeze.get("max_fraction", defaults.MAX_FROZEN_FRACTION)),
        fixture_probe=bool(fixture.get("probe", defaults.FIXTURE_PROBE)),
        max_file_bytes=int(analysis.get("max_file_bytes", defaults.MAX_FILE_BYTES)),
        evidence_exclude=_patterns(evidence, "exclude"),
        sandbox_network=bool(sandbox.get("network", defaults.SANDBOX_NETWORK)),
        runner=str(data.get("runner", defaults.RUNNER)),
        junit=section_of(data, path),
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
