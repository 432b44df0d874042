"""The run phase's results as data (`run.json`), read back by the judge phase.

The run phase executes project code, so the judge treats this file as untrusted input: it
checks its shape and its commits, and recomputes everything git can tell it by itself. The
run phase's planegate process writes it (`write_file`: a temporary file renamed into place,
no symlink followed); in the action nothing else can write the folder (docs/security.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from planegate import loading, wire
from planegate.errors import InputDataError, ServiceUnavailable
from planegate.gate import exchange_probes
from planegate.gate.context import Commits
from planegate.gate.execute import Execution
from planegate.report import ShadowResult
from planegate.runner import fixture_probe as probe
from planegate.runner import session, traced
from planegate.runner.rerun import Rerun
from planegate.signs import wire as signs_wire
from planegate.wire import strings

SCHEMA = "planegate-run/1"
FILE_NAME = "run.json"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def to_json(execution: Execution) -> str:
    return json.dumps(to_value(execution)) + "\n"


def to_value(execution: Execution) -> dict[str, Any]:
    """The execution as a JSON value (also a shard's evidence holds it)."""
    run = asdict(execution.head_run)
    return {
        "schema": SCHEMA,
        "commits": asdict(execution.commits),
        "head_run": run,
        "base_inventory": execution.base_inventory,
        "shadow": [asdict(item) for item in execution.shadow],
        "probed": asdict(execution.probed),
        "overlay_notes": list(execution.overlay_notes),
        "triage": {nodeid: list(pair) for nodeid, pair in execution.triage.items()},
        "on_base": None if execution.on_base is None else asdict(execution.on_base),
        "timings": dict(execution.timings),
        "answers": exchange_probes.to_dict(execution.answers),
        "mains_signs": signs_wire.to_dict(execution.mains_signs),
    }


def write(folder: Path, execution: Execution) -> Path:
    return write_file(folder, FILE_NAME, to_json(execution))


def write_file(folder: Path, name: str, text: str) -> Path:
    """`text` as `folder/name`, atomically: a new file of a random name in the folder, then
    renamed over `name`. Neither step follows a symlink: one planted at `name` is replaced,
    never written through, and a folder that is itself a symlink is refused."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
    except OSError as error:
        raise ServiceUnavailable(f"{folder}: cannot write there: {error.strerror}") from None
    temp = f".{name}.{secrets.token_hex(8)}"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(text.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
    except OSError as error:
        raise ServiceUnavailable(f"{folder / name}: cannot be written: {error.strerror}") from None
    finally:
        os.close(dir_fd)
    return folder / name


def read(folder: Path, vouched: Mapping[str, list[str]] | None = None) -> Execution:
    """The run phase's execution; the base inventory main's digest vouches for (`vouched`)
    replaces the one the file says: the file was written after project code ran."""
    path = folder / FILE_NAME
    try:
        if path.stat().st_size > loading.RUN.max_bytes:
            raise InputDataError(f"{path}: larger than {loading.RUN.max_bytes} bytes")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputDataError(
            f"{path}: missing: the run phase left no results", "see the run step's log"
        ) from None
    except OSError as error:
        raise InputDataError(f"{path}: cannot be read: {error.strerror}") from None
    execution = from_json(data, str(path))
    return execution if vouched is None else replace(execution, base_inventory=vouched)


def from_json(text: str | bytes, source: str) -> Execution:
    # checked as the values are converted (wire.RUN: its schema documents the shape)
    return from_value(wire.RUN.load(text, source), source)


def from_value(data: Any, source: str) -> Execution:
    """An execution from a JSON value already loaded (with limits) from `source`."""
    try:
        return _execution(data)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        message = f"{source}: not a {SCHEMA} file ({type(error).__name__}: {error})"
        raise InputDataError(message) from None


def _execution(data: Any) -> Execution:
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"schema is not {SCHEMA!r}")
    raw = data["commits"]
    commits = Commits(
        base_tip=str(raw["base_tip"]),
        head=str(raw["head"]),
        merge_base=str(raw["merge_base"]),
        merged=str(raw["merged"]),
        conflicts=strings(raw["conflicts"]),
    )
    inventory = data["base_inventory"]
    if inventory is not None:
        inventory = {str(plane): list(strings(ids)) for plane, ids in inventory.items()}
    shadow = tuple(
        ShadowResult(str(s["nodeid"]), str(s["outcome"]), str(s["owner"])) for s in data["shadow"]
    )
    probed = probe.ProbeResult(
        strings(data["probed"]["probed"]),
        tuple((str(n), strings(files)) for n, files in data["probed"]["survivors"]),
    )
    return Execution(
        commits=commits,
        head_run=_run_result(data["head_run"]),
        base_inventory=inventory,
        shadow=shadow,
        probed=probed,
        overlay_notes=strings(data["overlay_notes"]),
        triage={str(n): (str(pair[0]), str(pair[1])) for n, pair in data["triage"].items()},
        on_base=_rerun(data.get("on_base")),
        timings={str(k): float(v) for k, v in (data.get("timings") or {}).items()},
        answers=exchange_probes.from_dict(data.get("answers")),
        mains_signs=signs_wire.from_dict(data.get("mains_signs")),
    )


def _outcomes(value: Any) -> dict[str, session.Outcome]:
    return {
        str(nodeid): session.Outcome(
            str(o["nodeid"]), str(o["outcome"]), str(o["message"]), float(o["duration"])
        )
        for nodeid, o in value.items()
    }


def _rerun(value: Any) -> Rerun | None:
    if value is None:
        return None
    return Rerun(
        commit=str(value["commit"]),
        runs=int(value["runs"]),
        outcomes=_outcomes(value["outcomes"]),
        failures={str(k): int(v) for k, v in value["failures"].items()},
        collected=strings(value["collected"]),
        closed=bool(value["closed"]),
        problem=str(value["problem"]),
        refused=str(value.get("refused", "")),
    )


def _run_result(run: dict[str, Any]) -> session.RunResult:
    outcomes = _outcomes(run["outcomes"])
    status = run["exit_status"]
    return session.RunResult(
        collected=strings(run["collected"]),
        selected=strings(run["selected"]),
        outcomes=outcomes,
        collect_errors=tuple((str(a), str(b)) for a, b in run["collect_errors"]),
        closed=bool(run["closed"]),
        exit_status=None if status is None else int(status),
        timed_out=bool(run["timed_out"]),
        output=str(run["output"]),
        canary_problem=None if run["canary_problem"] is None else str(run["canary_problem"]),
        stray_lines=int(run["stray_lines"]),
        notes=strings(run["notes"]),
        unfinished=strings(run["unfinished"]),
        examples={str(k): int(v) for k, v in run["examples"].items()},
        tampering=tuple(
            session.Tamper(str(t["event"]), str(t["path"]), int(t["line"]))
            for t in run["tampering"]
        ),
        reads={
            str(key): traced.Reads(strings(r["test"]), strings(r["prod"]))
            for key, r in run["reads"].items()
        },
        extra=_extra(run.get("extra", {})),
    )


def _extra(value: Any) -> dict[str, Any]:
    """The child's extra records by kind (imports, repeat): objects, checked for shape only."""
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise TypeError("extra: expected an object of objects")
    return {str(kind): dict(record) for kind, record in value.items()}
