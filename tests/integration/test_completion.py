"""Shell completion: static scripts written from the parser, shipped in the wheel, that
complete commands, options and choices without starting Python."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "src/planegate/completion"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("completion", ROOT / "scripts/completion.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_scripts_are_the_parsers_own() -> None:
    generator = _generator()
    for name, render in generator.SCRIPTS.items():
        assert (SHIPPED / name).read_text("utf-8") == render(), "run `make docs`"


def test_completing_never_starts_python() -> None:
    for path in SHIPPED.iterdir():
        text = path.read_text("utf-8")
        assert "python" not in text
        assert "$(planegate" not in text and "`planegate" not in text


def _complete(*words: str) -> list[str]:
    """What bash offers for the last word of `planegate WORDS...`."""
    script = (
        f"source {SHIPPED / 'planegate.bash'}\n"
        f"COMP_WORDS=(planegate {' '.join(repr(w) for w in words)})\n"
        f"COMP_CWORD={len(words)}\n"
        '_planegate\nprintf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    return done.stdout.split()


@pytest.mark.parametrize(
    ("words", "offered"),
    [
        (("ga",), ["gate"]),
        (("gate", "--ba"), ["--base"]),
        (("gate", "--format", ""), ["text", "json", "sarif"]),
        (("-C", "repo", "digest", "--coll"), ["--collect-only"]),
        (("ledger", "ch"), ["check"]),
    ],
)
def test_bash_completes_commands_options_and_choices(
    words: tuple[str, ...], offered: list[str]
) -> None:
    assert _complete(*words) == offered
