"""Argument parsing and exit codes only; every command's work lives in its own module."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import re
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

from planegate import __version__, exitcodes, exiting, untrusted, urls
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
from planegate.errors import ConfigError, PlanegateError, UsageError
from planegate.runner import collector

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on bad usage; planegate's usage exit is 64 (2 means inventory)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {_suggest(message)}", f"see `{self.prog} --help`")


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _suggest(message: str) -> str:
    """argparse's invalid-choice message, shorter, with the closest choice and (for an
    option) the choices it takes."""
    found = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if found is None:
        return message
    choices = re.findall(r"'([^']*)'", found[3])
    if found[1] == "COMMAND":
        return f"unknown command {found[2]!r}{_did_you_mean(found[2], choices)}"
    listed = ", ".join(choices)
    return (
        f"unknown choice for {found[1]} {found[2]!r}{_did_you_mean(found[2], choices)}"
        f" (choose from {listed})"
    )


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [s for action in parser._actions for s in action.option_strings]


def check_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """An unknown `--option` named as such, with the closest known one (before argparse's
    own checks, which would first complain about a required option it misspelled). A
    misspelled command is left to argparse, which names it with the closest command."""
    command = _command_word(argv)
    if command is not None and command not in COMMANDS:
        return
    target = SUBPARSERS.get(command or "", parser)
    known = _options(target) + (_options(parser) if target is not parser else [])
    for token in argv:
        if token == "--":
            return
        name = token.split("=", 1)[0]
        if not name.startswith("--") or name in known:
            continue
        if sum(1 for option in known if option.startswith(name)) == 1:
            continue  # argparse's unambiguous abbreviation
        prog = target.prog
        raise UsageError(
            f"{prog}: unknown option {name}{_did_you_mean(name, known)}", f"see `{prog} --help`"
        )


def _command_word(argv: Sequence[str]) -> str | None:
    """The first word that is neither an option nor the value of `-C`: the command."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token == "-C":
            skip = True
        elif token == "--":
            return None
        elif not token.startswith("-"):
            return token
    return None


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
SUBPARSERS: dict[str, argparse.ArgumentParser] = {}
CONFIG_HELP = "configuration path at the commit (default planegate.yml, .yaml or .json)"

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
        epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"planegate {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        SUBPARSERS[name] = commands.add_parser(name, parents=[common], help=help, description=help)
        return SUBPARSERS[name]

    _add_gate_and_digest(add)
    _add_evidence(add)
    _add_freeze_plane(add)
    explain_cmd = add("explain", "explain a rule id (PG201) or an exit code (3)")
    explain_cmd.add_argument("what", help="a rule id (PG301) or an exit code (3)")
    _add_format(explain_cmd)
    add("action", "the GitHub Action's entrypoint (reads INPUT_* and GITHUB_*; only in Actions)")
    demo_cmd = add("demo", "build the bundled demo repository and gate honest and cheating patches")
    demo_cmd.add_argument(
        "--runner",
        choices=("pytest", "junit", "all"),
        default="all",
        help="which demo: the pytest shop, the ctest normalize_path library (runner: junit; "
        "needs cmake and a C++ compiler), or both (default)",
    )
    for name in SANDBOXED:
        SUBPARSERS[name].add_argument(
            "--no-sandbox",
            action="store_true",
            help="run the tests without the sandbox (bubblewrap); every report says so first",
        )
    return parser


# The verbs that run the project's tests: in the sandbox unless --no-sandbox (docs/security.md).
SANDBOXED = ("gate", "digest", "sweep", "thaw", "init", "lock", "demo")


EXAMPLES = (
    ("planegate gate --base main", "gate the checked-out branch against main"),
    ("planegate explain PG301", "what a finding means and who fixes it"),
)


def epilog() -> str:
    """Two examples, the exit codes one line each, and where the documentation is."""
    width = max(len(command) for command, _ in EXAMPLES)
    lines = ["examples:"]
    lines += [f"  {command:<{width}}  {what}" for command, what in EXAMPLES]
    lines += ["", "exit codes:"]
    lines += [f"  {e.code:>3}  {e.name:<12} {e.meaning}" for e in exitcodes.EXIT_CODES]
    lines += ["", f"documentation: {urls.DOCS}"]
    return "\n".join(lines)


def _add_format(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="output format (default text; json has a schema in planegate/schemas/)",
    )


def _add_gate_and_digest(add: _Add) -> None:
    gate_cmd = add("gate", "run the ordered gate on the patch (head) against main (base)")
    gate_cmd.add_argument(
        "--base", required=True, help="main's ref (its tip; the head is merged onto it)"
    )
    gate_cmd.add_argument("--head", default="HEAD", help="the patch's ref (default HEAD)")
    gate_cmd.add_argument("--digest", type=Path, help="main's digest file to check and use")
    gate_cmd.add_argument(
        "--format",
        choices=("text", "json", "sarif"),
        default="text",
        help="report format (default text; text is coloured on a terminal unless NO_COLOR)",
    )
    gate_cmd.add_argument("--output", type=Path, help="write the report here (in --format)")
    gate_cmd.add_argument(
        "-v", "--verbose", action="store_true", help="the text report also lists every timer"
    )
    gate_cmd.add_argument("--config", help=CONFIG_HELP)
    gate_cmd.add_argument(
        "--human",
        action="store_true",
        help="the patch is not an agent's: list protected changes for review",
    )
    gate_cmd.add_argument("--author", default="the patch author", help="who wrote the patch")
    gate_cmd.add_argument(
        "--shard",
        metavar="K/N",
        help="run only shard K of N of the scoring tests (needs --evidence; docs/runner.md)",
    )
    gate_cmd.add_argument(
        "--evidence", type=Path, metavar="PATH", help="with --shard: write its evidence here"
    )
    gate_cmd.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        metavar="EVIDENCE",
        help="judge the shards' evidence files as one run (runs no tests)",
    )

    digest_cmd = add("digest", "write main's digest of protected evidence")
    digest_cmd.add_argument(
        "--out",
        type=Path,
        default=Path("planegate-digest.json"),
        help="where to write the digest (default planegate-digest.json)",
    )
    digest_cmd.add_argument("--commit", default="HEAD", help="the commit to digest (default HEAD)")
    digest_cmd.add_argument("--config", help=CONFIG_HELP)
    digest_cmd.add_argument(
        "--collect-only",
        action="store_true",
        help="collect main's tests without running them (gates then run the base themselves)",
    )
    _add_format(digest_cmd)


def _add_evidence(add: _Add) -> None:
    """`lock`, `verify`, `migrate`, `init`, `ledger` and `lint`: the files a person keeps."""
    lock_cmd = add("lock", "lock the fixture plane's data files in the manifest (a person's act)")
    lock_cmd.add_argument("--config", help=CONFIG_HELP)
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
    verify_cmd.add_argument("--config", help=CONFIG_HELP)
    _add_format(verify_cmd)

    _add_setup(add)

    ledger_cmd = add("ledger", "check the freeze ledger (one JSON event a line)")
    ledger_cmd.add_argument("action", choices=("check",), help="check: validate every event")
    ledger_cmd.add_argument("file", nargs="?", help="ledger path (default: the configured one)")
    ledger_cmd.add_argument("--config", help=CONFIG_HELP)
    _add_format(ledger_cmd)

    lint_cmd = add("lint", "check property-plane files for wall-clock time, network, global RNG")
    lint_cmd.add_argument("--config", help=CONFIG_HELP)
    _add_format(lint_cmd)


def _add_setup(add: _Add) -> None:
    """`migrate` and `init`: write a first planegate.yml (docs/configuration.md)."""
    migrate_cmd = add("migrate", "write planegate.yml from planes.json / scoring_map.yaml")
    migrate_cmd.add_argument(
        "files", nargs="+", metavar="FILE", help="planes.json and/or scoring_map.yaml"
    )
    migrate_cmd.add_argument(
        "--write", action="store_true", help="write planegate.yml (else print)"
    )

    init_cmd = add("init", "propose a planegate.yml from pytest's collection of the suite")
    init_cmd.add_argument(
        "--tests",
        action="append",
        default=[],
        metavar="PATH",
        help="collect PATH (repeatable; default: pytest's testpaths)",
    )
    init_cmd.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="NAME",
        help="pytest plugin the suite needs "
        "(repeatable; hypothesis is always named; written to pytest.plugins)",
    )
    init_cmd.add_argument(
        "--split",
        action="store_true",
        help="move the property tests of mixed files into "
        "sibling _props files (changes in the working tree, for review)",
    )
    init_cmd.add_argument("--write", action="store_true", help="write planegate.yml (else print)")
    init_cmd.add_argument(
        "--no-trace",
        action="store_true",
        help="collect only: do not run the suite to find the files tests read "
        "(no data patterns proposed)",
    )
    init_cmd.add_argument(
        "--verbose",
        action="store_true",
        help="list each scoring test that reads no file (default: one summary line)",
    )


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
    sweep_cmd.add_argument(
        "--broken-here",
        action="store_true",
        help="also propose `env` freezes for tests failing here under plain pytest too "
        "(when main passes in the project's own CI)",
    )
    sweep_cmd.add_argument("--config", help=CONFIG_HELP)

    freeze_cmd = add("freeze", "append a freeze event for NODEID from an evidence bundle")
    freeze_cmd.add_argument("nodeid", help="the test to freeze (path::name)")
    freeze_cmd.add_argument(
        "--class",
        dest="flake_class",
        required=True,
        help="the flake class: timing, order, network, rng or env",
    )
    freeze_cmd.add_argument("--owner", required=True, help="who answers for the frozen test")
    freeze_cmd.add_argument("--note", required=True, help="why it is frozen, for the ledger")
    freeze_cmd.add_argument("--evidence", type=Path, required=True, help="the evidence bundle")
    freeze_cmd.add_argument("--review-by", help="YYYY-MM-DD: when a replay becomes due")
    freeze_cmd.add_argument("--confidence", type=float, help="class confidence (0 to 1)")
    freeze_cmd.add_argument("--config", help=CONFIG_HELP)

    thaw_cmd = add("thaw", "replay a frozen test; append a thaw (all clean) or a renew")
    thaw_cmd.add_argument("nodeid", help="the frozen test to replay (path::name)")
    thaw_cmd.add_argument("--commit", default="HEAD", help="the commit to replay on (default HEAD)")
    thaw_cmd.add_argument("--seed", type=int, help="the replay's seed (default: a new random one)")
    thaw_cmd.add_argument("--owner", help="owner of the new event (default: the entry's)")
    thaw_cmd.add_argument("--note", help="a note for the new event")
    thaw_cmd.add_argument("--config", help=CONFIG_HELP)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        parser = build_parser()
        check_options(parser, args_list)
        args = parser.parse_args(args_list)
        if args.command is None:
            raise UsageError("planegate: a command is required", "see `planegate --help`")
        return _sandboxed(args)
    except PlanegateError as error:
        _print_error(error.message, _hint(error, args_list))
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


def entry() -> NoReturn:
    """The process's own entry (`planegate`, `python -m planegate`): `main` (a command that
    starts a test child sets up without the cyclic garbage collector until that child has its
    spec: runner/collector.py), then the process ends without the interpreter's teardown
    when nothing needs it (exiting.py)."""
    quiet = _starts_a_test_child(sys.argv[1:], os.environ)
    with collector.off_until_first_spec() if quiet else contextlib.nullcontext():
        code = main()
    exiting.leave(code)


# the commands whose set-up comes before a test child's spec (runner/collector.py); the
# others never resume the collector, so they keep it on
TEST_RUNNING = frozenset({"gate", "digest", "init", "sweep", "demo"})


def _starts_a_test_child(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether the command starts a test child: the action in its run phase or all of them
    (`INPUT_PHASE`, as `modes/base.phase_of` reads it; its fetch and judge start none)."""
    command = _command_word(argv)
    if command == "action":
        return (environ.get("INPUT_PHASE") or "all").strip().lower() in ("all", "run")
    return command in TEST_RUNNING


def _sandboxed(args: argparse.Namespace) -> int:
    """The command, with the sandbox switched off for it when it says --no-sandbox."""
    if not getattr(args, "no_sandbox", False):
        return COMMANDS[args.command](args)
    import os

    from planegate.runner import sandbox

    with sandbox.chosen(True, os.environ):
        return COMMANDS[args.command](args)


def _root(argv: Sequence[str]) -> Path:
    for index, token in enumerate(argv[:-1]):
        if token == "-C":
            return Path(argv[index + 1])
    return Path.cwd()


def _hint(error: PlanegateError, argv: Sequence[str]) -> str | None:
    """A configuration file missing at the commit: "not committed yet" when it is in the
    working tree, else how to make one."""
    found = re.match(r"(\S+): no such file at commit ([0-9a-f]+)$", error.message)
    if not isinstance(error, ConfigError) or found is None:
        return error.hint
    name = found[1]
    if (_root(argv) / name).is_file():
        return (
            f"{name} is in the working tree but not committed yet: the gate reads it from the "
            f"commit; `git add {name} && git commit`"
        )
    return "write one with `planegate init --write` (or `planegate migrate`), then commit it"


def _print_error(message: str, hint: str | None) -> None:
    message, hint = untrusted.one_line(message), hint and untrusted.one_line(hint)
    text = message if message.startswith(("planegate:", "planegate ")) else f"planegate: {message}"
    print(text + (f" ({hint})" if hint else ""), file=sys.stderr)
