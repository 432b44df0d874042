"""Every JSON file planegate writes or reads back, as one `Format` each: its name, its schema
beside the others in `schemas/NAME.schema.json`, its limits, and what to do when a file does
not fit (`hint`). Reading goes through `Format.load` only: bad bytes, JSON or shape raise one
line naming the file (and the line, or the key path) with the error's exit code, never a
traceback. The decoders of each format's values (`strings` and the like) are shared here.

`run.json` (and the execution a shard's evidence holds) is checked as its values are
converted rather than by the schema validator, which takes seconds on a run of 50,000 tests:
its schema documents the shape (`validated=False`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from planegate import loading, schemas
from planegate.collectable import KINDS_OF_TESTS
from planegate.errors import InputDataError


@dataclass(frozen=True)
class Format:
    """One JSON format: `schema` is the stem of its file in `schemas/`."""

    name: str
    schema: str
    limits: loading.Limits
    hint: str | None = None
    validated: bool = True  # False: checked while its values are converted (see above)
    indent: int | None = None  # how it is written: one line, or indented for people to read
    # the value as the validator sees it: lists the schema asks nothing of but strings, emptied
    # when they hold strings alone (same errors, without a validator call per nodeid)
    shortened: Callable[[Any], Any] | None = None

    def load(
        self, data: bytes | str, source: str, error: loading.ErrorClass = InputDataError
    ) -> Any:
        """The file's JSON value, checked against the schema (when `validated`)."""
        if self.shortened is None or not self.validated:
            return loading.load_json(
                data,
                source,
                error=error,
                limits=self.limits,
                hint=self.hint,
                schema=self.schema if self.validated else None,
            )
        value = loading.load_json(data, source, error=error, limits=self.limits)
        wrong = schemas.problem(self.shortened(value), self.schema)
        if wrong is not None:
            raise error(f"{source}: {wrong}", self.hint)
        return value

    def dump(self, value: Any) -> str:
        """`value` as this format's text, ending with a newline."""
        return json.dumps(value, indent=self.indent) + "\n"


RUN = Format("planegate-run/1", "run", loading.RUN, validated=False)
SHARD = Format(
    "planegate-shard/1",
    "shard",
    loading.SHARD,
    "an evidence file is written by `planegate gate --shard K/N --evidence PATH`",
)
SWEEP = Format(
    "planegate-sweep/1",
    "sweep",
    loading.Limits(),
    "the sweep's run phase writes it (`planegate action`, mode sweep)",
)


def _emptied(lists: Any) -> Any:
    """An object of lists with each list that holds strings alone emptied (anything else kept
    for the validator to name)."""
    if not isinstance(lists, dict):
        return lists
    return {
        key: [] if isinstance(value, list) and all(type(item) is str for item in value) else value
        for key, value in lists.items()
    }


def _digest_shortened(value: Any) -> Any:
    """The digest with the per-nodeid lists emptied (the inventory's planes, main's run's reads
    and probed files, main's source's paths): the schema asks of their items to be strings,
    nothing more; and main's source's test functions, once each is seen to be a pair the
    schema allows."""
    if not isinstance(value, dict):
        return value
    short = dict(value)
    if "inventory" in value:
        short["inventory"] = _emptied(value["inventory"])
    run = value.get("run")
    signs = run.get("signs") if isinstance(run, dict) else None
    if isinstance(run, dict) and isinstance(signs, dict):
        emptied = {
            key: _emptied(signs.get(key)) for key in ("prod_reads", "probed") if key in signs
        }
        short["run"] = {**run, "signs": {**signs, **emptied}}
    source = value.get("source")
    if isinstance(source, dict):
        lists = {key: source[key] for key in ("imported", "shipped") if key in source}
        short["source"] = {**source, **_emptied(lists)}
        if "tests" in source:
            short["source"]["tests"] = _functions_emptied(source["tests"])
    return short


def _functions_emptied(tests: Any) -> Any:
    """Each file's test functions emptied when each is a [name, kind] pair of the schema's."""
    if not isinstance(tests, dict):
        return tests
    return {
        path: [] if isinstance(functions, list) and all(map(_is_function, functions)) else functions
        for path, functions in tests.items()
    }


def _is_function(item: Any) -> bool:
    return (
        type(item) is list
        and len(item) == 2
        and type(item[0]) is str
        and type(item[1]) is str
        and item[1] in KINDS_OF_TESTS
    )


DIGEST = Format(
    "main's digest",
    "digest",
    loading.DIGEST,
    "regenerate it with `planegate digest` on main",
    indent=2,
    shortened=_digest_shortened,
)
MANIFEST = Format(
    "the fixture manifest",
    "manifest",
    loading.MANIFEST,
    "regenerate it with `planegate lock`",
    indent=2,
)
REPORT = Format("the JSON report", "report", loading.REPORT, indent=2)
# What the verbs beside the gate print with `--format json` (commands/json_output.py)
VERIFY = Format("planegate verify's output", "verify", loading.Limits(), indent=2)
LINT = Format("planegate lint's output", "lint", loading.Limits(), indent=2)
LEDGER_CHECK = Format("planegate ledger check's output", "ledger-check", loading.Limits(), indent=2)
DIGEST_SUMMARY = Format("planegate digest's output", "digest-summary", loading.Limits(), indent=2)
EXPLAIN = Format("planegate explain's output", "explain", loading.Limits(), indent=2)
OUTPUTS = (VERIFY, LINT, LEDGER_CHECK, DIGEST_SUMMARY, EXPLAIN)
FORMATS = (RUN, SHARD, SWEEP, DIGEST, MANIFEST, REPORT, *OUTPUTS)


def strings(value: Any) -> tuple[str, ...]:
    """A JSON list of strings, as a tuple; raises TypeError on anything else."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError("expected a list of strings")
    return tuple(value)
