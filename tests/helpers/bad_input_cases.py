"""Bad input for every parser planegate has: valid seeds, mutations of them, and one loader per
input that turns a document's bytes into the exit code the CLI would give (0: accepted)."""

from __future__ import annotations

import json
import random
import unicodedata
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from helpers.ledger_cases import freeze_obj
from helpers.project import CONFIG, PROJECT, manifest_for
from planegate.config import load as config_load
from planegate.config import manifest as fixtures
from planegate.errors import PlanegateError
from planegate.findings import Finding, Severity, Step
from planegate.freeze import ledger, sweep_wire
from planegate.gate import exchange
from planegate.github import event_payload as event_mod
from planegate.probes.fixture.wire import ProbeResult
from planegate.repo import digest_format as digest_mod
from planegate.report import Report, StepResult, json_load, json_report
from planegate.runner import session
from planegate.shards import evidence_file as shard_evidence
from planegate.shards.slicing import Shard
from planegate.steps.run_facts import Commits, Execution

NODE = "tests/fix/test_label.py::test_label_golden"
SHA = "ab" * 20
TODAY = date(2026, 12, 1)

# --------------------------------------------------------------------------- valid seeds


def _execution() -> Execution:
    run = session.RunResult(
        collected=(NODE,),
        selected=(NODE,),
        outcomes={NODE: session.Outcome(NODE, "passed", "", 0.25)},
        collect_errors=(),
        closed=True,
        exit_status=0,
        timed_out=False,
        output="1 passed\n",
    )
    return Execution(Commits(SHA, SHA, SHA), run, {"fixture": [NODE]}, (), ProbeResult(), (), {})


def _run_seed() -> bytes:
    return exchange.to_json(_execution()).encode()


def _shard_seed() -> bytes:
    report = Report(SHA, SHA, SHA, True, "recomputed", (StepResult(Step.PLANES, ()),))
    evidence = shard_evidence.Evidence(
        shard=Shard(1, 1),
        version="0.1.0",
        commits=Commits(SHA, SHA, SHA),
        config=("planegate.yml", "cd" * 32),
        inventory=shard_evidence.sliced([NODE], "digest"),
        assigned=(NODE,),
        exit_code=0,
        report=json_report.to_dict(report),
        execution=_execution(),
        timings={"total": 1.5},
    )
    return shard_evidence.to_json(evidence).encode()


def _report_seed() -> bytes:
    finding = Finding("PG101", Step.PLANES, Severity.ERROR, f"{NODE} failed", nodeid=NODE)
    report = Report(SHA, SHA, SHA, True, "recomputed", (StepResult(Step.PLANES, (finding,)),))
    return json_report.render(report).encode()


EVENT = {
    "action": "opened",
    "repository": {"id": 7, "full_name": "octo/demo", "default_branch": "main"},
    "pull_request": {
        "number": 1,
        "head": {"sha": SHA, "ref": "patch", "repo": {"full_name": "octo/demo"}},
        "base": {"sha": SHA, "ref": "main", "repo": {"full_name": "octo/demo"}},
        "user": {"login": "coder[bot]"},
        "labels": [{"name": "agent"}],
    },
}

SEEDS: dict[str, bytes] = {
    "config": CONFIG.encode(),
    "manifest": manifest_for(dict(PROJECT)).encode(),
    "ledger": (json.dumps(freeze_obj(nodeid=NODE, review_by=None)) + "\n").encode(),
    "digest": digest_mod.to_json(
        digest_mod.Digest(SHA, {"planegate.yml": "cd" * 32}, {"fixture": (NODE,)})
    ).encode(),
    "run": _run_seed(),
    "report": _report_seed(),
    "shard": _shard_seed(),
    "sweep": sweep_wire.to_json(
        sweep_wire.SweepResult(
            SHA, (json.dumps(freeze_obj(nodeid=NODE, review_by=None)),), (), None
        )
    ).encode(),
    "event": json.dumps(EVENT).encode(),
}
# The documented exits of each input (docs/exit-codes.md): 78 for the configuration, 65 for data.
EXITS: dict[str, set[int]] = {name: {0, 65} for name in SEEDS} | {"config": {0, 78}}

# --------------------------------------------------------------------------- loaders


def _ledger_exit(data: bytes, folder: Path) -> tuple[int, str]:
    path = folder / "freeze_ledger.jsonl"
    path.write_bytes(data)
    problems = ledger.check_file(path, TODAY)
    return (65, problems[0].message) if problems else (0, "")


def _event_exit(data: bytes, folder: Path) -> tuple[int, str]:
    path = folder / "event.json"
    path.write_bytes(data)
    payload = event_mod.load_json(str(path))
    event_mod.parse_event("pull_request", payload, repository="octo/demo", sha=SHA)
    return 0, ""


_LOADERS: dict[str, Callable[[bytes], object]] = {
    "config": lambda data: config_load.parse(data, "planegate.yml"),
    "manifest": lambda data: fixtures.parse(data, "tests/fixtures.lock.json"),
    "digest": lambda data: digest_mod.from_json(data, "planegate-digest.json"),
    "run": lambda data: exchange.from_json(data, "run.json"),
    "report": lambda data: json_load.load_report(data, "planegate-report.json"),
    "shard": lambda data: shard_evidence.from_json(data, "planegate-shard-1.json"),
    "sweep": lambda data: sweep_wire.from_json(data, "sweep.json"),
}


def one_safe_line(message: str) -> bool:
    """No line break, control, format (bidi, zero-width) or surrogate character."""
    return not any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs") for char in message)


def outcome(target: str, data: bytes, folder: Path) -> tuple[int, str]:
    """The exit code the CLI gives for `data` as input `target`, and the one-line message."""
    try:
        if target == "ledger":
            return _ledger_exit(data, folder)
        if target == "event":
            return _event_exit(data, folder)
        _LOADERS[target](data)
    except PlanegateError as error:
        return error.exit_code, error.message
    return 0, ""


# --------------------------------------------------------------------------- mutations


def seed_value(target: str, seed: bytes) -> Any:
    if target == "config":
        return yaml.safe_load(seed)
    return json.loads(seed.decode().splitlines()[0] if target == "ledger" else seed)


def _dump(value: Any) -> bytes:
    return json.dumps(value).encode()


def _map(value: Any, leaf: Callable[[Any], Any], node: Callable[[Any], Any]) -> Any:
    if isinstance(value, dict):
        return node({k: _map(v, leaf, node) for k, v in value.items()})
    if isinstance(value, list):
        return node([_map(v, leaf, node) for v in value])
    return leaf(value)


def _structural(target: str, seed: bytes) -> dict[str, bytes]:
    value = seed_value(target, seed)
    first_key = next(iter(value)) if isinstance(value, dict) and value else "x"
    deep: Any = "leaf"
    for _ in range(40):
        deep = {"k": deep}
    return {
        "strings-to-numbers": _dump(_map(value, lambda v: 7 if isinstance(v, str) else v, _keep)),
        "numbers-to-strings": _dump(_map(value, lambda v: str(v), _keep)),
        "leaves-to-null": _dump(_map(value, lambda _v: None, _keep)),
        "objects-to-lists": _dump(
            _map(value, _keep, lambda v: list(v.values()) if isinstance(v, dict) else v)
        ),
        "lists-to-objects": _dump(
            _map(value, _keep, lambda v: {"0": v} if isinstance(v, list) else v)
        ),
        "empty-object": b"{}",
        "first-key-dropped": _dump(
            {k: v for k, v in value.items() if k != first_key} if isinstance(value, dict) else {}
        ),
        "first-key-deep": _dump({**value, first_key: deep} if isinstance(value, dict) else deep),
        "duplicate-first-key": _duplicate(value, first_key),
        "control-characters": _dump(
            _map(value, lambda v: f"\x1b[2J{v}\r::error::x" if isinstance(v, str) else v, _keep)
        ),
        "huge-string": _dump({**value, first_key: "a" * 300_000} if isinstance(value, dict) else 0),
    }


WRONG: dict[str, Any] = {"null": None, "negative": -1, "text": "x", "list": [], "object": {}}


def _swaps(value: Any) -> dict[str, bytes]:
    """Each key down to depth 2 given each wrong type in turn (the rest of the document kept)."""
    found = {}
    for path in _paths(value, 2):
        for kind, wrong in WRONG.items():
            changed = json.loads(json.dumps(value))
            holder = changed
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = wrong
            found[f"{'.'.join(path)}={kind}"] = _dump(changed)
    return found


def _paths(value: Any, depth: int) -> list[tuple[str, ...]]:
    if not isinstance(value, dict) or depth == 0:
        return []
    paths: list[tuple[str, ...]] = []
    for key, child in value.items():
        paths.append((key,))
        paths += [(key, *rest) for rest in _paths(child, depth - 1)]
    return paths


def _keep(value: Any) -> Any:
    return value


def _duplicate(value: Any, key: str) -> bytes:
    text = _dump(value).decode()
    if not isinstance(value, dict) or not value:
        return b'{"a": 1, "a": 2}'
    return (text[:-1] + f", {json.dumps(key)}: null}}").encode()


def _alias_bomb() -> bytes:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 10):
        refs = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return ("\n".join(lines) + "\n").encode()


def _raw(seed: bytes) -> dict[str, bytes]:
    rng = random.Random(len(seed))
    middle = len(seed) // 2
    return {
        "empty": b"",
        "whitespace": b" \n\t\n",
        "truncated-10": seed[: len(seed) // 10],
        "truncated-half": seed[:middle],
        "truncated-90": seed[: len(seed) * 9 // 10],
        "last-byte-cut": seed[:-2],
        "latin-1-byte": seed[:middle] + b"\xe9" + seed[middle:],
        "bad-continuation": seed[:middle] + b"\xc3\x28" + seed[middle:],
        "utf-16": seed.decode().encode("utf-16"),
        "nul-bytes": seed[:middle] + b"\x00\x00" + seed[middle:],
        "garbage-256": rng.randbytes(256),
        "garbage-64k": rng.randbytes(65_536),
        "bom": b"\xef\xbb\xbf" + seed,
        "crlf": seed.replace(b"\n", b"\r\n"),
        "deep-arrays": b"[" * 100_000,
        "deep-objects": b'{"a":' * 50_000,
        "deep-balanced": b"[" * 40 + b"]" * 40,
        "alias-bomb": _alias_bomb(),
        "recursive-alias": b"a: &a [*a]\n",
        "huge-line": b"a" * (2 * 1024 * 1024),
        "huge-number": b"9" * 10_000,
        "top-level-list": b"[]",
        "top-level-null": b"null",
        "top-level-number": b"42",
        "top-level-string": b'"planegate"',
        "lone-surrogate": b'{"a": "\\ud800"}',
        "nan": b'{"a": NaN}',
        "python-tag": b"a: !!python/object/apply:os.system ['true']\n",
    }


def cases() -> list[tuple[str, str, bytes]]:
    """(target, mutation, bytes): every mutation of every seed."""
    found = []
    for target, seed in SEEDS.items():
        value = seed_value(target, seed)
        mutated = {**_raw(seed), **_structural(target, seed), **_swaps(value)}
        if target == "ledger":  # one event a line: a mutation is one line of the file
            mutated = {
                name: data.replace(b"\r", b"").replace(b"\n", b" ") + b"\n"
                for name, data in mutated.items()
            } | {"line-too-long": b'{"a": "' + b"a" * (2 * 1024 * 1024) + b'"}\n'}
        found += [(target, name, data) for name, data in sorted(mutated.items())]
    return found
