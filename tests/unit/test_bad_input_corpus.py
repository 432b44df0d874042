"""Bad input for every parser planegate has, loaded in this process: the corpus covers every
input, every seed is accepted, every mutation gets a documented exit and one line."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from helpers.bad_input_cases import EXITS, SEEDS, cases, one_safe_line, outcome
from planegate.analysis import prodscan
from planegate.config import protection
from planegate.progress import QUIET
from planegate.runner import reading, stream

CASES = cases()
BY_NAME = {(target, name): data for target, name, data in CASES}


def test_the_corpus_is_large_and_covers_every_input() -> None:
    assert len(CASES) >= 200
    assert {target for target, _, _ in CASES} == set(SEEDS)
    for target in SEEDS:
        mutations = {name for t, name, _ in CASES if t == target}
        assert {"truncated-half", "utf-16", "deep-arrays", "alias-bomb", "huge-line"} <= mutations
        assert {"garbage-64k", "strings-to-numbers", "duplicate-first-key"} <= mutations


@pytest.mark.parametrize("target", sorted(SEEDS))
def test_every_seed_is_accepted(target: str, tmp_path: Path) -> None:
    assert outcome(target, SEEDS[target], tmp_path) == (0, "")


@pytest.mark.parametrize("target", sorted(SEEDS))
def test_every_mutation_gets_a_documented_exit_and_one_line(target: str, tmp_path: Path) -> None:
    wrong = []
    refused = 0
    for case_target, name, data in CASES:
        if case_target != target:
            continue
        start = time.monotonic()
        code, message = outcome(target, data, tmp_path)
        took = time.monotonic() - start
        refused += code != 0
        if code not in EXITS[target] or took > 5 or (code and not one_safe_line(message)):
            wrong.append(f"{name}: exit {code} in {took:.1f} s: {message!r}")
    assert wrong == []
    assert refused >= 30  # the mutations are not all harmless


def test_loader_messages_name_file_line_and_key(tmp_path: Path) -> None:
    config = SEEDS["config"].decode()
    twice = config.replace("  property:\n", "  property:\n    owner: a\n    owner: b\n", 1)
    code, message = outcome("config", twice.encode(), tmp_path)
    assert code == 78
    assert message == (
        "planegate.yml:6: not valid YAML: duplicate key planes.property.owner (first on line 5)"
    )
    bad_byte = config.encode().replace(b"plane-map", b"plane-\xffmap")
    assert outcome("config", bad_byte, tmp_path) == (
        78,
        "planegate.yml:2: not UTF-8: byte 0xff at byte offset 30",
    )
    code, message = outcome("digest", BY_NAME["digest", "inventory.fixture=text"], tmp_path)
    assert (code, message) == (
        65,
        "planegate-digest.json: inventory['fixture']: expected array, got string",
    )


def test_a_hostile_pyproject_gives_no_entry_point_and_no_crash() -> None:
    for text in ("tool = 1", "project = []", "a = " + "[" * 100_000, "[tool.poetry]\nplugins = 1"):
        assert prodscan.scan_change("pyproject.toml", None, text, prodscan.DataPaths(), "a") == []
        assert protection.pytest_table("pyproject.toml", text.encode()) in (
            None,
            {"unparseable": text},
        )
    assert protection.parse_toml(b"a = " + b"[" * 100_000) is None


def test_result_records_of_a_bad_shape_are_stray_lines() -> None:
    assert stream.parse("[" * 100_000, None) is None
    assert stream.parse("9" * 10_000, None) is None
    read, write = os.pipe()
    os.write(write, b'{"nonce": "n", "kind": "collected"}\n{"nonce": "n", "kind": "end"}\n')
    os.close(write)
    fold = stream.Fold("n")
    ends: list[bool] = []
    signals = reading.Signals()
    # it must not die; whoever waits for the selection or a record is let go when it ends
    reading.read_lines(read, fold, QUIET, lambda: ends.append(True), signals)
    assert (fold.stray, fold.ended, ends) == (1, True, [True])
    assert signals.selected.is_set() and signals.extra.is_set() and signals.over.is_set()
