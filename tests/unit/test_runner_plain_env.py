"""What the child is given so it reads like a plain run: its environment, its command line's
padding, a tree without caches."""

from __future__ import annotations

import sys
from pathlib import Path

from planegate.runner import env as child_env
from planegate.runner import treescan
from planegate.runner.child.disguise import MODULE_ARGS, padding

SHELL = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/dev",
    "USER": "dev",
    "LOGNAME": "dev",
    "SHELL": "/bin/bash",
    "TERM": "xterm",
    "LANG": "C.UTF-8",
    "LC_CTYPE": "C.UTF-8",
    "TZ": "Europe/Paris",
    "PWD": "/home/dev/project",
    "_": "/usr/local/bin/planegate",
    "GITHUB_TOKEN": "ghs_secret",
    "SSH_AUTH_SOCK": "/tmp/agent.sock",
    "PYTEST_ADDOPTS": "-x",
}


def test_the_child_gets_a_shells_ordinary_names_with_the_callers_values() -> None:
    env = child_env.minimal(SHELL, "/tmp/scratch/home", cwd="/tmp/tree")
    for name in ("PATH", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_CTYPE", "TZ"):
        assert env[name] == SHELL[name]
    assert env["HOME"] == "/tmp/scratch/home" and env["PWD"] == "/tmp/tree"
    assert env["_"] == sys.executable  # as a shell sets it for `python -m pytest`
    assert not {"GITHUB_TOKEN", "SSH_AUTH_SOCK", "PYTEST_ADDOPTS"} & set(env)
    assert "PYTHONDONTWRITEBYTECODE" not in env


def test_the_hash_seed_is_the_callers_or_a_nonzero_one_the_child_hides() -> None:
    env = child_env.minimal(SHELL, "/h")
    assert env["PYTHONHASHSEED"] == child_env.GATE_SEED != "0"
    assert child_env.hidden(SHELL) == ["PYTHONHASHSEED"]
    theirs = {**SHELL, "PYTHONHASHSEED": "0"}
    assert child_env.minimal(theirs, "/h")["PYTHONHASHSEED"] == "0"
    assert child_env.hidden(theirs) == []
    random = {**SHELL, "PYTHONHASHSEED": "random"}
    assert child_env.minimal(random, "/h")["PYTHONHASHSEED"] == child_env.GATE_SEED
    assert child_env.hidden(random) == ["PYTHONHASHSEED"]


def test_names_a_shell_sets_are_left_out_when_the_caller_has_none() -> None:
    env = child_env.minimal({"PATH": "/bin"}, "/h", cwd="/tree")
    assert set(env) == {"PATH", "HOME", "PYTHONHASHSEED"}


def test_the_padding_gives_the_command_line_the_length_of_dash_m_pytest() -> None:
    started = ["-", padding()]
    assert sum(len(a) + 1 for a in started) == sum(len(a) + 1 for a in MODULE_ARGS)


def test_every_cache_of_the_tree_is_removed_and_a_link_is_not_followed(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    (tree / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (tree / "__pycache__").mkdir()
    (tree / "pkg" / "mod.py").write_text("x = 1\n")
    (tree / "legacy.pyc").write_bytes(b"\0")  # sourceless: reported, not a cache
    outside.mkdir()
    (outside / "keep.pyc").write_bytes(b"\0")
    (tree / "other").mkdir()
    (tree / "other" / "__pycache__").symlink_to(outside)
    treescan.clear_caches(tree)
    left = sorted(str(p.relative_to(tree)) for p in tree.rglob("*"))
    assert left == ["legacy.pyc", "other", "pkg", "pkg/mod.py"]
    assert (outside / "keep.pyc").exists()


TOX = """[tox]
envlist = py311

[testenv]
deps = pytest
setenv =
    TZ = Asia/Tokyo
    PYTHONHASHSEED=0
    GITHUB_TOKEN = from-tox
    COVERAGE_FILE = {toxworkdir}/.coverage
    file|.env
    HOME = /elsewhere
commands = pytest {posargs}

[testenv:lint]
setenv = LINT_ONLY = 1
"""


def test_what_the_projects_tox_sets_for_every_environment_reaches_the_child(
    tmp_path: Path,
) -> None:
    (tmp_path / "tox.ini").write_text(TOX, "utf-8")
    ci = child_env.ci_settings(tmp_path)
    assert ci == {
        "TZ": "Asia/Tokyo",
        "PYTHONHASHSEED": "0",
        "GITHUB_TOKEN": "from-tox",
        "HOME": "/elsewhere",
    }
    env = child_env.minimal(SHELL, "/tmp/scratch/home", ci=ci)
    assert env["TZ"] == "Asia/Tokyo" and env["PYTHONHASHSEED"] == "0"
    assert env["HOME"] == "/tmp/scratch/home" and "GITHUB_TOKEN" not in env
    assert child_env.hidden(SHELL, ci) == []  # the project's own seed stays visible
    assert child_env.ci_settings(tmp_path / "none") == {}
    (tmp_path / "tox.ini").write_text("[testenv\nbroken", "utf-8")
    assert child_env.ci_settings(tmp_path) == {}
