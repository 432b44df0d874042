"""The defaults table, the JSON Schema's `default` keywords and docs/configuration.md agree."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from planegate.config import defaults
from planegate.config import load as config

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = "version: 1\nplanes:\n  property: {}\n  fixture: {}\n"
ROW = re.compile(r"^\| `([^`]+)` \| .*? \| (.*?) \| ")


def _schema_defaults(node: dict[str, Any], prefix: str = "") -> dict[str, object]:
    found: dict[str, object] = {}
    for name, sub in node.get("properties", {}).items():
        key = f"{prefix}{name}"
        if "default" in sub:
            found[key] = sub["default"]
        found.update(_schema_defaults(sub, key + "."))
    return found


def _as_json(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def _as_docs(value: object) -> str:
    """How docs/configuration.md writes a default: `unowned`, `["agent"]`, `true`, `1200`."""
    if isinstance(value, str):
        return f"`{value}`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{json.dumps(_as_json(value))}`"


def _documented() -> dict[str, str]:
    text = (ROOT / "docs/configuration.md").read_text("utf-8")
    rows = (ROW.match(line) for line in text.splitlines())
    return {row[1]: row[2] for row in rows if row}


def test_the_schema_states_every_default_of_the_table_and_no_other() -> None:
    stated = _schema_defaults(config.schema())
    assert stated == {key: _as_json(value) for key, value in defaults.CONFIG.items()}


def test_the_configuration_reference_shows_the_same_defaults() -> None:
    documented = _documented()
    assert "pytest.timeout" in documented
    shown = {key: documented.get(key) for key in defaults.CONFIG}
    assert shown == {key: _as_docs(value) for key, value in defaults.CONFIG.items()}


def _junit_defaults() -> dict[str, object]:
    """A `junit` section with only its required keys, as loaded."""
    text = MINIMAL + 'runner: junit\njunit:\n  command: "make check"\n  xml: ["out.xml"]\n'
    section = config.parse(text, "planegate.yml").junit
    assert section is not None and section.command == "make check"
    return {
        "junit.id": section.id_format,
        "junit.filter": section.filter,
        "junit.timeout": section.timeout,
        "junit.env": section.env_allow,
    }


def test_a_minimal_file_loads_with_the_tables_defaults() -> None:
    cfg = config.parse(MINIMAL, "planegate.yml")
    loaded = {
        "owner": cfg.owner,
        "planes.property.paths": cfg.planes["property"].paths,
        "planes.property.nodeids": cfg.planes["property"].nodeids,
        "planes.property.admit": cfg.planes["property"].admit,
        "planes.property.max_examples": cfg.max_examples,
        "planes.property.seed": cfg.seed,
        "planes.fixture.paths": cfg.planes["fixture"].paths,
        "planes.fixture.nodeids": cfg.planes["fixture"].nodeids,
        "planes.fixture.admit": cfg.planes["fixture"].admit,
        "planes.fixture.data": cfg.planes["fixture"].data,
        "planes.fixture.probe": cfg.fixture_probe,
        "planes.freeze.max_fraction": cfg.max_frozen_fraction,
        "manifest": cfg.manifest,
        "ledger": cfg.ledger,
        "protected": cfg.protected,
        "evidence.exclude": cfg.evidence_exclude,
        "agents.authors": cfg.agent_authors,
        "agents.labels": cfg.agent_labels,
        "agents.on_human": cfg.on_human,
        "pytest.args": cfg.pytest_args,
        "pytest.plugins": cfg.pytest_plugins,
        "pytest.timeout": cfg.pytest_timeout,
        "pytest.env": cfg.env_allow,
        "pytest.triage_runs": cfg.triage_runs,
        "pytest.triage_max": cfg.triage_max,
        "analysis.max_file_bytes": cfg.max_file_bytes,
        "pytest.probe_budget": cfg.probe_budget,
        "pytest.sampled_canaries": cfg.sampled_canaries,
        "sandbox.network": cfg.sandbox_network,
        "runner": cfg.runner,
        **_junit_defaults(),
    }
    assert loaded == dict(defaults.CONFIG)
    assert cfg.junit is None
    assert all(plane.owner == defaults.OWNER for plane in cfg.planes.values())
