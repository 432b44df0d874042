"""Migration from the seed layouts: planes.json (nodeid lists) and scoring_map.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from planegate import loading
from planegate.config.load import missing_config_error
from planegate.errors import ConfigError


@dataclass
class Migration:
    property_ids: list[str] = field(default_factory=list)
    fixture_ids: list[str] = field(default_factory=list)
    frozen_ids: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        data: dict[str, Any] = {
            "version": 1,
            "owner": "unowned",
            "planes": {
                "property": {"owner": "unowned", "paths": [], "nodeids": sorted(self.property_ids)},
                "fixture": {"owner": "unowned", "paths": [], "nodeids": sorted(self.fixture_ids)},
                "freeze": {"owner": "unowned"},
            },
            "protected": sorted(set(self.protected)),
        }
        header = "# planegate.yml migrated from the seed layout; set the owners before use.\n"
        return header + yaml.safe_dump(data, sort_keys=False)


def migrate(paths: list[Path]) -> Migration:
    result = Migration()
    for path in paths:
        if not path.is_file():
            existing = {p.name for p in path.parent.iterdir()} if path.parent.is_dir() else set()
            raise missing_config_error(path.name, existing, f"in {path.parent}")
        data = _load(path)
        if path.name.startswith("planes"):
            _planes(data, path, result)
        else:
            _scoring_map(data, path, result)
    for nodeid in result.frozen_ids:
        result.notes.append(
            f"{nodeid} was frozen without class or evidence: it is not frozen now; freeze it with "
            "`planegate freeze NODEID --class C --owner O --note N --evidence FILE`"
        )
    return result


def _load(path: Path) -> Any:
    data = path.read_bytes()
    if path.suffix == ".json":
        return loading.load_json(data, str(path), error=ConfigError, limits=loading.CONFIG)
    return loading.load_yaml(data, str(path), error=ConfigError).value


def _string_list(data: Any, key: str, path: Path) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path} {key}: expected a list of strings")
    return list(value)


def _planes(data: Any, path: Path, result: Migration) -> None:
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with property/fixture/freeze lists")
    result.property_ids += _string_list(data, "property", path)
    result.fixture_ids += _string_list(data, "fixture", path)
    result.frozen_ids += _string_list(data, "freeze", path)


def _scoring_map(data: Any, path: Path, result: Migration) -> None:
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with forbidden_to_agent")
    result.protected += _string_list(data, "forbidden_to_agent", path)
    for plane in ("property", "fixture", "freeze"):
        if plane in data:
            _planes({plane: data[plane]}, path, result)
