"""Plugins by any of their names, unknown ones refused, and a missing fixture's provider named:
real distributions written into a site folder, the real runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planegate.errors import UsageError
from planegate.runner import plugins, session

PLUGIN = "import pytest\n\n\n@pytest.fixture\ndef regress_demo_golden():\n    return 'checked'\n"


def site_with_plugin(root: Path) -> Path:
    """A site folder holding `pytest-regress-demo`, whose entry point `regressdemo` loads
    `pytest_regress_demo.plugin` (the shape of pytest-regressions)."""
    site = root / "site"
    info = site / "pytest_regress_demo-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Name: pytest-regress-demo\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\nregressdemo = pytest_regress_demo.plugin\n")
    package = site / "pytest_regress_demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(PLUGIN)
    (info / "RECORD").write_text(
        "pytest_regress_demo/__init__.py,,\npytest_regress_demo/plugin.py,,\n"
    )
    return site


@pytest.mark.parametrize(
    "name",
    [
        "regressdemo",  # the entry point
        "pytest-regress-demo",  # the distribution
        "pytest_regress_demo",  # the distribution as a module is spelled
        "PyTest.Regress_Demo",  # any separator, any case
        "pytest_regress_demo.plugin",  # the entry point's module
    ],
)
def test_a_plugin_is_found_by_any_of_its_names(tmp_path: Path, name: str) -> None:
    site = site_with_plugin(tmp_path)
    assert plugins.modules([name], [str(site)]) == ["pytest_regress_demo.plugin"]


def test_an_unknown_plugin_stops_the_run_naming_it(tmp_path: Path) -> None:
    site = site_with_plugin(tmp_path)
    with pytest.raises(UsageError) as raised:
        plugins.modules(["pytest-regresions"], [str(site)])
    text = str(raised.value)
    assert "pytest plugin 'pytest-regresions' is not installed" in text
    assert "pytest-regress-demo" in text  # what is installed, to compare the spelling with


def test_an_importable_module_is_a_plugin_by_its_module_name() -> None:
    assert plugins.modules(["json"]) == ["json"]


def test_a_missing_fixture_names_the_distribution_that_provides_it(tmp_path: Path) -> None:
    site = site_with_plugin(tmp_path)
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_golden.py").write_text(
        "def test_matches(regress_demo_golden):\n    assert regress_demo_golden == 'checked'\n"
    )
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PLANEGATE_PROJECT_SITE": str(site)}
    without = session.RunSpec(tree=tree, ini_options={}, plugins=(), timeout=300)
    outcome = session.run(without, parent_env=environ).outcome_of(
        "tests/test_golden.py::test_matches"
    )
    assert outcome.outcome == "error", outcome
    assert (
        "fixture 'regress_demo_golden' not found (the installed distribution "
        "'pytest-regress-demo' provides it: add it to pytest.plugins in planegate.yml"
    ) in outcome.message
    allowed = session.RunSpec(tree=tree, ini_options={}, plugins=("pytest_regress_demo",))
    again = session.run(allowed, parent_env=environ)
    assert again.outcome_of("tests/test_golden.py::test_matches").passed, again.output


def test_an_unknown_mark_names_the_distribution_that_registers_it(tmp_path: Path) -> None:
    site = site_with_plugin(tmp_path)
    plugin = site / "pytest_regress_demo" / "plugin.py"
    plugin.write_text(
        PLUGIN
        + "\n\ndef pytest_configure(config):\n"
        + "    config.addinivalue_line('markers', 'golden_only: compare goldens only')\n"
    )
    text = "pytest.PytestUnknownMarkWarning: Unknown pytest.mark.golden_only - is this a typo?"
    assert plugins.explain_missing_fixtures(text, [str(site)]) == text.replace(
        "golden_only -",
        "golden_only (the installed distribution 'pytest-regress-demo' provides it: add it "
        "to pytest.plugins in planegate.yml, or --plugin for init) -",
    )
    unknown = text.replace("golden_only", "nowhere_mark")
    assert "(a mark a plugin registers: install the plugin" in plugins.explain_missing_fixtures(
        unknown, [str(site)]
    )
