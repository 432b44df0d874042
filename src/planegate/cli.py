"""Argument parsing and exit codes only; every command's work lives in its own module."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from planegate import __version__, exitcodes, untrusted
from planegate.commands import (
    action_entry,
    demo,
    digest,
    explain,
    freeze,
    gate,
    init,
    ledger,
    lint,
    lock,
    migrate,
    sweep,
    thaw,
    verify,
)
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


_Add = Callable[[str, str], argparse.ArgumentParser]

COMMANDS: dict[str, Handler] = {
    "gate": gate.run,
    "digest": digest.run,
    "lock": lock.run,
    "verify": verify.run,
    "migrate": migrate.run,
    "init": init.run,
    "ledger": ledger.run,
    "lint": lint.run,
    "sweep": sweep.run,
    "freeze": freeze.run,
    "thaw": thaw.run,
    "explain": explain.run,
    "action": action_entry.run,
    "demo": demo.run,
}


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(
        prog="planegate",
        parents=[common],
        description="Gate pull requests written by coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"planegate {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, parents=[common], help=help, description=help)

    _add_gate_and_digest(add)
    _add_evidence(add)
    _add_freeze_plane(add)
    explain_cmd = add("explain", "explain a rule id (PG201) or an exit code (3)")
    explain_cmd.add_argument("what")
    add("action", "the GitHub Action's entrypoint (reads INPUT_* and GITHUB_*)")
    add("demo", "build the bundled demo repository and gate honest and cheating patches")
    return parser


def _add_gate_and_digest(add: _Add) -> None:
    gate_cmd = add("gate", "run the ordered gate on the patch (head) against main (base)")
    gate_cmd.add_argument(
        "--base", required=True, help="main's ref (its tip; the head is merged onto it)"
    )
    gate_cmd.add_argument("--head", default="HEAD", help="the patch's ref (default HEAD)")
    gate_cmd.add_argument("--digest", type=Path, help="main's digest file to check and use")
    gate_cmd.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    gate_cmd.add_argument("--output", type=Path, help="write the report here (in --format)")
    gate_cmd.add_argument("--config", help="configuration path at the base (default planegate.yml)")
    gate_cmd.add_argument(
        "--human",
        action="store_true",
        help="the patch is not an agent's: list protected changes for review",
    )
    gate_cmd.add_argument("--author", default="the patch author", help="who wrote the patch")

    digest_cmd = add("digest", "write main's digest of protected evidence")
    digest_cmd.add_argument("--out", type=Path, default=Path("planegate-digest.json"))
    digest_cmd.add_argument("--commit", default="HEAD")
    digest_cmd.add_argument("--config")


def _add_evidence(add: _Add) -> None:
    """`lock`, `verify`, `migrate`, `init`, `ledger` and `lint`: the files a person keeps."""
    lock_cmd = add("lock", "lock the fixture plane's data files in the manifest (a person's act)")
    lock_cmd.add_argument("--config")
    lock_cmd.add_argument(
        "--covers",
        action="append",
        default=[],
        metavar="PATH=TEXT",
        help="what a locked file covers (repeatable)",
    )
    lock_cmd.add_argument(
        "--no-trace",
        action="store_true",
        help="do not run the suite to check that every file tests read is locked",
    )
    verify_cmd = add("verify", "check the fixture data files against the manifest")
    verify_cmd.add_argument("--config")

    migrate_cmd = add("migrate", "write planegate.yml from planes.json / scoring_map.yaml")
    migrate_cmd.add_argument("files", nargs="+", metavar="FILE")
    migrate_cmd.add_argument(
        "--write", action="store_true", help="write planegate.yml (else print)"
    )

    init_cmd = add("init", "propose a planegate.yml for an existing suite")
    init_cmd.add_argument("--tests", default="tests", help="folder of the test suite")
    init_cmd.add_argument("--write", action="store_true", help="write planegate.yml (else print)")
    init_cmd.add_argument(
        "--no-trace",
        action="store_true",
        help="do not run the suite to find the files tests read (no data patterns proposed)",
    )

    ledger_cmd = add("ledger", "check the freeze ledger (one JSON event a line)")
    ledger_cmd.add_argument("action", choices=("check",))
    ledger_cmd.add_argument("file", nargs="?", help="ledger path (default: the configured one)")
    ledger_cmd.add_argument("--config")

    lint_cmd = add("lint", "check property-plane files for wall-clock time, network, global RNG")
    lint_cmd.add_argument("--config")


def _add_freeze_plane(add: _Add) -> None:
    """`sweep`, `freeze` and `thaw`: the freeze plane's commands (docs/freeze.md)."""
    sweep_cmd = add("sweep", "rerun the suite in several modes and propose freezes")
    sweep_cmd.add_argument("--runs", type=int, default=3, help="sessions of the suite (default 3)")
    sweep_cmd.add_argument("--commit", default="HEAD", help="the commit to sweep (default HEAD)")
    sweep_cmd.add_argument("--seed", type=int, help="the sweep's seed (default: a new random one)")
    sweep_cmd.add_argument("--owner", help="owner of the proposals (default: the freeze plane's)")
    sweep_cmd.add_argument(
        "--proposals",
        type=Path,
        default=Path(".planegate/proposals.jsonl"),
        help="where to write the proposed freeze events",
    )
    sweep_cmd.add_argument(
        "--write", action="store_true", help="append the proposals to the ledger (a person's act)"
    )
    sweep_cmd.add_argument("--config")

    freeze_cmd = add("freeze", "append a freeze event for NODEID from an evidence bundle")
    freeze_cmd.add_argument("nodeid")
    freeze_cmd.add_argument("--class", dest="flake_class", required=True, help="the flake class")
    freeze_cmd.add_argument("--owner", required=True)
    freeze_cmd.add_argument("--note", required=True)
    freeze_cmd.add_argument("--evidence", type=Path, required=True, help="the evidence bundle")
    freeze_cmd.add_argument("--review-by", help="YYYY-MM-DD: when a replay becomes due")
    freeze_cmd.add_argument("--confidence", type=float, help="class confidence (0 to 1)")
    freeze_cmd.add_argument("--config")

    thaw_cmd = add("thaw", "replay a frozen test; append a thaw (all clean) or a renew")
    thaw_cmd.add_argument("nodeid")
    thaw_cmd.add_argument("--commit", default="HEAD", help="the commit to replay on (default HEAD)")
    thaw_cmd.add_argument("--seed", type=int, help="the replay's seed (default: a new random one)")
    thaw_cmd.add_argument("--owner", help="owner of the new event (default: the entry's)")
    thaw_cmd.add_argument("--note")
    thaw_cmd.add_argument("--config")


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        args = build_parser().parse_args(args_list)
        if args.command is None:
            raise UsageError("planegate: a command is required", "see `planegate --help`")
        return COMMANDS[args.command](args)
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
    message, hint = untrusted.one_line(message), hint and untrusted.one_line(hint)
    text = message if message.startswith(("planegate:", "planegate ")) else f"planegate: {message}"
    print(text + (f" ({hint})" if hint else ""), file=sys.stderr)
