"""Phase 1 without Docker: `action.sh run` with a stand-in `docker`, and the image's
`planegate-phase1` (docker/phase1.sh) with stand-ins for `setpriv` and `chown`.

The stand-in `setpriv` records each call (its arguments, working folder and the variables
that matter) and runs the command after `--` as the current user, except planegate itself and
the kill of the project's processes, which it only records.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from helpers.github_support import read_outputs

ROOT = Path(__file__).resolve().parents[2]
PHASE1 = ROOT / "docker/phase1.sh"

SETPRIV = """#!/bin/sh
{ printf 'setpriv'; for a in "$@"; do printf ' %s' "$a"; done
  printf ' | cwd=%s home=%s ws=%s site=%s child=%s setup=%s\\n' "$PWD" "$HOME" \\
    "$GITHUB_WORKSPACE" "${PLANEGATE_PROJECT_SITE:-}" "${PLANEGATE_CHILD_USER:-}" \\
    "${PLANEGATE_SETUP-unset}"; } >>"$STUB_LOG"
case " $* " in *"kill -KILL"* | *" planegate "*) exit "${STUB_EXIT:-0}" ;; esac
while [ "$1" != "--" ]; do shift; done
shift
exec "$@"
"""
DOCKER = """#!/bin/sh
for a in "$@"; do printf '%s\\n' "$a"; done >"$STUB_LOG"
env >"$STUB_LOG.env"
echo "container output"
exit "${STUB_EXIT:-0}"
"""


def _stub(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    (folder / name).chmod(0o755)


class Phase1:
    """docker/phase1.sh in a temporary folder standing in for the container."""

    def __init__(self, root: Path) -> None:
        self.root, self.log = root, root / "calls.log"
        self.stubs, self.prefix = root / "stubs", root / "prefix"
        self.workspace, self.copy = root / "workspace", root / "copy"
        self.exchange, self.home = root / "exchange", root / "gate-home"
        _stub(self.stubs, "setpriv", SETPRIV)
        _stub(self.stubs, "chown", 'printf "chown %s\\n" "$*" >>"$STUB_LOG"\n')
        (self.stubs / "python").symlink_to(sys.executable)
        # a `python` in the project's bin must never be the one root or planegate runs
        _stub(self.prefix / "bin", "python", '#!/bin/sh\necho hijacked >>"$STUB_LOG"\n')
        (self.workspace / "sub").mkdir(parents=True)
        (self.workspace / "sub" / "setup.py").write_text("# the project\n")
        self.exchange.mkdir(mode=0o777)
        self.exchange.chmod(0o777)

    def run(self, **env: str) -> subprocess.CompletedProcess[str]:
        base = {
            "PATH": f"{self.prefix}/bin:{self.stubs}:/usr/bin:/bin",
            "STUB_LOG": str(self.log),
            "PLANEGATE_GATE_USER": "10001:10001",
            "PLANEGATE_PROJECT_USER": "10002:10002",
            "PLANEGATE_SETUP": 'echo "setup ran" >made-by-setup; echo "setup output"',
            "PLANEGATE_EXCHANGE": str(self.exchange),
            "PLANEGATE_COPY": str(self.copy),
            "PIP_PREFIX": str(self.prefix),
            "GITHUB_WORKSPACE": str(self.workspace),
            "INPUT_WORKING_DIRECTORY": "sub",
            "HOME": str(self.home),
        }
        return subprocess.run(
            ["sh", str(PHASE1)],
            env=base | env,
            capture_output=True,
            text=True,
            check=False,
            cwd=self.workspace / "sub",
        )

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def phase1(tmp_path: Path) -> Phase1:
    return Phase1(tmp_path)


def _site(prefix: Path) -> str:
    return sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)})


def test_setup_runs_as_the_project_user_in_a_copy_then_planegate_isolated(phase1: Phase1) -> None:
    done = phase1.run()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "setup output" in done.stdout
    calls = phase1.calls()
    assert "hijacked" not in calls
    dropped = "--clear-groups --inh-caps=-all --ambient-caps=-all --bounding-set=-all"
    dropped += " --no-new-privs"
    chmod, setup, kill, again, gate = [c for c in calls if c.startswith("setpriv")]
    assert chmod.startswith(f"setpriv --reuid=10001 --regid=10001 {dropped} -- chmod 0700 ")
    assert setup.startswith(f"setpriv --reuid=10002 --regid=10002 {dropped} -- sh -c ")
    assert f"cwd={phase1.copy}/sub home={phase1.prefix}-home ws={phase1.copy} " in setup
    assert kill == again and kill.startswith(f"setpriv --reuid=10002 --regid=10002 {dropped} -- ")
    assert "sh -c kill -KILL -1" in kill
    caps = "-all,+setuid,+setgid,+kill,+setpcap"
    wanted = (
        f"setpriv --reuid=10001 --regid=10001 --clear-groups --inh-caps={caps} "
        f"--ambient-caps={caps} --bounding-set={caps} --no-new-privs -- "
        f"{phase1.stubs}/python -I -B -m planegate action | cwd={phase1.workspace}/sub "
        f"home={phase1.home} ws={phase1.workspace} site={_site(phase1.prefix)} "
        "child=10002:10002 setup=unset"
    )
    assert gate == wanted
    # what root did: folders owned by the right user, the copy the project's
    assert f"chown 10001:10001 {phase1.home} {phase1.exchange}" in calls
    assert f"chown 10002:10002 {phase1.prefix} {phase1.prefix}-home" in calls
    assert f"chown -R -h 10002:10002 {phase1.copy}" in calls
    assert os.stat(phase1.exchange).st_mode & 0o777 == 0o700
    assert os.stat(phase1.home).st_mode & 0o777 == 0o700
    assert (phase1.copy / "sub" / "made-by-setup").read_text() == "setup ran\n"
    assert (phase1.copy / "sub" / "setup.py").exists()
    assert not (phase1.workspace / "sub" / "made-by-setup").exists()


def test_a_failing_setup_stops_phase_1_before_planegate_starts(phase1: Phase1) -> None:
    done = phase1.run(PLANEGATE_SETUP="exit 3")
    assert done.returncode == 69
    assert "planegate: setup failed" in done.stdout
    assert not any(" planegate action" in call for call in phase1.calls())


def test_setup_none_and_auto(phase1: Phase1) -> None:
    assert phase1.run(PLANEGATE_SETUP="none").returncode == 0
    assert not any(" sh -c " in c and "kill" not in c for c in phase1.calls())
    phase1.log.unlink()
    _stub(phase1.stubs, "planegate-setup-auto", '#!/bin/sh\necho auto >>"$STUB_LOG"\n')
    assert phase1.run(PLANEGATE_SETUP="auto").returncode == 0
    assert "auto" in phase1.calls()


@pytest.mark.parametrize(
    ("gate", "project"),
    [("10001:10001", "10001:10002"), ("0:0", "10002:10002"), ("10001:10001", "x"), ("", "1:1")],
)
def test_users_that_would_share_or_hold_root_are_refused(
    phase1: Phase1, gate: str, project: str
) -> None:
    done = phase1.run(PLANEGATE_GATE_USER=gate, PLANEGATE_PROJECT_USER=project)
    assert done.returncode != 0
    assert phase1.calls() == []


def _run_step(tmp: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """action.sh run with a stand-in docker that records its arguments."""
    stubs, workspace = tmp / "bin", tmp / "workspace"
    _stub(stubs, "docker", DOCKER)
    (workspace / "repo").mkdir(parents=True)
    (tmp / "dir" / "exchange").mkdir(parents=True)
    (tmp / "output").touch()
    base = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "STUB_LOG": str(tmp / "docker.args"),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_TOKEN": "ghs_never_in_phase_1",
        "PLANEGATE_DIR": str(tmp / "dir"),
        "PLANEGATE_IMAGE_REF": "planegate:test",
        "PLANEGATE_WORKDIR": str(workspace / "repo"),
        "INPUT_MODE": "gate",
        "INPUT_SETUP": "auto",
        "INPUT_WORKING_DIRECTORY": "repo",
    }
    done = subprocess.run(
        [str(ROOT / "scripts/action.sh"), "run"],
        env=base | env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done, (tmp / "docker.args").read_text().splitlines()


def test_the_run_step_starts_phase_1_as_root_with_few_capabilities(tmp_path: Path) -> None:
    done, args = _run_step(tmp_path, STUB_EXIT="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_outputs(tmp_path / "output")["exit-code"] == "1"
    assert "::stop-commands::" in done.stdout and "container output" in done.stdout
    assert args[:2] == ["run", "--rm"]
    caps = [args[i + 1] for i, a in enumerate(args) if a == "--cap-add"]
    assert sorted(caps) == ["CHOWN", "DAC_READ_SEARCH", "KILL", "SETGID", "SETPCAP", "SETUID"]
    wanted = {
        "--cap-drop": "ALL",
        "--security-opt": "no-new-privileges",
        "--user": "0:0",
        "--entrypoint": "planegate-phase1",
    }
    assert {flag: args[args.index(flag) + 1] for flag in wanted} == wanted
    workspace, exchange = tmp_path / "workspace", tmp_path / "dir" / "exchange"
    mounts = [args[i + 1] for i, a in enumerate(args) if a == "-v"]
    assert f"{workspace}:{workspace}:ro" in mounts and f"{exchange}:{exchange}" in mounts
    passed = {args[i + 1].split("=", 1)[0] for i, a in enumerate(args) if a == "-e"}
    assert not {n for n in passed if "TOKEN" in n or n in ("GITHUB_OUTPUT", "GITHUB_ENV")}
    assert {"PLANEGATE_GATE_USER", "PLANEGATE_PROJECT_USER", "PLANEGATE_SETUP"} <= passed
    environ = dict(
        line.split("=", 1) for line in (tmp_path / "docker.args.env").read_text().splitlines()
    )
    gate, project = environ["PLANEGATE_GATE_USER"], environ["PLANEGATE_PROJECT_USER"]
    own = "10001:10001" if os.geteuid() == 0 else f"{os.getuid()}:{os.getgid()}"
    assert gate == own and project in ("10002:10002", "10003:10003") and project != gate
    assert environ["PLANEGATE_SETUP"] == "auto"
    assert not (tmp_path / "dir" / "workspace").exists()  # no copy on the runner any more
