"""The shipped JSON Schemas describe what planegate writes (docs/report.md points users there)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from helpers.bad_input_cases import SEEDS
from planegate import schemas, wire

SCHEMAS = Path(schemas.__file__).parent
FORMATS = {
    "digest": "digest",
    "manifest": "manifest",
    "report": "report",
    "run": "run",
    "shard": "shard",
    "sweep": "sweep",
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_schema_is_valid_and_accepts_what_planegate_writes(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(schemas.validator(name).schema)
    assert schemas.problem(json.loads(SEEDS[FORMATS[name]]), name) is None


def test_every_schema_is_one_format_of_the_codec() -> None:
    shipped = {path.name.removesuffix(".schema.json") for path in SCHEMAS.glob("*.schema.json")}
    assert sorted(f.schema for f in wire.FORMATS) == sorted(shipped)
    read_back = [f.schema for f in wire.FORMATS if f not in wire.OUTPUTS]
    assert sorted(read_back) == sorted(FORMATS)  # each read-back format has a seed above


@pytest.mark.parametrize("output", wire.OUTPUTS, ids=lambda output: output.schema)
def test_each_output_schema_is_valid(output: wire.Format) -> None:
    jsonschema.Draft202012Validator.check_schema(schemas.validator(output.schema).schema)


def test_a_problem_names_the_key_path_and_quotes_data_keys() -> None:
    report = json.loads(SEEDS["report"])
    report["steps"][0]["findings"][0]["severity"] = "fatal"
    assert schemas.problem(report, "report") == (
        'steps[0].findings[0].severity: expected one of "error", "warning", "notice", got "fatal"'
    )
    digest = json.loads(SEEDS["digest"])
    digest["files"]["planegate.yml"] = "not-a-hash"
    assert schemas.problem(digest, "digest") == (
        "files['planegate.yml'] is not a sha256 hex digest: \"not-a-hash\""
    )
