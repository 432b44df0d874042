"""Argument parsing and exit codes only; every command's work lives in its own module."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from planegate import __version__, exitcodes
from planegate.errors import PlanegateError, UsageError

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on bad usage; planegate's usage exit is 64 (2 means inventory)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}", f"see `{self.prog} --help`")


def _common() -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument(
        "-C",
        dest="root",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="run as if started in PATH (like git -C)",
    )
    common.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show tracebacks of internal errors",
    )
    common.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=argparse.SUPPRESS,
        help="no progress on stderr",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(
        prog="planegate",
        parents=[common],
        description="Gate pull requests written by coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"planegate {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, handler: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, parents=[common], help=help, description=help)
        sub.set_defaults(handler=handler)
        return sub

    gate = add("gate", "gate", "run the ordered gate on the patch (head) against main (base)")
    gate.add_argument("--base", required=True, help="main's ref (the merge base is used)")
    gate.add_argument("--head", default="HEAD", help="the patch's ref (default HEAD)")
    gate.add_argument("--digest", type=Path, help="main's digest file to check and use")
    gate.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    gate.add_argument("--output", type=Path, help="write the report here (in --format)")
    gate.add_argument("--config", help="configuration path at the base (default planegate.yml)")
    gate.add_argument(
        "--human",
        action="store_true",
        help="the patch is not an agent's: list protected changes for review",
    )
    gate.add_argument("--author", default="the patch author", help="who wrote the patch")

    digest = add("digest", "digest", "write main's digest of protected evidence")
    digest.add_argument("--out", type=Path, default=Path("planegate-digest.json"))
    digest.add_argument("--commit", default="HEAD")
    digest.add_argument("--config")

    lock = add(
        "lock", "lock", "lock the fixture plane's data files in the manifest (a person's act)"
    )
    lock.add_argument("--config")
    lock.add_argument(
        "--covers",
        action="append",
        default=[],
        metavar="PATH=TEXT",
        help="what a locked file covers (repeatable)",
    )
    verify = add("verify", "verify", "check the fixture data files against the manifest")
    verify.add_argument("--config")

    _add_setup(add)

    ledger = add("ledger", "ledger", "check the freeze ledger (one JSON event a line)")
    ledger.add_argument("action", choices=("check",))
    ledger.add_argument("file", nargs="?", help="ledger path (default: the configured one)")
    ledger.add_argument("--config")

    lint = add(
        "lint", "lint", "check property-plane files for wall-clock time, network, global RNG"
    )
    lint.add_argument("--config")

    _add_freeze_plane(add)

    explain = add("explain", "explain", "explain a rule id (PG201) or an exit code (3)")
    explain.add_argument("what")

    add("action", "action", "the GitHub Action's entrypoint (reads INPUT_* and GITHUB_*)")
    add("demo", "demo", "build the bundled demo repository and gate honest and cheating patches")
    return parser


def _add_setup(add: Callable[[str, str, str], argparse.ArgumentParser]) -> None:
    """`migrate` and `init`: write a first planegate.yml (docs/configuration.md)."""
    migrate = add("migrate", "migrate", "write planegate.yml from planes.json / scoring_map.yaml")
    migrate.add_argument("files", nargs="+", metavar="FILE")
    migrate.add_argument("--write", action="store_true", help="write planegate.yml (else print)")

    init = add("init", "init", "propose a planegate.yml from pytest's collection of the suite")
    init.add_argument(
        "--tests",
        action="append",
        default=[],
        metavar="PATH",
        help="collect PATH (repeatable; default: pytest's testpaths)",
    )
    init.add_argument(
        "--plugin",
        action="append",
        metavar="NAME",
        help="pytest plugin the suite needs "
        "(repeatable; hypothesis is always named; written to pytest.plugins)",
    )
    init.add_argument(
        "--split",
        action="store_true",
        help="move the property tests of mixed files into "
        "sibling _props files (changes in the working tree, for review)",
    )
    init.add_argument("--write", action="store_true", help="write planegate.yml (else print)")


def _add_freeze_plane(add: Callable[[str, str, str], argparse.ArgumentParser]) -> None:
    """`sweep`, `freeze` and `thaw`: the freeze plane's commands (docs/freeze.md)."""
    sweep = add("sweep", "sweep", "rerun the suite in several modes and propose freezes")
    sweep.add_argument("--runs", type=int, default=3, help="sessions of the suite (default 3)")
    sweep.add_argument("--commit", default="HEAD", help="the commit to sweep (default HEAD)")
    sweep.add_argument("--seed", type=int, help="the sweep's seed (default: a new random one)")
    sweep.add_argument("--owner", help="owner of the proposals (default: the freeze plane's)")
    sweep.add_argument(
        "--proposals",
        type=Path,
        default=Path(".planegate/proposals.jsonl"),
        help="where to write the proposed freeze events",
    )
    sweep.add_argument(
        "--write", action="store_true", help="append the proposals to the ledger (a person's act)"
    )
    sweep.add_argument("--config")

    freeze = add("freeze", "freeze", "append a freeze event for NODEID from an evidence bundle")
    freeze.add_argument("nodeid")
    freeze.add_argument("--class", dest="flake_class", required=True, help="the flake class")
    freeze.add_argument("--owner", required=True)
    freeze.add_argument("--note", required=True)
    freeze.add_argument("--evidence", type=Path, required=True, help="the evidence bundle")
    freeze.add_argument("--review-by", help="YYYY-MM-DD: when a replay becomes due")
    freeze.add_argument("--confidence", type=float, help="class confidence (0 to 1)")
    freeze.add_argument("--config")

    thaw = add("thaw", "thaw", "replay a frozen test; append a thaw (all clean) or a renew")
    thaw.add_argument("nodeid")
    thaw.add_argument("--commit", default="HEAD", help="the commit to replay on (default HEAD)")
    thaw.add_argument("--seed", type=int, help="the replay's seed (default: a new random one)")
    thaw.add_argument("--owner", help="owner of the new event (default: the entry's)")
    thaw.add_argument("--note")
    thaw.add_argument("--config")


def _handler(name: str) -> Handler:
    from planegate import commands

    handler: Handler = getattr(commands, f"cmd_{name}")
    return handler


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        args = build_parser().parse_args(args_list)
        if getattr(args, "handler", None) is None:
            raise UsageError("planegate: a command is required", "see `planegate --help`")
        return _handler(args.handler)(args)
    except PlanegateError as error:
        _print_error(error.message, error.hint)
        return error.exit_code
    except KeyboardInterrupt:
        _print_error("interrupted", None)
        return 130
    except Exception as error:  # the one place an unexpected failure becomes exit 70
        if debug:
            traceback.print_exc()
        _print_error(
            f"internal error: {type(error).__name__}: {error}",
            "rerun with --debug for the traceback and report it",
        )
        return exitcodes.INTERNAL


def _print_error(message: str, hint: str | None) -> None:
    text = message if message.startswith(("planegate:", "planegate ")) else f"planegate: {message}"
    print(text + (f" ({hint})" if hint else ""), file=sys.stderr)
