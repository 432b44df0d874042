"""The project's TOML addopts in the gate-written ini: a marker expression stays one argument."""

from __future__ import annotations

import shlex

import iniconfig

from planegate.runner import pytest_ini
from planegate.runner.pytest_ini import render


def read_back(text: str) -> dict[str, str]:
    section = iniconfig.IniConfig("gate.ini", data=text)["pytest"]
    return {name: section[name] for name in section}


def test_the_toml_addopts_with_a_marker_expression_is_three_arguments() -> None:
    text = render({"addopts": ["-m", "not property", "--strict-markers"], "xfail_strict": True})
    assert shlex.split(read_back(text)["addopts"]) == ["-m", "not property", "--strict-markers"]
    assert read_back(text)["xfail_strict"] == "true"
    assert pytest_ini.testpaths({"testpaths": "tests 'my tests'"}) == ["tests", "my tests"]
