"""`accept.surely_valid`: a configuration and a digest as planegate writes them are vouched
for without jsonschema; at each keyword's edge it is never surer than jsonschema is right,
and what it is unsure of is left to jsonschema, whose error is the one reported."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from helpers import fair_project, junit_suite, project
from planegate import schemas
from planegate.config import load as config_load
from planegate.errors import ConfigError, InputDataError
from planegate.repo import digest_format
from planegate.schemas import accept

SCHEMA: dict[str, Any] = {
    "$id": "https://example.invalid/s.json",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]"},
        "count": {"type": "integer", "minimum": 1, "maximum": 9},
        "share": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "kind": {"enum": ["a", 1, None]},
        "flag": {"const": True},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}, "minItems": 1, "maxItems": 2},
        "runner": {"type": "string"},
        "junit": {"type": "object"},
    },
    "required": ["name"],
    "additionalProperties": False,
    "if": {"required": ["runner"], "properties": {"runner": {"const": "junit"}}},
    "then": {"required": ["junit"]},
    "$defs": {"tag": {"type": ["string", "null"]}},
}
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

SURE = [
    {"name": "ab"},
    {"name": "abcd", "count": 1, "share": 0.5, "kind": "a", "flag": True, "tags": ["x", None]},
    {"name": "ab", "count": 9, "kind": 1},
    {"name": "ab", "kind": None},
    {"name": "ab", "runner": "pytest"},  # `if` refuted: `then` does not apply
    {"name": "ab", "runner": "junit", "junit": {}},
]
EDGES = [
    *SURE,
    {},  # required
    {"name": "a"},  # minLength
    {"name": "abcde"},  # maxLength
    {"name": "Ab"},  # pattern
    {"name": 12},  # type
    {"name": "ab", "count": 0},  # minimum
    {"name": "ab", "count": 10},  # maximum
    {"name": "ab", "count": True},  # a boolean is no integer
    {"name": "ab", "count": 2.0},  # an integer to jsonschema, unsure here
    {"name": "ab", "share": 0},  # exclusiveMinimum
    {"name": "ab", "share": 1},  # exclusiveMaximum
    {"name": "ab", "share": float("nan")},
    {"name": "ab", "kind": True},  # not 1
    {"name": "ab", "kind": 1.0},  # equal to 1 for jsonschema, unsure here
    {"name": "ab", "kind": "b"},
    {"name": "ab", "flag": 1},  # const
    {"name": "ab", "tags": []},  # minItems
    {"name": "ab", "tags": ["a", "b", "c"]},  # maxItems
    {"name": "ab", "tags": [3]},  # through $ref
    {"name": "ab", "other": 1},  # additionalProperties
    {"name": "ab", "runner": "junit"},  # if / then
    {"name": "ab", "runner": 3},  # `if` neither sure nor refuted: `then` must hold
    [{"name": "ab"}],
    "ab",
]


class _Dict(dict[str, Any]):
    """A mapping jsonschema reads as an object, which the walk is not sure of."""


@pytest.mark.parametrize("value", EDGES, ids=lambda value: json.dumps(value)[:40])
def test_it_vouches_only_for_what_jsonschema_accepts(value: Any) -> None:
    valid = not list(VALIDATOR.iter_errors(value))
    sure = accept.surely_valid(value, SCHEMA)
    assert not sure or valid
    assert sure == (value in SURE)


def test_unknown_keywords_and_types_leave_it_to_jsonschema() -> None:
    assert not accept.surely_valid("x", {"format": "email"})
    assert not accept.surely_valid([1, 1], {"uniqueItems": True})
    assert not accept.surely_valid({"a": 1}, {"patternProperties": {"^a": {}}})
    assert not accept.surely_valid(_Dict(name="ab"), SCHEMA)
    assert not accept.surely_valid({"name": "ab"}, {"$ref": "other.json#/x"})
    assert not accept.surely_valid(1, False)
    assert not accept.surely_valid({"a": {"b": 1}}, {"properties": {"a": {"$id": "x"}}})
    assert accept.surely_valid(1, True)


def test_configurations_as_projects_write_them_are_read_without_jsonschema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed = [config_load.parse(text, "planegate.yml") for text in SAMPLES]
    monkeypatch.setattr(config_load, "_validator", None)  # any call of jsonschema fails
    assert [config_load.parse(text, "planegate.yml") for text in SAMPLES] == parsed


SAMPLES = (project.CONFIG, junit_suite.CONFIG, fair_project.CONFIG)


def test_what_it_is_unsure_of_jsonschema_decides() -> None:
    assert not accept.surely_valid(1.0, config_load.schema()["properties"]["version"])
    float_version = project.CONFIG.replace("version: 1\n", "version: 1.0\n", 1)
    assert config_load.parse(float_version, "planegate.yml") == config_load.parse(
        project.CONFIG, "planegate.yml"
    )  # 1.0 is jsonschema's 1, as it was
    with pytest.raises(ConfigError, match=r"^planegate.yml:1 version: "):
        config_load.parse(project.CONFIG.replace("version: 1\n", "version: 2\n"), "planegate.yml")


def test_a_digest_as_written_is_read_without_jsonschema_and_one_edited_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    signs = digest_format.RecordedSigns(prod_reads={"tests/test_a.py::test_one": ("data.txt",)})
    run = digest_format.MainRun(
        {"python": "3.11"}, {"tests/test_a.py::test_two": ("skipped", "")}, {"x": 0.5}, signs
    )
    digest = digest_format.Digest(
        "a" * 40, {"tests/test_a.py": "b" * 64}, {"property": ("tests/test_a.py::test_one",)}, run
    )
    written = digest_format.to_json(digest)
    edited = json.loads(written)
    edited["files"]["tests/test_a.py"] = 7
    with monkeypatch.context() as patch:
        patch.setattr(schemas, "_validator", None)  # any call of jsonschema's validator fails
        assert digest_format.from_json(written, "digest.json") == digest
        with pytest.raises(TypeError):
            digest_format.from_json(json.dumps(edited), "digest.json")
    with pytest.raises(InputDataError, match=r"digest.json: files\['tests/test_a.py'\]"):
        digest_format.from_json(json.dumps(edited), "digest.json")
