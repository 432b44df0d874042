"""Migration from the seed layouts: planes.json (nodeid lists) and scoring_map.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planegate import loading
from planegate.config.load import missing_config_error
from planegate.config.planemap import file_of, spec
from planegate.errors import ConfigError
from planegate.init.propose import FIXTURE, PROPERTY, Proposal, render
from planegate.loading import yamldoc


@dataclass
class Migration:
    property_ids: list[str] = field(default_factory=list)
    fixture_ids: list[str] = field(default_factory=list)
    frozen_ids: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def files(self) -> dict[str, set[str]]:
        """The files of the listed nodeids, with the planes their nodeids are listed in."""
        files: dict[str, set[str]] = {}
        for plane, ids in ((PROPERTY, self.property_ids), (FIXTURE, self.fixture_ids)):
            for nodeid in ids:
                files.setdefault(file_of(nodeid), set()).add(plane)
        return files

    def proposal(self) -> Proposal:
        """Seed nodeid lists are per-nodeid membership, as `planegate init` writes it for the
        files it cannot split: each file of a listed nodeid is evidence by default (protected
        as a whole), and a file whose nodeids span both planes is a documented mixed file."""
        mixed = sorted(path for path, planes in self.files().items() if len(planes) > 1)
        return Proposal(
            property_ids=sorted(set(self.property_ids)),
            fixture_ids=sorted(set(self.fixture_ids)),
            protected=sorted(set(self.protected)),
            header=[f"  {path}: MIXED: nodeids in both planes" for path in mixed],
        )

    @property
    def text(self) -> str:
        return render(self.proposal(), "planegate.yml migrated from the seed layout")


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
    proposal = result.proposal()
    for line in proposal.header:
        result.notes.append(
            f"{line.strip()} (split it; the gate reports it as a notice until then)"
        )
    covered = spec(result.protected)
    for listed in sorted(path for path in result.files() if not covered.match_file(path)):
        result.notes.append(f"{listed}: holds listed nodeids: evidence by default, protected")
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
    return yamldoc.load_yaml(data, str(path), error=ConfigError).value


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
