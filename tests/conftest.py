"""Shared fixtures: real temporary git repositories holding a small gated project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import settings

from helpers.repo_helper import TestRepo
from planegate.config import manifest as fixtures
from planegate.repo.hashing import bytes_sha256

# Property tests run with a frozen seed and a fixed budget (DESIGN §1).
settings.register_profile("planegate", derandomize=True, max_examples=100, deadline=None)
settings.load_profile("planegate")

CONFIG = """\
version: 1
owner: "@org/plane-map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths: ["tests/fix/"]
    data: ["tests/fix/data/"]
pytest:
  plugins: ["hypothesis"]
  triage_runs: 0
"""

PROJECT: dict[str, str | bytes] = {
    "planegate.yml": CONFIG,
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "CODEOWNERS": "* @org/maintainers\n",
    "calc/__init__.py": "",
    "calc/core.py": "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n",
    "tests/prop/test_add_props.py": (
        "from hypothesis import given, strategies as st\n\nfrom calc.core import add\n\n\n"
        "@given(st.integers(), st.integers())\ndef test_add_commutes(a, b):\n"
        "    assert add(a, b) == add(b, a)\n"
    ),
    "tests/fix/test_label.py": (
        "from pathlib import Path\n\nfrom calc.core import label\n\n\n"
        "def test_label_golden():\n"
        "    expected = (Path(__file__).parent / 'data' / 'label.txt').read_text()\n"
        "    assert label(3) == expected\n"
    ),
    "tests/fix/data/label.txt": "n=3",
}


def manifest_for(files: dict[str, str | bytes]) -> str:
    hashes = {
        path: bytes_sha256(content.encode() if isinstance(content, str) else content)
        for path, content in files.items()
        if path.startswith("tests/fix/data/")
    }
    return fixtures.render(fixtures.lock(None, hashes, "2026-12-01"))


@pytest.fixture(autouse=True)
def pinned_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test sees the same git identity and an empty HOME: no user's global git
    configuration, hooks or credentials leak into the repositories the tests build."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "planegate tests")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "tests@planegate.invalid")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that build repositories or start processes are integration tests: marked slow,
    so `pytest -m "not slow"` is the quick inner loop."""
    integration = ("TestRepo", "run_cli", "running", "FakeGitHub", "Project")
    for item in items:
        names = getattr(item, "fixturenames", ())
        module = getattr(item, "module", None)
        if "project" in names or any(hasattr(module, name) for name in integration):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def project(tmp_path: Path) -> TestRepo:
    """A gated project on `main` whose suite passes, with its manifest locked."""
    repo = TestRepo(tmp_path / "project")
    files = dict(PROJECT)
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo.commit("initial", files)
    return repo


def load_json(text: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(text)
    return data
