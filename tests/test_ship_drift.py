"""Drift between action.yml, its documentation, the image pin and the release workflow."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

import planegate

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
RELEASE = (ROOT / ".github/workflows/release.yml").read_text("utf-8")
PIN_LINE = re.compile(
    r"^ +PLANEGATE_IMAGE_PIN: ghcr\.io/[a-z0-9-]+/planegate@sha256:[0-9a-f]{64}$", re.M
)


def env_name(input_name: str) -> str:
    """The documented contract: kebab-case input -> INPUT_UPPER_SNAKE (the token: GITHUB_TOKEN)."""
    if input_name == "github-token":
        return "GITHUB_TOKEN"
    return "INPUT_" + input_name.upper().replace("-", "_")


def step_env(step_id: str) -> dict[str, str]:
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == step_id]
    env: dict[str, str] = step["env"]
    return env


def test_every_input_is_in_the_inputs_table_and_the_contract() -> None:
    table, outputs = (ROOT / "docs/action-inputs.md").read_text("utf-8").split("## Outputs")
    contract = (ROOT / "docs/action-contract.md").read_text("utf-8")
    inputs = sorted(ACTION["inputs"])
    assert len(inputs) >= 12
    for name in inputs:
        default = str(ACTION["inputs"][name].get("default", ""))
        row = next((line for line in table.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, f"docs/action-inputs.md has no row for {name}"
        if default and not default.startswith("${{"):
            assert f"`{default}`" in row, f"{name}: default {default!r} not in its row"
        assert f"`{name}`" in contract, f"docs/action-contract.md does not name {name}"
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M))
    assert documented == set(inputs), documented ^ set(inputs)
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", outputs, re.M))
    assert listed == set(ACTION["outputs"]) == {"verdict", "exit-code", "findings", "report-path"}


def test_every_input_reaches_a_container_under_its_contract_name() -> None:
    contract = (ROOT / "docs/action-contract.md").read_text("utf-8")
    host_only = {"image", "setup", "report-file"}  # read by scripts/action.sh, documented so
    passed = {**step_env("run"), **step_env("judge")}
    for name in ACTION["inputs"]:
        if name == "image":
            assert step_env("prepare")["INPUT_IMAGE"] == "${{ inputs.image }}"
            continue
        wanted = "PLANEGATE_REPORT_FILE" if name == "report-file" else env_name(name)
        assert passed.get(wanted) == "${{ inputs." + name + " }}", (name, wanted)
        if name not in host_only:
            assert f"`{wanted}`" in contract, f"contract does not document {wanted}"
    assert "GITHUB_TOKEN" not in step_env("run"), "phase 1 must never receive the token"


def test_run_scripts_never_interpolate_expressions() -> None:
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def test_pin_line_is_the_one_the_release_rewrites() -> None:
    text = (ROOT / "action.yml").read_text("utf-8")
    pins = PIN_LINE.findall(text)
    assert len(pins) == 1, pins
    sed = re.search(r'sed -i -E "s#\^\( \+PLANEGATE_IMAGE_PIN: \)\.\*\\\$#', RELEASE)
    assert sed is not None, "release.yml no longer rewrites the PLANEGATE_IMAGE_PIN line"
    assert "IMAGE: ghcr.io/${{ github.repository_owner }}/planegate" in RELEASE
    rewritten = re.sub(
        r"^( +PLANEGATE_IMAGE_PIN: ).*$",
        r"\g<1>ghcr.io/acme/planegate@sha256:" + "ab" * 32,
        text,
        flags=re.M,
    )
    assert len(PIN_LINE.findall(rewritten)) == 1
    assert yaml.safe_load(rewritten)["runs"] == {
        **ACTION["runs"],
        "steps": [
            {
                **s,
                "env": {
                    **s["env"],
                    "PLANEGATE_IMAGE_PIN": "ghcr.io/acme/planegate@sha256:" + "ab" * 32,
                },
            }
            if s.get("id") == "prepare"
            else s
            for s in ACTION["runs"]["steps"]
        ],
    }


def test_versions_agree_with_what_the_release_checks() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    (version,) = re.findall(r'^version = "(.*)"$', pyproject, re.M)
    assert planegate.__version__ == version
    init = (ROOT / "src/planegate/__init__.py").read_text("utf-8")
    assert re.findall(r'^__version__ = "(.*)"$', init, re.M) == [version]
    # release.yml reads both with these exact patterns and compares them to the tag.
    assert """sed -n 's/^version = "\\(.*\\)"$/\\1/p' pyproject.toml""" in RELEASE
    assert """sed -n 's/^__version__ = "\\(.*\\)"$/\\1/p' src/planegate/__init__.py""" in RELEASE
    assert 'tags: ["v[0-9]+.[0-9]+.[0-9]+"]' in RELEASE
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)


def test_every_input_is_named_in_the_readme_and_read_by_planegate_action() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    source = (ROOT / "src/planegate/github/inputs.py").read_text("utf-8")
    read = set(re.findall(r'_(?:input|flag|choice|patterns)\(\s*environ,\s*"([a-z-]+)"', source))
    for name in ACTION["inputs"]:
        assert f"`{name}`" in readme, f"README.md does not name the input {name}"
    # setup and image are used by the composite action's shell steps; the token by the client
    assert set(ACTION["inputs"]) - {"setup", "image", "github-token"} <= read
