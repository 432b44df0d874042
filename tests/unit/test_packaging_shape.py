"""The shape of what publishing reads: pyproject's metadata, Dependabot's configuration, the
Dockerfile's base line it updates, and the release workflow's trusted publishing."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
HOME = "https://github.com/planegate/planegate"
PROJECT: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
RELEASE: dict[Any, Any] = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())
CI: dict[Any, Any] = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text("utf-8"))
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def test_project_urls_classifiers_and_keywords() -> None:
    urls = PROJECT["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Issues", "Changelog"}
    assert all(url == HOME or url.startswith(HOME + "/") for url in urls.values()), urls
    assert len(PROJECT["keywords"]) >= 3
    classifiers = PROJECT["classifiers"]
    assert classifiers == sorted(set(classifiers))
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: `license`
    assert {"Framework :: Pytest", "Typing :: Typed"} <= set(classifiers)


def test_the_python_classifiers_are_the_versions_ci_tests() -> None:
    listed = {
        c.rsplit(" ", 1)[1]
        for c in PROJECT["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    tested = set(CI["jobs"]["test"]["strategy"]["matrix"]["python"])
    assert listed == tested
    assert PROJECT["requires-python"] == f">={min(tested, key=lambda v: int(v.split('.')[1]))}"


def test_dependabot_updates_actions_pip_and_the_base_image() -> None:
    config = yaml.safe_load((ROOT / ".github/dependabot.yml").read_text("utf-8"))
    assert config["version"] == 2
    updates = {u["package-ecosystem"]: u for u in config["updates"]}
    assert set(updates) == {"github-actions", "pip", "docker"}
    for update in updates.values():
        assert update["directory"] == "/"
        assert update["schedule"]["interval"] in {"daily", "weekly"}
        assert update["cooldown"]["default-days"] >= 7  # zizmor's dependabot-cooldown


def test_the_base_image_is_pinned_on_a_from_line_dependabot_reads() -> None:
    lines = (ROOT / "Dockerfile").read_text("utf-8").splitlines()
    froms = [line for line in lines if line.startswith("FROM ")]
    pinned = [line for line in froms if "@sha256:" in line]
    assert len(pinned) == 1 and froms[0] == pinned[0], froms
    assert re.fullmatch(r"FROM python:3\.12-slim@sha256:[0-9a-f]{64} AS base", pinned[0])
    assert not [line for line in lines if line.startswith("ARG ") and "@sha256:" in line]
    stages = {"base"}
    for line in froms[1:]:
        match = re.fullmatch(r"FROM (\S+)(?: AS (\S+))?", line)
        assert match is not None and match[1] in stages | {"scratch"}, line
        stages.add(match[2] or "")


def test_the_release_runs_from_the_default_branch_only() -> None:
    assert set(RELEASE[True]) == {"workflow_dispatch"}  # YAML 1.1 reads `on` as True
    steps = RELEASE["jobs"]["check"]["steps"]
    guard = steps[0]
    assert guard["env"] == {"DEFAULT_BRANCH": "${{ github.event.repository.default_branch }}"}
    assert '"$GITHUB_REF" != "refs/heads/$DEFAULT_BRANCH"' in guard["run"]
    assert "exit 1" in guard["run"]
    for name, job in RELEASE["jobs"].items():
        assert name == "check" or "check" in job["needs"], name


def test_pypi_is_published_by_trusted_publishing_from_one_job() -> None:
    assert RELEASE["permissions"] == {}
    minting = [n for n, j in RELEASE["jobs"].items() if "id-token" in j.get("permissions", {})]
    assert minting == ["pypi"]
    job = RELEASE["jobs"]["pypi"]
    assert job["permissions"] == {"id-token": "write"}
    assert job["environment"]["name"] == "pypi"
    assert {"wheel", "pin"} <= set(job["needs"])  # after the tag exists
    (publish,) = [s for s in job["steps"] if "gh-action-pypi-publish" in s["uses"]]
    assert publish["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert SHA_PIN.match(publish["uses"])
    assert not {"password", "user"} & set(publish.get("with", {}))
    text = (ROOT / ".github/workflows/release.yml").read_text("utf-8")
    assert re.search(
        r"uses: pypa/gh-action-pypi-publish@[0-9a-f]{40} # v\d+\.\d+\.\d+$", text, re.M
    )
