"""The action's inputs (INPUT_*) and the runner's environment (GITHUB_*) as ActionOptions."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from planegate.config.load import Config
from planegate.errors import UsageError
from planegate.github import checks, comments
from planegate.github.artifacts import DEFAULT_NAME as DEFAULT_ARTIFACT
from planegate.github.event import Event, is_agent, load_json, parse_event

Mode = Literal["gate", "digest", "sweep", "report"]
MODES: tuple[Mode, ...] = ("gate", "digest", "sweep", "report")
SarifMode = Literal["upload", "off"]
SARIF_MODES: tuple[SarifMode, ...] = ("upload", "off")
REPORT_NAME = "planegate-report.json"


@dataclass(frozen=True)
class ActionOptions:
    """Everything `evaluate` needs, from INPUT_* and GITHUB_*. Holds no token."""

    mode: Mode
    repository: str
    event_name: str
    sha: str  # the commit the check run is on: the pull request's head, or the pushed commit
    head: str
    base: str | None
    pull_number: int | None = None
    author: str | None = None
    labels: tuple[str, ...] = ()
    from_fork: bool = False
    agent: bool | None = None  # None: the gate decides from planegate.yml's `agents`
    agent_authors: tuple[str, ...] | None = None  # inputs overriding planegate.yml's `agents`
    agent_labels: tuple[str, ...] | None = None
    config: str | None = None
    digest_artifact: str = DEFAULT_ARTIFACT
    digest: bytes | None = None  # main's digest in memory, when an artifact was accepted
    digest_source: str | None = None  # which artifact it was
    comment: comments.CommentMode = "always"
    annotations: bool = True
    mention_owners: bool = False
    check_name: str = checks.DEFAULT_NAME
    report_file: str | None = None  # `report` mode: the JSON report to post
    report_path: str = REPORT_NAME  # where the JSON report is written
    sarif: SarifMode = "off"
    ca_bundle: str | None = None  # PEM file of the CAs that sign GITHUB_API_URL's certificate
    ref: str | None = None  # the full ref code scanning files the SARIF under
    working_directory: str = "."
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str | None = None
    repository_id: int | None = None
    default_branch: str | None = None


def _input(environ: Mapping[str, str], name: str) -> str | None:
    """INPUT_DIGEST-ARTIFACT as the runner spells it, or INPUT_DIGEST_ARTIFACT."""
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = environ.get(key)
        if value is not None and value.strip() != "":
            return value.strip()
    return None


def _flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    value = _input(environ, name)
    if value is None:
        return default
    if value.lower() in ("true", "yes", "on", "1"):
        return True
    if value.lower() in ("false", "no", "off", "0"):
        return False
    raise UsageError(f"input {name}: expected true or false, got {value!r}")


def _choice(environ: Mapping[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = (_input(environ, name) or default).lower()
    if value not in allowed:
        raise UsageError(f"input {name}: expected one of {', '.join(allowed)}, got {value!r}")
    return value


def _patterns(environ: Mapping[str, str], name: str) -> tuple[str, ...] | None:
    value = _input(environ, name)
    if value is None:
        return None
    return tuple(p.strip() for p in value.replace("\n", ",").split(",") if p.strip())


def in_actions(environ: Mapping[str, str]) -> bool:
    return (environ.get("GITHUB_ACTIONS") or "").strip().lower() == "true"


def read_event(environ: Mapping[str, str]) -> Event:
    name = environ.get("GITHUB_EVENT_NAME") or ""
    repository = environ.get("GITHUB_REPOSITORY") or ""
    if not name or not repository:
        raise UsageError(
            "GITHUB_EVENT_NAME and GITHUB_REPOSITORY are not set",
            "`planegate action` runs inside GitHub Actions; use `planegate gate` elsewhere",
        )
    path = environ.get("GITHUB_EVENT_PATH")
    payload = load_json(path) if path else {}
    uploaded_path = _input(environ, "event-file")
    uploaded = load_json(uploaded_path) if uploaded_path else None
    return parse_event(
        name, payload, repository=repository, sha=environ.get("GITHUB_SHA") or "", uploaded=uploaded
    )


@dataclass(frozen=True)
class _Paths:
    workspace: str
    report_file: str | None
    report_path: str


def _paths(environ: Mapping[str, str], mode: str) -> _Paths:
    # like GitHub's own `working-directory`: relative to the workspace
    checkout = environ.get("GITHUB_WORKSPACE") or "."
    workspace = str(Path(checkout) / (_input(environ, "working-directory") or "."))
    report_file = _input(environ, "report-file")
    if mode == "report" and report_file is None:
        raise UsageError("mode `report` needs the `report-file` input (a `--format json` report)")
    # the composite action gives the judge a writable PLANEGATE_OUT and a read-only workspace
    out = environ.get("PLANEGATE_OUT")
    default_report = str(Path(out or workspace) / REPORT_NAME)
    written = report_file if mode != "report" else None
    return _Paths(workspace, report_file, written or default_report)


def read_options(environ: Mapping[str, str], event: Event) -> ActionOptions:
    mode = _choice(environ, "mode", MODES, "gate")
    pull = event.pull
    head = _input(environ, "head") or (pull.head_sha if pull else event.sha)
    base = _input(environ, "base") or (pull.base_sha if pull else event.before)
    if not head:
        raise UsageError("no head commit: GITHUB_SHA is not set and no `head` input was given")
    paths = _paths(environ, mode)
    options = ActionOptions(
        mode=mode,  # type: ignore[arg-type]  # checked by _choice
        repository=event.repository,
        event_name=event.name,
        sha=head,
        head=head,
        base=base,
        pull_number=pull.number if pull else None,
        author=pull.author if pull else None,
        labels=pull.labels if pull else (),
        from_fork=pull.from_fork if pull else False,
        agent_authors=_patterns(environ, "agent-authors"),
        agent_labels=_patterns(environ, "agent-labels"),
        config=_input(environ, "config"),
        digest_artifact=_input(environ, "digest-artifact") or DEFAULT_ARTIFACT,
        comment=_choice(environ, "comment", comments.COMMENT_MODES, "always"),  # type: ignore[arg-type]
        annotations=_flag(environ, "annotations", True),
        mention_owners=_flag(environ, "mention-owners", False),
        check_name=_input(environ, "check-name") or checks.DEFAULT_NAME,
        report_file=paths.report_file,
        report_path=paths.report_path,
        sarif=_choice(environ, "sarif", SARIF_MODES, "off"),  # type: ignore[arg-type]
        ca_bundle=_input(environ, "ca-bundle"),
        ref=f"refs/pull/{pull.number}/head" if pull else environ.get("GITHUB_REF") or None,
        working_directory=paths.workspace,
        api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
        server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
        run_id=environ.get("GITHUB_RUN_ID"),
        repository_id=event.repository_id,
        default_branch=event.default_branch,
    )
    return with_agent(options)


def with_agent(options: ActionOptions) -> ActionOptions:
    """Decide `agent` when the inputs name agent authors or labels; else leave it to the gate."""
    if options.author is None or (options.agent_authors is None and options.agent_labels is None):
        return options
    agent = is_agent(
        options.author,
        options.labels,
        authors=options.agent_authors or (),
        agent_labels=options.agent_labels or (),
    )
    return dataclasses.replace(options, agent=agent)


def agent_of(options: ActionOptions, cfg: Config) -> bool:
    """The inputs decide when they name agents; else the base's planegate.yml does."""
    if options.agent is not None:
        return options.agent
    if options.author is None:
        return True  # a push or a manual run: judge as strictly as an agent's patch
    return is_agent(
        options.author, options.labels, authors=cfg.agent_authors, agent_labels=cfg.agent_labels
    )


def token_of(environ: Mapping[str, str]) -> str | None:
    """The `github-token` input reaches the judge as GITHUB_TOKEN (docs/action-contract.md)."""
    return (environ.get("GITHUB_TOKEN") or "").strip() or None
