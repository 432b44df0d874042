"""A shard's evidence file (`planegate-shard/1`): what `gate --shard K/N --evidence PATH`
writes and `gate --merge` reads back.

It is written after project code ran, so the merge reads it as untrusted data: its size and
shape are checked (the envelope against `schemas/shard.schema.json`, the execution as it is
converted, like `run.json`), and its commits, configuration and slice against git and the
other shards (shards/merge.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from planegate import loading, schemas, wire
from planegate.errors import InputDataError
from planegate.gate import exchange
from planegate.gate.context import Context
from planegate.shards.slicing import Shard
from planegate.steps.run_facts import Commits, Execution

SCHEMA = wire.SHARD.name
HINT = wire.SHARD.hint


@dataclass(frozen=True)
class Sliced:
    """What a shard sliced: where the inventory came from, how many nodeids, their hash."""

    source: str
    count: int
    sha256: str


@dataclass(frozen=True)
class Evidence:
    shard: Shard
    version: str
    commits: Commits
    config: tuple[str, str]  # the configuration's path at the base tip and its sha256
    inventory: Sliced
    assigned: tuple[str, ...]
    exit_code: int  # the shard's own report of its slice
    report: Mapping[str, Any]
    execution: Execution
    timings: Mapping[str, float] = field(default_factory=dict)


def sliceable(inventory: Mapping[str, Iterable[str]]) -> tuple[str, ...]:
    """What the shards split: the base inventory's nodeids outside the freeze plane (frozen
    tests run in the shadow lane of shard 1), sorted."""
    return tuple(sorted({n for plane, ids in inventory.items() if plane != "freeze" for n in ids}))


def sliced(nodeids: Iterable[str], source: str) -> Sliced:
    ordered = sorted(set(nodeids))
    digest = hashlib.sha256("\n".join(ordered).encode("utf-8", "surrogatepass")).hexdigest()
    return Sliced(source, len(ordered), digest)


def config_of(ctx: Context) -> tuple[str, str]:
    """The base's configuration as the shards and the merge must share it."""
    return ctx.cfg.path, ctx.base.sha256(ctx.cfg.path) or hashlib.sha256(b"").hexdigest()


def to_json(evidence: Evidence) -> str:
    data = {
        "schema": SCHEMA,
        "planegate": evidence.version,
        "shard": {"index": evidence.shard.index, "total": evidence.shard.total},
        "commits": asdict(evidence.commits),
        "config": {"path": evidence.config[0], "sha256": evidence.config[1]},
        "inventory": asdict(evidence.inventory),
        "assigned": list(evidence.assigned),
        "exit_code": evidence.exit_code,
        "report": dict(evidence.report),
        "execution": exchange.to_value(evidence.execution),
        "timings": dict(evidence.timings),
    }
    return wire.SHARD.dump(data)


def read(path: Path) -> Evidence:
    """The evidence file at `path`; any problem is an InputDataError naming it (exit 65)."""
    try:
        if path.stat().st_size > loading.SHARD.max_bytes:
            raise InputDataError(f"{path}: larger than {loading.SHARD.max_bytes} bytes", HINT)
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputDataError(f"{path}: no such evidence file", HINT) from None
    except OSError as error:
        raise InputDataError(f"{path}: cannot be read: {error.strerror}") from None
    return from_json(data, str(path))


def from_json(text: str | bytes, source: str) -> Evidence:
    data = wire.SHARD.load(text, source)
    wrong = schemas.problem(data["report"], "report")
    if wrong is not None:
        raise InputDataError(f"{source}: report.{wrong}", HINT)
    raw = data["commits"]
    try:
        shard = Shard(int(data["shard"]["index"]), int(data["shard"]["total"]))
    except ValueError as error:
        raise InputDataError(f"{source}: {error}", HINT) from None
    commits = Commits(
        str(raw["base_tip"]),
        str(raw["head"]),
        str(raw["merge_base"]),
        str(raw["merged"]),
        tuple(str(path) for path in raw["conflicts"]),
    )
    execution = exchange.from_value(data["execution"], f"{source}: execution")
    if execution.commits != commits:
        raise InputDataError(f"{source}: its execution ran other commits than it names", HINT)
    inventory = data["inventory"]
    return Evidence(
        shard=shard,
        version=str(data["planegate"]),
        commits=commits,
        config=(str(data["config"]["path"]), str(data["config"]["sha256"])),
        inventory=Sliced(str(inventory["source"]), int(inventory["count"]), inventory["sha256"]),
        assigned=tuple(str(n) for n in data["assigned"]),
        exit_code=int(data["exit_code"]),
        report=data["report"],
        execution=execution,
        timings={str(k): float(v) for k, v in data["timings"].items()},
    )
