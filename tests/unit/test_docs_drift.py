"""Docs that must stay in step with the code."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from planegate import exitcodes
from planegate.rules import RULES, catalogue_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_findings_catalogue_is_generated_from_the_rules() -> None:
    text = (ROOT / "docs/findings.md").read_text("utf-8")
    assert text == catalogue_markdown(), "run `make docs`"
    for rule_id in RULES:
        assert f"### {rule_id}\n" in text


def test_every_rule_id_belongs_to_its_steps_exit_code() -> None:
    for rule_id, rule in RULES.items():
        assert rule_id.startswith(f"PG{rule.step.exit_code}"), rule_id


def test_readme_opens_with_the_two_setup_commands() -> None:
    head = (ROOT / "README.md").read_text("utf-8").splitlines()[:8]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)
    assert (ROOT / ".ci/run").read_text("utf-8").strip().endswith("exec make test")


def test_every_exit_code_is_explained() -> None:
    codes = {entry.code for entry in exitcodes.EXIT_CODES}
    assert codes == {0, 1, 2, 3, 4, 5, 6, 64, 65, 69, 70, 78}


def _keys(schema: dict[str, object], prefix: str = "") -> list[str]:
    found = []
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            key = f"{prefix}{name}"
            nested = isinstance(sub, dict) and "properties" in sub
            found += _keys(sub, key + ".") if nested else [key]
    return found


def test_every_configuration_key_is_documented() -> None:
    from planegate.config.load import schema

    text = (ROOT / "docs/configuration.md").read_text("utf-8")
    keys = _keys(schema())
    assert "pytest.triage_runs" in keys
    missing = [key for key in keys if f"`{key}`" not in text]
    assert missing == []


def _architecture() -> ModuleType:
    spec = importlib.util.spec_from_file_location("architecture", ROOT / "scripts/architecture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_architecture_names_every_module_under_its_folder() -> None:
    architecture = _architecture()
    text = (ROOT / "docs/architecture.md").read_text("utf-8")
    assert architecture.page_with(text, architecture.render()) == text, "run `make docs`"
    assert "(no docstring)" not in text, "every module says what it is in its docstring"


def test_architecture_has_a_row_for_every_folder() -> None:
    text = (ROOT / "docs/architecture.md").read_text("utf-8").split(_architecture().BEGIN)[0]
    first_cells = re.findall(r"^\| ([^|]+) \|", text, re.MULTILINE)
    named = {folder for cell in first_cells for folder in re.findall(r"`([a-z_]+)/`", cell)}
    package = ROOT / "src/planegate"
    folders = {path.parent.name for path in package.glob("*/__init__.py")}
    assert sorted(folders - named) == []


def test_readme_links_work_on_the_package_index_page() -> None:
    text = (ROOT / "README.md").read_text("utf-8")
    relative = re.findall(r"\]\((?!https://|#)([^)]*)\)", text)
    assert relative == []


def _defines(path: Path, name: str) -> bool:
    import ast

    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return True
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def test_every_module_and_call_the_architecture_names_exists() -> None:
    """`gate/execute.py`, `gate/execute.execute`, `cli.COMMANDS`: each names a real module
    of the package (and a real function, class or constant in it)."""
    text = (ROOT / "docs/architecture.md").read_text("utf-8").split(_architecture().BEGIN)[0]
    package = ROOT / "src/planegate"
    tops = {p.stem for p in package.glob("*.py")} | {p.name for p in package.iterdir()}
    missing = []
    for token in re.findall(r"`([a-z_]+(?:/[a-z_]+)*(?:\.[A-Za-z_]+)?)`", text):
        if token.split("/", 1)[0].split(".", 1)[0] not in tops or "/" not in token + ".":
            continue
        module, _, name = token.partition(".")
        if name == "py":
            name = ""
        path = package / f"{module}.py"
        if not path.is_file():
            path = package / module / "__init__.py"
        if not path.is_file() or (name and not _defines(path, name)):
            missing.append(token)
    assert missing == []


def test_the_readmes_screenshots_exist_and_the_make_target_makes_them() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    shown = re.findall(
        r"!\[[^]]+\]\(https://raw\.githubusercontent\.com/[^/]+/[^/]+/main/([^)]+)\)", readme
    )
    assert sorted(shown) == ["docs/images/check-run.png", "docs/images/comment.png"]
    for path in shown:
        assert (ROOT / path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
    makefile = (ROOT / "Makefile").read_text("utf-8")
    target = makefile.split("\nscreenshots:", 1)[1].split("\n\n", 1)[0]
    assert "scripts/screenshots.py --out docs/images" in target
    script = (ROOT / "scripts/screenshots.py").read_text("utf-8")
    assert all(f'"{Path(path).stem}"' in script for path in shown)
