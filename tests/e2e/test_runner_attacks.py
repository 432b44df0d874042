"""Each way a patch can fake a green run, blocked on a real repository by a real pytest child.

One repository (pytest configured in pyproject.toml, main's digest made once) is shared by
the module; every test gates its own branch off main.
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.gate import pipeline as gate
from planegate.gate.context import GateOptions
from planegate.runner.sandbox import WRITABLE_VARIABLE

BUG = "def add(a, b):\n    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"
COMMUTES = "tests/prop/test_add_props.py::test_add_commutes"
LABEL = "tests/fix/test_label.py::test_label_golden"
PYPROJECT = '[project]\nname = "calc"\nversion = "0.1"\n\n[tool.pytest.ini_options]\n'
PYPROJECT += 'testpaths = ["tests"]\n'
REWRITE_HOOK = (
    "    @pytest.hookimpl(hookwrapper=True)\n"
    "    def pytest_runtest_makereport(self, item, call):\n"
    "        outcome = yield\n"
    "        outcome.get_result().outcome = 'passed'\n"
)


class Shared:
    def __init__(self, repo: TestRepo, digest: Path, env_dump: Path) -> None:
        self.repo, self.digest, self.env_dump = repo, digest, env_dump

    def patch(self, name: str, files: dict[str, str | bytes]) -> None:
        self.repo.checkout("main")
        self.repo.branch(name)
        self.repo.commit(name, files)
        self.env_dump.unlink(missing_ok=True)

    def gate(self, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
        argv = ["-C", str(self.repo.root), "gate", "--base", "main", "--format", "json", "-q"]
        code = main([*argv, "--digest", str(self.digest), *extra])
        return code, json.loads(capsys.readouterr().out)

    def child_environ(self) -> dict[str, str]:
        data: dict[str, str] = json.loads(self.env_dump.read_text())
        return data


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    root = tmp_path_factory.mktemp("attacks")
    (root / "out").mkdir()
    env_dump = root / "out" / "child-environ.json"
    files = {k: v for k, v in PROJECT.items() if k != "pytest.ini"}
    files["pyproject.toml"] = PYPROJECT
    files["tests/fix/test_env_dump.py"] = (
        "import json\nimport os\nfrom pathlib import Path\n\n\ndef test_env_dump():\n"
        f"    Path({str(env_dump)!r}).write_text(json.dumps(dict(os.environ)))\n"
        "    assert 'GITHUB_TOKEN' not in os.environ\n"
    )
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo = TestRepo(root / "project")
    repo.commit("initial", files)
    digest = root / "digest.json"
    with pytest.MonkeyPatch.context() as env:
        env.setenv(WRITABLE_VARIABLE, str(env_dump.parent))  # the child's dump reaches us
        assert main(["-C", str(repo.root), "digest", "--out", str(digest), "-q"]) == 0
        yield Shared(repo, digest, env_dump)


def rules(report: dict[str, Any], step: str | None = None) -> set[str]:
    return {
        f["rule"]
        for s in report["steps"]
        if step is None or s["step"] == step
        for f in s["findings"]
        if f["severity"] == "error"
    }


def finding(report: dict[str, Any], rule: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [
        f for s in report["steps"] for f in s["findings"] if f["rule"] == rule
    ]
    assert found, f"no {rule} in {rules(report)}"
    return found[0]


def test_honest_fix_passes_and_the_child_gets_no_secrets(shared: Shared) -> None:
    shared.patch(
        "honest",
        {
            "calc/core.py": "def add(a, b):\n    return b + a\n\n\n"
            "def label(n):\n    return 'n=' + str(n)\n"
        },
    )
    secrets = {
        "GITHUB_TOKEN": "ghs_parent_token",
        "ACTIONS_RUNTIME_TOKEN": "runtime-token",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-token",
        "GITHUB_OUTPUT": "/tmp/out",
        "PYTEST_ADDOPTS": "-p no:hypothesis",
        "PYTEST_PLUGINS": "calc.cheat",
        "PYTHONPATH": "/somewhere/else",
    }
    options = GateOptions(
        root=shared.repo.root,
        base="main",
        digest_file=shared.digest,
        environ={**os.environ, **secrets},
    )
    report = gate.run(options)
    assert report.exit_code == 0, [f.message for f in report.findings]
    child = shared.child_environ()
    assert not set(secrets) & set(child)
    assert not [name for name in child if name.startswith(("GITHUB_", "ACTIONS_"))]
    assert child.get("TZ") == os.environ.get("TZ") and child["HOME"] != os.environ.get("HOME")
    assert child.get("PYTHONHASHSEED") == os.environ.get("PYTHONHASHSEED")  # the gate's is hidden
    assert not [name for name in child if name.startswith("PYTEST_")]  # autoload off by option
    assert not [v for v in child.values() if "planegate" in v.lower()]  # no product name
    planes_notes = report.steps[4].notes
    assert "probed 1 fixture tests with their data perturbed" in planes_notes


def test_pytest_addopts_and_tokens_in_the_callers_environment_do_not_reach_the_child(
    shared: Shared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared.patch("addopts-env", {"calc/core.py": BUG})
    monkeypatch.setenv("PYTEST_ADDOPTS", f"--deselect {COMMUTES}")
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_parent_token")
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", "runtime-token")
    code, report = shared.gate(capsys)
    assert code == 1
    assert finding(report, "PG101")["nodeid"] == COMMUTES
    child = shared.child_environ()
    assert {"PYTEST_ADDOPTS", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN"}.isdisjoint(child)


def test_addopts_deselect_in_the_heads_pyproject_is_ignored(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch(
        "addopts-ini",
        {"calc/core.py": BUG, "pyproject.toml": PYPROJECT + f'addopts = "--deselect {COMMUTES}"\n'},
    )
    code, report = shared.gate(capsys, "--human")
    assert code == 1
    assert finding(report, "PG101")["nodeid"] == COMMUTES  # it ran: main's ini, not the head's
    assert finding(report, "PG304")["path"] == "pyproject.toml"


def test_a_pytest_toml_added_by_the_head_is_protected_and_not_read(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = f'[pytest]\naddopts = ["--deselect", "{COMMUTES}"]\n'
    shared.patch("pytest-toml", {"calc/core.py": BUG, "pytest.toml": toml})
    code, report = shared.gate(capsys)
    assert code == 3  # an agent patch touched a protected path
    assert finding(report, "PG301")["path"] == "pytest.toml"
    assert finding(report, "PG101")["nodeid"] == COMMUTES  # it ran: main's ini, not the head's


def test_conftest_hook_rewriting_reports_to_passed_is_removed(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = "import pytest\n\n\nclass _Cheat:\n" + REWRITE_HOOK + "\n\n"
    hook += "def pytest_configure(config):\n    config.pluginmanager.register(_Cheat())\n"
    shared.patch("conftest-hook", {"calc/core.py": BUG, "tests/conftest.py": hook})
    code, report = shared.gate(capsys, "--human")
    assert code == 5  # the new hook is a test weakening (PG520) whoever adds it
    assert finding(report, "PG520")["path"] == "tests/conftest.py"
    assert finding(report, "PG101")["nodeid"] == COMMUTES  # removed: main's test still failed
    assert "PG104" not in rules(report)
    assert any("removed 1 protected files" in n for n in report["steps"][4]["notes"])


def test_report_rewriting_hook_registered_from_production_code_is_caught(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    cheat = (
        "import gc\n\nimport _pytest.config\nimport pytest\n\n\nclass _Cheat:\n"
        + REWRITE_HOOK
        + "\n\nfor _obj in gc.get_objects():\n"
        "    if isinstance(_obj, _pytest.config.Config):\n"
        "        _obj.pluginmanager.register(_Cheat())\n        break\n"
    )
    shared.patch("prod-hook", {"calc/core.py": BUG, "calc/__init__.py": cheat})
    code, report = shared.gate(capsys)
    assert code == 5
    assert {"PG550", "PG553"} <= rules(report, "hunks")
    # the hook reports every call as passed, but each outcome is the call's own exception's:
    # the must-fail canary and the failing test are sent failed, and the lie is named
    lies = [
        f["message"]
        for s in report["steps"]
        for f in s["findings"]
        if f["rule"] == "PG107" and "was reported passed; its call raised" in f["message"]
    ]
    assert lies, rules(report)
    assert "PG101" in rules(report)


def test_pytest11_entry_point_added_in_the_patch_is_flagged_and_not_loaded(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = "[pytest11]\ncheat = calc.cheat\n"
    shared.patch(
        "entry-point",
        {
            "calc/core.py": BUG,
            "calc/cheat.py": "import pytest\n\n\n"
            + textwrap.dedent(REWRITE_HOOK.replace("(self, ", "(")),
            "pyproject.toml": PYPROJECT
            + '\n[project.entry-points.pytest11]\ncheat = "calc.cheat"\n',
            # metadata the child could discover on sys.path if autoload were on
            "calc_cheat-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: calc-cheat\n"
            "Version: 1.0\n",
            "calc_cheat-1.0.dist-info/entry_points.txt": entry,
        },
    )
    code, report = shared.gate(capsys)
    assert code == 5
    paths = {f["path"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG558"}
    assert paths == {"pyproject.toml", "calc_cheat-1.0.dist-info/entry_points.txt"}
    assert finding(report, "PG550")["path"] == "calc/cheat.py"
    assert finding(report, "PG101")["nodeid"] == COMMUTES  # the plugin never loaded
    assert "PG104" not in rules(report)


def test_os_exit_at_import_is_an_unfinished_run(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("os-exit", {"calc/core.py": BUG + "\n\nimport os\n\nos._exit(0)\n"})
    code, report = shared.gate(capsys)
    assert code == 5
    assert finding(report, "PG554")["line"] == 11
    assert "without its closing record" in finding(report, "PG103")["message"]
    assert rules(report, "inventory") == set()  # a dead child is not a vanished inventory


def test_os_exit_via_atexit_changes_nothing(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch(
        "atexit",
        {"calc/core.py": "import atexit\nimport os\n\natexit.register(os._exit, 0)\n" + BUG},
    )
    code, report = shared.gate(capsys)
    assert code == 5
    assert "PG554" in rules(report, "hunks")  # os._exit is the error; the handler a warning
    assert finding(report, "PG555")["severity"] == "warning"
    assert finding(report, "PG101")["nodeid"] == COMMUTES  # it ran after the closing record


def test_pytest_exit_with_returncode_0_is_an_unfinished_run(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch(
        "pytest-exit",
        {
            "calc/core.py": "def add(a, b):\n    import pytest\n\n"
            "    pytest.exit('all good', returncode=0)\n\n\ndef label(n):\n    return f'n={n}'\n"
        },
    )
    code, report = shared.gate(capsys)
    assert code == 5
    assert finding(report, "PG550")["line"] == 2
    message = finding(report, "PG103")["message"]
    assert "session ended before" in message and COMMUTES in message
    assert finding(report, "PG102")["nodeid"] == COMMUTES


def test_always_true_eq_is_flagged_and_the_probe_catches_it(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    core = (
        "class Text(str):\n    def __eq__(self, other):\n        return True\n\n"
        "    __hash__ = str.__hash__\n\n\n"
        "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return Text('wrong')\n"
    )
    shared.patch("always-eq", {"calc/core.py": core})
    code, report = shared.gate(capsys)
    assert code == 5
    assert finding(report, "PG559")["line"] == 2
    probe = finding(report, "PG106")
    assert probe["nodeid"] == LABEL and "tests/fix/data/label.txt" in probe["message"]


def test_hypothesis_profile_with_one_example_loaded_by_production_code(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = (
        "from hypothesis import settings\n\n"
        "settings.register_profile('quick', max_examples=1)\nsettings.load_profile('quick')\n"
    )
    shared.patch("profile", {"calc/__init__.py": profile})
    code, report = shared.gate(capsys)
    assert code == 5
    assert finding(report, "PG550")["path"] == "calc/__init__.py"
    budget = finding(report, "PG105")
    assert budget["nodeid"] == COMMUTES and "max_examples=1" in budget["message"]


def test_pytest_skip_raised_from_production_code(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch(
        "prod-skip",
        {
            "calc/core.py": "import pytest\n\n\ndef add(a, b):\n    pytest.skip('later')\n\n\n"
            "def label(n):\n    return f'n={n}'\n"
        },
    )
    code, report = shared.gate(capsys)
    assert code == 5
    assert finding(report, "PG550")["line"] == 1
    skipped = finding(report, "PG102")
    assert skipped["nodeid"] == COMMUTES and "skipped" in skipped["message"]
