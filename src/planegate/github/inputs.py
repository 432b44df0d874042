"""What the action is given, each read once into a frozen value: its inputs (INPUT_*), the
runner's environment (GITHUB_*, with the event), and main's digest when one was fetched; and
the `Job` a mode works on, built from them once the pull request's facts are final."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from planegate.config.agents import is_agent
from planegate.config.load import Config
from planegate.errors import UsageError
from planegate.github import check_runs, comments
from planegate.github.artifacts import DEFAULT_NAME as DEFAULT_ARTIFACT
from planegate.github.event_payload import Event, PullRequest, load_json, parse_event
from planegate.shards.slicing import Shard, parse_shard

ModeName = Literal["gate", "digest", "sweep", "report", "merge"]
MODE_NAMES: tuple[ModeName, ...] = ("gate", "digest", "sweep", "report", "merge")
SHARD_MODE = "shard"  # the mode a `gate` job with a `shard` input runs (modes/shard.py)
SarifMode = Literal["upload", "off"]
SARIF_MODES: tuple[SarifMode, ...] = ("upload", "off")
REPORT_NAME = "planegate-report.json"


@dataclass(frozen=True)
class ActionInputs:
    """The action's inputs (INPUT_*), as the workflow gave them. Holds no token."""

    mode: ModeName = "gate"
    config: str | None = None
    base: str | None = None
    head: str | None = None
    agent_authors: tuple[str, ...] | None = None  # inputs overriding planegate.yml's `agents`
    agent_labels: tuple[str, ...] | None = None
    digest_artifact: str = DEFAULT_ARTIFACT
    comment: comments.CommentMode = "always"
    annotations: bool = True
    mention_owners: bool = False
    check_name: str = check_runs.DEFAULT_NAME
    comment_author: str = comments.DEFAULT_AUTHOR  # the login planegate's comments are by
    report_file: str | None = None  # `report` mode: the report to post; else a copy to write
    sarif: SarifMode = "off"
    ca_bundle: str | None = None  # PEM file of the CAs that sign GITHUB_API_URL's certificate
    working_directory: str = "."  # relative to the workspace
    shard: Shard | None = None  # `gate` mode in a matrix job: this job's slice, K of N
    broken_here: bool = False  # `sweep` mode: main passes where the project's own CI runs

    @property
    def mode_key(self) -> str:
        """The mode that runs: `gate` with a `shard` input runs the shard mode."""
        return SHARD_MODE if self.shard is not None else self.mode


@dataclass(frozen=True)
class RunnerEnv:
    """The runner's environment (GITHUB_*): the event, the workspace, where to link and call."""

    event: Event
    workspace: str = "."
    ref: str | None = None  # GITHUB_REF
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str | None = None
    out: str | None = None  # PLANEGATE_OUT: the folder the composite action lets the judge write

    @property
    def repository(self) -> str:
        return self.event.repository


@dataclass(frozen=True)
class FetchedDigest:
    """Main's digest artifact, accepted, in memory (never through a file), and which it was."""

    data: bytes
    source: str


@dataclass(frozen=True)
class Job:
    """What a mode works on, built once: the inputs, the runner's environment, and the pull
    request's facts as last read (the event's, or the API's when the event's copy is not
    trusted: `reread`)."""

    inputs: ActionInputs
    runner: RunnerEnv
    pull: PullRequest | None
    reread: bool = False
    # the login GitHub verified for a commit (github/commit_people.py); None: no client
    commit_login: Callable[[str], str | None] | None = field(default=None, compare=False)

    @property
    def head(self) -> str:
        return head_of(self.inputs, self.runner.event)

    @property
    def base(self) -> str | None:
        """The re-read pull request's base; else the input, the event's pull request's base,
        or the commit before a push."""
        if self.reread and self.pull is not None:
            return self.pull.base_sha
        event = self.runner.event
        return self.inputs.base or (event.pull.base_sha if event.pull else event.before)

    @property
    def author(self) -> str | None:
        return self.pull.author if self.pull else None

    @property
    def labels(self) -> tuple[str, ...]:
        return self.pull.labels if self.pull else ()

    @property
    def agent(self) -> bool | None:
        """Decided when the inputs name agent authors or labels; None leaves it to the gate."""
        inputs = self.inputs
        if self.author is None or (inputs.agent_authors is None and inputs.agent_labels is None):
            return None
        return is_agent(
            self.author,
            self.labels,
            authors=inputs.agent_authors or (),
            agent_labels=inputs.agent_labels or (),
        )

    @property
    def working_directory(self) -> str:
        return working_directory(self.inputs, self.runner)


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


def read_runner(environ: Mapping[str, str]) -> RunnerEnv:
    return RunnerEnv(
        event=read_event(environ),
        workspace=environ.get("GITHUB_WORKSPACE") or ".",
        ref=environ.get("GITHUB_REF") or None,
        api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
        server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
        run_id=environ.get("GITHUB_RUN_ID"),
        out=environ.get("PLANEGATE_OUT") or None,
    )


def read_inputs(environ: Mapping[str, str]) -> ActionInputs:
    return ActionInputs(
        mode=_choice(environ, "mode", MODE_NAMES, "gate"),  # type: ignore[arg-type]  # checked
        config=_input(environ, "config"),
        base=_input(environ, "base"),
        head=_input(environ, "head"),
        agent_authors=_patterns(environ, "agent-authors"),
        agent_labels=_patterns(environ, "agent-labels"),
        digest_artifact=_input(environ, "digest-artifact") or DEFAULT_ARTIFACT,
        comment=_choice(environ, "comment", comments.COMMENT_MODES, "always"),  # type: ignore[arg-type]
        annotations=_flag(environ, "annotations", True),
        mention_owners=_flag(environ, "mention-owners", False),
        check_name=_input(environ, "check-name") or check_runs.DEFAULT_NAME,
        comment_author=_input(environ, "comment-author") or comments.DEFAULT_AUTHOR,
        report_file=_input(environ, "report-file"),
        sarif=_choice(environ, "sarif", SARIF_MODES, "off"),  # type: ignore[arg-type]
        ca_bundle=_input(environ, "ca-bundle"),
        working_directory=_input(environ, "working-directory") or ".",
        shard=_shard(environ),
        broken_here=_flag(environ, "broken-here", False),
    )


def _shard(environ: Mapping[str, str]) -> Shard | None:
    """The `shard` input, `K/N`, only in `gate` mode; None when empty."""
    text = _input(environ, "shard")
    if text is None:
        return None
    if (_input(environ, "mode") or "gate") != "gate":
        raise UsageError("the `shard` input belongs to `gate` mode (the merge job uses `merge`)")
    try:
        return parse_shard(text)
    except ValueError as error:
        raise UsageError(f"the `shard` input: {error}") from None


def head_of(inputs: ActionInputs, event: Event) -> str:
    """The commit judged: the `head` input, else the pull request's head or the event's commit."""
    head = inputs.head or (event.pull.head_sha if event.pull else event.sha)
    if not head:
        raise UsageError("no head commit: GITHUB_SHA is not set and no `head` input was given")
    return head


def working_directory(inputs: ActionInputs, runner: RunnerEnv) -> str:
    # like GitHub's own `working-directory`: relative to the workspace
    return str(Path(runner.workspace) / inputs.working_directory)


def default_report_path(inputs: ActionInputs, runner: RunnerEnv) -> str:
    """Where the JSON report goes without a `report-file`: the composite action gives the
    judge a writable PLANEGATE_OUT and a read-only workspace."""
    return str(Path(runner.out or working_directory(inputs, runner)) / REPORT_NAME)


def read_job(environ: Mapping[str, str]) -> Job:
    """The job as the event tells it (the run phase's: it never talks to GitHub)."""
    runner = read_runner(environ)
    inputs = read_inputs(environ)
    job = Job(inputs, runner, runner.event.pull)
    head_of(inputs, runner.event)
    return job


def agent_of(job: Job, cfg: Config) -> bool:
    """The inputs decide when they name agents; else the base's planegate.yml does. A merge
    queue's commit is judged as a person's: each pull request in it passed its own gate as its
    author's before it could be queued, and what the queue adds is their sum."""
    if job.agent is not None:
        return job.agent
    if job.runner.event.name == "merge_group":
        return False
    if job.author is None:
        return True  # a push or a manual run: judge as strictly as an agent's patch
    return is_agent(
        job.author, job.labels, authors=cfg.agent_authors, agent_labels=cfg.agent_labels
    )


def token_of(environ: Mapping[str, str]) -> str | None:
    """The `github-token` input reaches the judge as GITHUB_TOKEN (docs/action-contract.md)."""
    return (environ.get("GITHUB_TOKEN") or "").strip() or None
