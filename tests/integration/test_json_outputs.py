"""`--format json` on verify, lint, ledger check, digest and explain: one object on stdout that
conforms to its schema, the same exit code as the text output."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate import schemas
from planegate.cli import main


def _json(argv: list[str], schema: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    code = main([*argv, "--format", "json", "-q"])
    payload = json.loads(capsys.readouterr().out)
    assert schemas.problem(payload, schema) is None
    assert payload["exit_code"] == code
    return code, payload


def test_verify_lists_each_mismatch(project: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    root = ["-C", str(project.root)]
    code, clean = _json([*root, "verify"], "verify", capsys)
    assert (code, clean["locked"], clean["mismatches"]) == (0, 1, [])
    (project.root / "tests/fix/data/label.txt").write_text("n=4")
    code, changed = _json([*root, "verify"], "verify", capsys)
    assert code == 3
    (mismatch,) = changed["mismatches"]
    assert (mismatch["path"], mismatch["kind"]) == ("tests/fix/data/label.txt", "changed")
    assert mismatch["expected"] != mismatch["actual"]


def test_lint_lists_each_violation(project: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    project.write({"tests/prop/test_clock.py": "import time\n\n\ndef test_t():\n    time.time()\n"})
    code, payload = _json(["-C", str(project.root), "lint"], "lint", capsys)
    assert code == 5
    assert payload["files"] == 2
    assert {(f["path"], f["line"]) for f in payload["findings"]} >= {
        ("tests/prop/test_clock.py", 5)
    }


def test_ledger_check_lists_problems_then_counts(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = project.root / "freeze_ledger.jsonl"
    code, missing = _json(["-C", str(project.root), "ledger", "check"], "ledger-check", capsys)
    assert (code, missing["exists"], missing["frozen"]) == (0, False, 0)
    ledger.write_text("{not json\n")
    code, broken = _json(["-C", str(project.root), "ledger", "check"], "ledger-check", capsys)
    assert code == 65
    assert broken["problems"][0]["line"] == 1
    assert broken["events"] is None
    ledger.write_text("")
    code, empty = _json(["-C", str(project.root), "ledger", "check"], "ledger-check", capsys)
    assert (code, empty["events"], empty["frozen"], empty["problems"]) == (0, 0, 0, [])


def test_digest_summarises_what_it_wrote(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project.root.parent / "digest.json"
    argv = ["-C", str(project.root), "digest", "--out", str(out)]
    code, payload = _json(argv, "digest-summary", capsys)
    written = json.loads(out.read_text())
    assert code == 0
    assert payload["commit"] == written["commit"] == project.git("rev-parse", "HEAD")
    assert payload["inventory"] == {plane: len(ids) for plane, ids in written["inventory"].items()}
    assert payload["protected_files"] == len(written["files"])


def test_explain_a_rule_and_an_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, rule = _json(["explain", "pg301"], "explain", capsys)
    assert (code, rule["rule"]["id"], rule["exit"]) == (0, "PG301", None)
    assert rule["rule"]["url"].endswith("/docs/findings.md#pg301")
    code, exit_entry = _json(["explain", "3"], "explain", capsys)
    assert (exit_entry["rule"], exit_entry["exit"]["name"]) == (None, "evidence")


def test_an_output_that_breaks_its_schema_is_an_internal_error() -> None:
    from planegate.commands import json_output
    from planegate.errors import InternalError

    with pytest.raises(InternalError) as refused:
        json_output.emit("verify", {"command": "verify", "exit_code": 0})
    assert refused.value.message.startswith("the verify output breaks its schema: ")


def test_no_ledger_yet_passes_as_the_gate_reads_it_but_a_named_file_must_exist(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(project.root), "ledger", "check"]) == 0
    assert "no ledger yet (the gate reads it as empty)" in capsys.readouterr().out
    assert main(["-C", str(project.root), "ledger", "check", "elsewhere.jsonl"]) == 65
    assert "elsewhere.jsonl: no such file" in capsys.readouterr().out
