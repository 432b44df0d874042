"""One gated project shared by the tamper tests: a real bug on each branch, a real CLI gate.

`calc.core.add` is wrong on every attack branch (`a - b`), so main's property test fails and
the gate says exit 1 without any trick. Each attack then tries to turn that into exit 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main

BUG = "def add(a, b):\n    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"
COMMUTES = "tests/prop/test_add_props.py::test_add_commutes"
PYPROJECT = '[project]\nname = "calc"\nversion = "0.1"\n\n[tool.pytest.ini_options]\n'
PYPROJECT += 'testpaths = ["tests"]\n'

# Registers a report-rewriting hook once it holds pytest's Config (names built at run time,
# so no scan of the source sees pytest, gc or sys._getframe by name).
REWRITE = """
import importlib as _il


def _rewrite(config):
    pt = _il.import_module("".join(["py", "test"]))

    class _Green:
        @pt.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            report = outcome.get_result()
            if report.nodeid.startswith("te" + "sts/"):
                report.outcome = "passed"

    config.pluginmanager.register(_Green())


def _config_in(values):
    for value in values:
        if hasattr(value, "pluginmanager") and hasattr(value, "getini"):
            return value
        inner = getattr(value, "config", None)
        if hasattr(inner, "pluginmanager"):
            return inner
    return None
"""


_TEMPLATE = tempfile.TemporaryDirectory(prefix="planegate-attack-template-")


def _template(main_files: Mapping[str, str | bytes] | None = None, name: str = "") -> Path:
    """The project committed on main and its digest, built on first use (`main_files` replace
    or add to the shared project's files, in a template of their own called `name`)."""
    root = Path(_TEMPLATE.name) / (name or "shared")
    digest = root / "digest.json"
    if not digest.exists():
        files = {k: v for k, v in PROJECT.items() if k != "pytest.ini"}
        files.update(main_files or {})
        files["pyproject.toml"] = PYPROJECT
        files["tests/fixtures.lock.json"] = manifest_for(files)
        repo = TestRepo(root / "project")
        repo.commit("initial", files)
        assert main(["-C", str(repo.root), "digest", "--out", str(digest), "-q"]) == 0
    return root


class Shared:
    """The repository, main's digest, and one gate run per attack branch."""

    def __init__(
        self, root: Path, main_files: Mapping[str, str | bytes] | None = None, name: str = ""
    ) -> None:
        """A copy of the repository and digest made once per session (the digest runs main's
        tests)."""
        shutil.copytree(_template(main_files, name), root, symlinks=True, dirs_exist_ok=True)
        self.root = root
        self.repo = TestRepo(root / "project", init=False)
        self.digest = root / "digest.json"

    def patch(
        self, name: str, files: Mapping[str, str | bytes], links: dict[str, str] | None = None
    ) -> None:
        self.repo.checkout("main")
        self.repo.branch(name)
        self.repo.write(files)
        for link, target in (links or {}).items():
            path = self.repo.root / link
            path.unlink(missing_ok=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target)
        self.repo.commit(name)

    def gate(self, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
        argv = ["-C", str(self.repo.root), "gate", "--base", "main", "--format", "json", "-q"]
        code = main([*argv, "--digest", str(self.digest), *extra])
        return code, json.loads(capsys.readouterr().out)

    def gate_cli(self, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """The gate as its own process, holding `env` from its start (as /proc shows it)."""
        import planegate

        source = str(Path(planegate.__file__).resolve().parents[1])
        argv = ["-C", str(self.repo.root), "gate", "--base", "main", "--format", "json", "-q"]
        done = subprocess.run(
            [sys.executable, "-m", "planegate", *argv, "--digest", str(self.digest)],
            env={**os.environ, "PYTHONPATH": source, **env},
            capture_output=True,
            text=True,
            check=False,
        )
        return done.returncode, json.loads(done.stdout)


def without_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable that looks like a credential: `--no-sandbox` refuses to run beside one."""
    from planegate.runner.sandbox import secret_names

    for name in secret_names(os.environ):
        monkeypatch.delenv(name)


# the reach review's rules (analysis/reach.py): a patch whose production code reaches the
# harness stops at step 5 for a person, before the planes step's run-time findings decide
REVIEWED = frozenset({"PG590", "PG591", "PG592", "PG593", "PG594", "PG595"})


def reviewed(code: int, report: dict[str, Any]) -> bool:
    """The patch stopped at step 5 on a line the reach review names for a person."""
    return code == 5 and bool(REVIEWED & errors(report, "hunks"))


def errors(report: dict[str, Any], step: str | None = None) -> set[str]:
    return {
        f["rule"]
        for s in report["steps"]
        if step is None or s["step"] == step
        for f in s["findings"]
        if f["severity"] == "error"
    }


def tampering(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG107"]


def tamper_named(report: dict[str, Any], words: str, path: str | None = None) -> dict[str, Any]:
    """The PG107 finding whose message holds `words` (and names `path`, when given)."""
    found = [f for f in tampering(report) if words in f["message"]]
    found = [f for f in found if path is None or f["path"] == path]
    messages = [f["message"] for f in tampering(report)]
    assert found, f"no PG107 with {words!r} at {path}: {messages} (all: {errors(report)})"
    assert found[0]["message"].startswith("the run was tampered with: ")
    return found[0]
