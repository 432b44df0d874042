"""Bad input never crashes, never hangs, never hides: a corpus of mutations of every input
through its loader, a representative part of it through the real CLI, and a run that times out
judged by its own failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import planegate
from helpers.bad_input_cases import EVENT, NODE, SEEDS, SHA, cases
from helpers.ledger_cases import freeze_obj
from helpers.project import CONFIG, PROJECT, manifest_for
from helpers.repo_helper import TestRepo

CASES = cases()
BY_NAME = {(target, name): data for target, name, data in CASES}


# --------------------------------------------------------------------------- the real CLI


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, str, str, float]:
    source = str(Path(planegate.__file__).resolve().parents[1])
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "planegate", *args],
        cwd=cwd,
        env={**base, "PYTHONPATH": source, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    repo = TestRepo(tmp_path_factory.mktemp("bad-input") / "project")
    files = dict(PROJECT)
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo.commit("initial", files)
    return repo


def _one_error_line(code: int, expected: int, err: str) -> None:
    assert code == expected, err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1 and err.startswith("planegate: "), err


CONFIG_CASES = [
    "alias-bomb",
    "recursive-alias",
    "deep-arrays",
    "bad-continuation",
    "duplicate-first-key",
    "python-tag",
]


@pytest.mark.parametrize("name", CONFIG_CASES)
def test_a_bad_planegate_yml_exits_78_at_once(name: str, tmp_path: Path) -> None:
    (tmp_path / "planegate.yml").write_bytes(BY_NAME["config", name])
    code, _, err, took = run_cli("-C", str(tmp_path), "verify")
    _one_error_line(code, 78, err)
    assert took < 30
    assert "planegate.yml" in err


@pytest.mark.parametrize("name", ["deep-objects", "garbage-64k", "files=list"])
def test_a_bad_manifest_exits_65(name: str, tmp_path: Path) -> None:
    (tmp_path / "planegate.yml").write_text(CONFIG)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/fixtures.lock.json").write_bytes(BY_NAME["manifest", name])
    code, _, err, _ = run_cli("-C", str(tmp_path), "verify")
    _one_error_line(code, 65, err)
    assert "tests/fixtures.lock.json" in err


@pytest.mark.parametrize("name", ["deep-arrays", "line-too-long", "event=list", "latin-1-byte"])
def test_a_bad_ledger_line_exits_65(name: str, tmp_path: Path) -> None:
    ledger = tmp_path / "freeze_ledger.jsonl"
    ledger.write_bytes(SEEDS["ledger"] + BY_NAME["ledger", name])
    code, out, err, _ = run_cli("ledger", "check", str(ledger), cwd=tmp_path)
    _one_error_line(code, 65, err)
    assert out and all(line.startswith(f"{ledger}:2: ") for line in out.splitlines())


@pytest.mark.parametrize("name", ["deep-arrays", "garbage-256", "lone-surrogate", "huge-number"])
def test_a_bad_digest_exits_65_before_any_test_runs(
    name: str, repo: TestRepo, tmp_path: Path
) -> None:
    digest = tmp_path / "planegate-digest.json"
    digest.write_bytes(BY_NAME["digest", name])
    code, _, err, _ = run_cli(
        "-C", str(repo.root), "gate", "--base", "main", "--digest", str(digest), "-q"
    )
    _one_error_line(code, 65, err)
    assert str(digest) in err


def _action_env(tmp: Path, event: bytes, **extra: str) -> dict[str, str]:
    (tmp / "event.json").write_bytes(event)
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_REPOSITORY": "octo/demo",
        "GITHUB_EVENT_PATH": str(tmp / "event.json"),
        "GITHUB_WORKSPACE": str(tmp),
        **extra,
    }


@pytest.mark.parametrize("name", ["garbage-64k", "deep-objects", "pull_request=text"])
def test_a_bad_event_payload_exits_65_with_one_error_command(name: str, tmp_path: Path) -> None:
    code, out, err, _ = run_cli("action", env=_action_env(tmp_path, BY_NAME["event", name]))
    assert (code, err) == (65, "")
    assert len(out.splitlines()) == 1 and out.startswith("::error title=planegate::")


def test_a_bad_run_json_fails_the_judge_with_65(repo: TestRepo, tmp_path: Path) -> None:
    head = repo.git("rev-parse", "HEAD")
    event = json.loads(json.dumps(EVENT).replace(SHA, head))
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    (exchange / "run.json").write_bytes(BY_NAME["run", "head_run.outcomes=list"])
    env = _action_env(
        tmp_path,
        json.dumps(event).encode(),
        INPUT_PHASE="judge",
        PLANEGATE_EXCHANGE=str(exchange),
        **{"INPUT_WORKING-DIRECTORY": str(repo.root)},
    )
    code, out, err, _ = run_cli("action", "-q", env=env)
    assert code == 65, (out, err)
    assert "Traceback" not in out + err
    assert f"{exchange / 'run.json'}: not a planegate-run/1 file" in out


# --------------------------------------------------------------------------- a run that times out

GONE = "tests/fix/test_gone.py::test_gone"


@pytest.fixture(scope="module")
def hanging(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestRepo]:
    repo = TestRepo(tmp_path_factory.mktemp("timeout") / "project")
    files = dict(PROJECT)
    config = CONFIG.replace("pytest:\n", "  freeze:\n    max_fraction: 0.9\npytest:\n")
    files["planegate.yml"] = config + "  timeout: 8\n"
    files["freeze_ledger.jsonl"] = json.dumps(freeze_obj(nodeid=GONE, review_by=None)) + "\n"
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo.commit("initial", files)
    repo.branch("hang")
    repo.commit(
        "hang", {"calc/core.py": "import time\n\ntime.sleep(60)\n" + str(PROJECT["calc/core.py"])}
    )
    yield repo


def test_a_timed_out_run_is_judged_by_its_own_failure(hanging: TestRepo) -> None:
    code, out, err, _ = run_cli(
        "-C", str(hanging.root), "gate", "--base", "main", "--format", "json", "-q"
    )
    report = json.loads(out)
    rules = {f["rule"] for s in report["steps"] for f in s["findings"]}
    notes = {s["step"]: s["notes"] for s in report["steps"]}
    assert code == 1, err
    assert "PG103" in rules and "timed out" in json.dumps(report)
    assert not rules & {"PG404", "PG205"}  # no suite-size verdict on a run that did not finish
    assert notes["ledger"] == ["1 frozen; frozen fraction not checked: the test run did not finish"]


# --------------------------------------------------------------------------- the other readers


def test_migrate_refuses_an_alias_bomb_at_once(tmp_path: Path) -> None:
    (tmp_path / "scoring_map.yaml").write_bytes(BY_NAME["config", "alias-bomb"])
    code, _, err, _ = run_cli("-C", str(tmp_path), "migrate", "scoring_map.yaml")
    _one_error_line(code, 78, err)
    assert "scoring_map.yaml:" in err and "aliases counted expanded" in err


def test_a_malformed_evidence_bundle_exits_65(repo: TestRepo, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(b"[" * 100_000)
    code, _, err, _ = run_cli(
        "-C", str(repo.root), "freeze", NODE, "--class", "timing", "--owner", "me",
        "--note", "n", "--evidence", str(bundle), "-q",
    )  # fmt: skip
    _one_error_line(code, 65, err)
    assert "not an evidence bundle (not JSON: nested deeper than 32 levels)" in err
