"""Drift between action.yml, its documentation, the image pin and the release workflow."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

import planegate

ROOT = Path(__file__).resolve().parents[2]
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


ACTION_SH = (ROOT / "scripts/action.sh").read_text("utf-8")
# read by scripts/action.sh or action.yml's own steps, never by `planegate action`
HOST_ONLY = {"setup", "image", "digest-upload"}
# copied by `prepare` and handed to the containers by scripts/action.sh itself
STAGED = {"event-file", "ca-bundle"}
OUTPUTS = {
    "verdict",
    "exit-code",
    "findings",
    "report-path",
    "check-run-url",
    "comment-url",
    "sarif-id",
    "digest-path",
    "shard-artifact",
}


def entrypoint_reads() -> set[str]:
    """Every input name `planegate action` reads (github/inputs.py's helpers)."""
    source = (ROOT / "src/planegate/github/inputs.py").read_text("utf-8")
    return set(re.findall(r'_(?:input|flag|choice|patterns)\(\s*environ,\s*"([a-z-]+)"', source))


def docker_run_variables(phase: str) -> set[str]:
    """The `-e NAME` variables of one phase's `docker run` in scripts/action.sh."""

    def body(function: str) -> str:
        return ACTION_SH.split(f"{function}() {{", 1)[1].split("\n}\n", 1)[0]

    found = body(f"{phase}_phase")
    if "staged_inputs" in found:
        found += body("staged_inputs")
    return set(re.findall(r"-e ([A-Z_]+)", found))


def test_every_input_is_in_the_inputs_table_and_the_contract() -> None:
    table, outputs = (ROOT / "docs/action-inputs.md").read_text("utf-8").split("## Outputs")
    contract = (ROOT / "docs/action-contract.md").read_text("utf-8")
    inputs = sorted(ACTION["inputs"])
    for name in inputs:
        default = str(ACTION["inputs"][name].get("default", ""))
        row = next((line for line in table.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, f"docs/action-inputs.md has no row for {name}"
        if default and not default.startswith("${{"):
            assert f"`{default}`" in row, f"{name}: default {default!r} not in its row"
        assert f"`{name}`" in contract, f"docs/action-contract.md does not name {name}"
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M))
    assert documented == set(inputs), documented ^ set(inputs)
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", outputs.split("##")[0], re.M))
    assert listed == set(ACTION["outputs"]) == OUTPUTS


def test_the_inputs_table_is_the_only_one() -> None:
    github = (ROOT / "docs/github.md").read_text("utf-8")
    assert "| input |" not in github, "docs/github.md must link to action-inputs.md instead"


def test_what_the_entrypoint_reads_is_declared_and_what_is_declared_is_read() -> None:
    read = entrypoint_reads()
    declared = set(ACTION["inputs"]) - HOST_ONLY - {"github-token"}
    assert read == declared, (
        f"read, not declared: {read - declared}; declared, unread: {declared - read}"
    )
    assert "token" not in read and "report-path" not in read


def test_every_input_reaches_a_container_under_its_contract_name() -> None:
    contract = (ROOT / "docs/action-contract.md").read_text("utf-8")
    passed = {**step_env("run"), **step_env("judge")}
    judge = docker_run_variables("judge")
    run = docker_run_variables("run")
    for name in ACTION["inputs"]:
        wanted = "PLANEGATE_REPORT_FILE" if name == "report-file" else env_name(name)
        if name in {"image", "digest-upload"} | STAGED:
            assert step_env("prepare")[env_name(name)] == "${{ inputs." + name + " }}", name
        else:
            assert passed.get(wanted) == "${{ inputs." + name + " }}", (name, wanted)
        if name in HOST_ONLY:
            continue
        container = "INPUT_REPORT_FILE" if name == "report-file" else wanted
        assert container in judge, f"scripts/action.sh does not pass {container} to the judge"
        assert f"`{container}`" in contract, f"contract does not document {container}"
        if container in step_env("run") or name in STAGED:
            assert container in run, f"scripts/action.sh does not pass {container} to phase 1"
    assert "GITHUB_TOKEN" not in step_env("run"), "phase 1 must never receive the token"
    assert "GITHUB_TOKEN" not in run


def test_environment_reads_are_documented() -> None:
    contract = (ROOT / "docs/action-contract.md").read_text("utf-8")
    source = "".join(
        p.read_text("utf-8")
        for p in (ROOT / "src/planegate").rglob("*.py")
        if p.parent.name in ("github", "modes")
    ) + (ROOT / "src/planegate/commands/action.py").read_text("utf-8")
    for name in set(re.findall(r'"((?:INPUT|PLANEGATE)_[A-Z_]+)"', source)):
        assert f"`{name}`" in contract, f"{name} is read but docs/action-contract.md omits it"


def test_the_description_fits_the_marketplace() -> None:
    assert len(ACTION["description"]) < 125, len(ACTION["description"])


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
    assert "workflow_dispatch:" in RELEASE
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)


def test_the_release_tag_is_put_on_the_commit_that_pins_the_image() -> None:
    pin = RELEASE.index('git commit -q -am "release v$VERSION: pin the image by digest"')
    tag = RELEASE.index('git tag -a "v$VERSION"')
    assert RELEASE.index("PLANEGATE_IMAGE_PIN") < pin < tag
    assert "-pinned" not in RELEASE


def test_every_input_is_named_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    for name in ACTION["inputs"]:
        assert f"`{name}`" in readme, f"README.md does not name the input {name}"
