"""A fake GitHub REST API on 127.0.0.1 for the action's tests.

It keeps state (pull requests, check runs and their annotations, issue comments, artifacts
and the workflow runs that made them), serves artifact zips behind a 302 to a second host
name (`localhost` instead of `127.0.0.1`: another origin), and can be told to fail
(`fail(...)`). Every request it receives and every documented response it sends is checked
against GitHub's OpenAPI description in `tests/helpers/github_openapi/` when `running()` exits.
"""

from __future__ import annotations

import copy
import io
import json
import re
import socket
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from helpers.github_openapi.validate import check_request, check_response, load_spec

WEB = "https://github.com"
T = "2024-05-01T12:00:00Z"
OWNER, NAME, REPO_ID = "octo", "demo", 4242
FULL = f"{OWNER}/{NAME}"
SPEC = json.loads(
    Path(__file__).with_name("github_openapi").joinpath("api.github.com.subset.json").read_text()
)
_REPO_URLS = [
    "archive",
    "assignees",
    "blobs",
    "branches",
    "collaborators",
    "comments",
    "commits",
    "compare",
    "contents",
    "contributors",
    "deployments",
    "downloads",
    "events",
    "forks",
    "git_commits",
    "git_refs",
    "git_tags",
    "hooks",
    "issue_comment",
    "issue_events",
    "issues",
    "keys",
    "labels",
    "languages",
    "merges",
    "milestones",
    "notifications",
    "pulls",
    "releases",
    "stargazers",
    "statuses",
    "subscribers",
    "subscription",
    "tags",
    "teams",
    "trees",
]


def _template(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", path) + "$")


_OPERATIONS = sorted(
    ((_template(p), p.count("{"), p, item) for p, item in SPEC["paths"].items()),
    key=lambda entry: entry[1],
)


def documented_statuses(method: str, path: str) -> set[int] | None:
    """The statuses the schema documents for an operation; None if it is not in the subset."""
    for pattern, _, _, item in _OPERATIONS:
        if pattern.match(path) and method.lower() in item:
            return {int(code) for code in item[method.lower()]["responses"] if code.isdigit()}
    return None


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes | None
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytes = b""

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def digest_zip(payload: bytes, member: str = "planegate-digest.json") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(member, payload)
    return buffer.getvalue()


class FakeGitHub:
    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self.lock = threading.RLock()
        self.api_url = ""
        self.blob_url = ""
        self.log: list[Recorded] = []
        self.blob_requests: list[dict[str, str]] = []
        self.blob_failures: list[int] = []  # answered first (DROP: close)
        self.errors: list[str] = []
        self.pulls: dict[int, dict[str, Any]] = {}
        self.commits: dict[str, dict[str, Any]] = {}
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.annotations: dict[int, list[dict[str, Any]]] = {}
        self.comments: dict[int, dict[str, Any]] = {}
        self.artifacts: list[dict[str, Any]] = []
        self.runs: dict[int, dict[str, Any]] = {}
        self.blobs: dict[int, bytes] = {}
        self.sarifs: list[dict[str, Any]] = []
        self.failures: dict[tuple[str, str], list[tuple[int, dict[str, str], Any]]] = {}
        self._next = 100

    # ------------------------------------------------------------ payloads
    def new_id(self) -> int:
        with self.lock:
            self._next += 1
            return self._next

    def user(self, login: str = "octocat", id_: int = 1, kind: str = "User") -> dict[str, Any]:
        u = f"{self.api_url}/users/{quote_login(login)}"
        return {
            "login": login,
            "id": id_,
            "node_id": f"U_{id_}",
            "type": kind,
            "site_admin": False,
            "gravatar_id": "",
            "url": u,
            "html_url": f"{WEB}/{login}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{id_}",
            **{
                f"{k}_url": f"{u}/{k}"
                for k in [
                    "followers",
                    "following",
                    "gists",
                    "starred",
                    "subscriptions",
                    "organizations",
                    "repos",
                    "events",
                    "received_events",
                ]
            },
        }

    def repository(self, full_name: str | None = None, id_: int | None = None) -> dict[str, Any]:
        full_name = FULL if full_name is None else full_name
        id_ = REPO_ID if id_ is None else id_
        owner, name = full_name.split("/")
        r = f"{self.api_url}/repos/{full_name}"
        return {
            "id": id_,
            "node_id": f"R_{id_}",
            "name": name,
            "full_name": full_name,
            "owner": self.user(owner, 2, "Organization"),
            "private": False,
            "fork": full_name != FULL,
            "description": None,
            "homepage": None,
            "language": None,
            "url": r,
            "html_url": f"{WEB}/{full_name}",
            "clone_url": f"{WEB}/{full_name}.git",
            "git_url": f"git://github.com/{full_name}.git",
            "ssh_url": f"git@github.com:{full_name}.git",
            "svn_url": f"{WEB}/{full_name}",
            "mirror_url": None,
            "default_branch": "main",
            "size": 1,
            "forks": 0,
            "forks_count": 0,
            "open_issues": 0,
            "open_issues_count": 0,
            "watchers": 0,
            "watchers_count": 0,
            "stargazers_count": 0,
            "network_count": 0,
            "subscribers_count": 0,
            "has_issues": True,
            "has_projects": False,
            "has_wiki": False,
            "has_pages": False,
            "has_discussions": False,
            "has_downloads": True,
            "archived": False,
            "disabled": False,
            "license": None,
            "pushed_at": T,
            "created_at": T,
            "updated_at": T,
            **{f"{k}_url": f"{r}/{k}" for k in _REPO_URLS},
        }

    def add_commit(
        self, sha: str, *, author: str | None, committer: str | None, verified: bool
    ) -> dict[str, Any]:
        """A commit as `GET /repos/{owner}/{repo}/commits/{ref}` returns it: the logins GitHub
        links to its author and committer (None: none) and whether GitHub verified it."""
        r = f"{self.api_url}/repos/{FULL}"
        who = {"name": author or "someone", "email": "someone@example.com", "date": T}
        commit: dict[str, Any] = {
            "url": f"{r}/commits/{sha}",
            "sha": sha,
            "node_id": f"C_{sha[:8]}",
            "html_url": f"{WEB}/{FULL}/commit/{sha}",
            "comments_url": f"{r}/commits/{sha}/comments",
            "commit": {
                "url": f"{r}/git/commits/{sha}",
                "author": who,
                "committer": who,
                "message": "change",
                "comment_count": 0,
                "tree": {"sha": "f" * 40, "url": f"{r}/git/trees/{'f' * 40}"},
                "verification": {
                    "verified": verified,
                    "reason": "valid" if verified else "unsigned",
                    "payload": None,
                    "signature": None,
                    "verified_at": T if verified else None,
                },
            },
            "author": self.user(author, self.new_id()) if author else None,
            "committer": self.user(committer, self.new_id()) if committer else None,
            "parents": [],
        }
        self.commits[sha] = commit
        return commit

    def add_pull(
        self,
        number: int,
        *,
        head_sha: str,
        base_sha: str,
        author: str = "coder[bot]",
        labels: tuple[str, ...] = (),
        head_repo: str = FULL,
    ) -> dict[str, Any]:
        r = f"{self.api_url}/repos/{FULL}"
        pu = f"{r}/pulls/{number}"
        head_repo_payload = self.repository(head_repo, REPO_ID if head_repo == FULL else 9999)
        pull = {
            "id": 5000 + number,
            "node_id": f"PR_{number}",
            "number": number,
            "title": "A patch",
            "state": "open",
            "locked": False,
            "labels": [
                {
                    "id": 70 + i,
                    "node_id": f"L_{i}",
                    "url": f"{r}/labels/{name}",
                    "name": name,
                    "description": "",
                    "color": "ededed",
                    "default": False,
                }
                for i, name in enumerate(labels)
            ],
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "user": self.user(author, 77, "Bot" if author.endswith("[bot]") else "User"),
            "closed_at": None,
            "created_at": T,
            "updated_at": T,
            "url": pu,
            "html_url": f"{WEB}/{FULL}/pull/{number}",
            "body": None,
            "merged_at": None,
            "merge_commit_sha": None,
            "diff_url": f"{WEB}/{FULL}/pull/{number}.diff",
            "patch_url": f"{WEB}/{FULL}/pull/{number}.patch",
            "issue_url": f"{r}/issues/{number}",
            "commits_url": f"{pu}/commits",
            "review_comments_url": f"{pu}/comments",
            "review_comment_url": f"{r}/pulls/comments{{/number}}",
            "comments_url": f"{r}/issues/{number}/comments",
            "statuses_url": f"{r}/statuses/{head_sha}",
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
            "merged": False,
            "mergeable": True,
            "mergeable_state": "clean",
            "merged_by": None,
            "comments": 0,
            "review_comments": 0,
            "maintainer_can_modify": False,
            "commits": 1,
            "additions": 1,
            "deletions": 0,
            "changed_files": 1,
            "head": {
                "label": f"{head_repo.split('/')[0]}:feature",
                "ref": "feature",
                "sha": head_sha,
                "user": self.user(head_repo.split("/")[0], 3),
                "repo": head_repo_payload,
            },
            "base": {
                "label": f"{OWNER}:main",
                "ref": "main",
                "sha": base_sha,
                "user": self.user(OWNER, 2, "Organization"),
                "repo": self.repository(),
            },
            "_links": {
                k: {"href": f"{pu}/{k}"}
                for k in [
                    "comments",
                    "commits",
                    "statuses",
                    "html",
                    "issue",
                    "review_comments",
                    "review_comment",
                    "self",
                ]
            },
        }
        self.pulls[number] = pull
        return pull

    def event_payload(self, number: int) -> dict[str, Any]:
        """A `pull_request` event as GITHUB_EVENT_PATH holds it."""
        return {
            "action": "synchronize",
            "number": number,
            "pull_request": copy.deepcopy(self.pulls[number]),
            "repository": self.repository(),
            "sender": self.user(),
        }

    def add_artifact(
        self,
        *,
        head_sha: str,
        payload: bytes | None = None,
        event: str = "push",
        branch: str = "main",
        head_repo_id: int = REPO_ID,
        created_at: str = T,
        name: str = "planegate-digest",
        zip_bytes: bytes | None = None,
        run_id: int | None = None,
    ) -> int:
        """An artifact of a new workflow run, or of the run `run_id` (made if it is new)."""
        artifact_id = self.new_id()
        run_id = run_id if run_id is not None else self.new_id()
        r = f"{self.api_url}/repos/{FULL}"
        head_repo = self.repository(FULL if head_repo_id == REPO_ID else "fork/demo", head_repo_id)
        self.runs[run_id] = {
            "id": run_id,
            "name": "main",
            "node_id": f"WR_{run_id}",
            "check_suite_id": 1,
            "check_suite_node_id": "CS_1",
            "head_branch": branch,
            "head_sha": head_sha,
            "path": ".github/workflows/main.yml",
            "run_number": 1,
            "run_attempt": 1,
            "referenced_workflows": [],
            "event": event,
            "status": "completed",
            "conclusion": "success",
            "workflow_id": 1,
            "url": f"{r}/actions/runs/{run_id}",
            "html_url": f"{WEB}/{FULL}/actions/runs/{run_id}",
            "pull_requests": [],
            "created_at": T,
            "updated_at": T,
            "actor": self.user(),
            "triggering_actor": self.user(),
            "run_started_at": T,
            "jobs_url": f"{r}/actions/runs/{run_id}/jobs",
            "logs_url": f"{r}/actions/runs/{run_id}/logs",
            "check_suite_url": f"{r}/check-suites/1",
            "artifacts_url": f"{r}/actions/runs/{run_id}/artifacts",
            "cancel_url": f"{r}/actions/runs/{run_id}/cancel",
            "rerun_url": f"{r}/actions/runs/{run_id}/rerun",
            "previous_attempt_url": None,
            "workflow_url": f"{r}/actions/workflows/1",
            "head_commit": {
                "id": head_sha,
                "tree_id": "e" * 40,
                "message": "commit",
                "timestamp": T,
                "author": {"name": "A", "email": "a@example.com"},
                "committer": {"name": "A", "email": "a@example.com"},
            },
            "repository": self.repository(),
            "head_repository": head_repo,
            "head_repository_id": head_repo_id,
            "display_title": "commit",
        }
        self.artifacts.insert(
            0,
            {
                "id": artifact_id,
                "node_id": f"A_{artifact_id}",
                "name": name,
                "size_in_bytes": 100,
                "expired": False,
                "url": f"{r}/actions/artifacts/{artifact_id}",
                "archive_download_url": f"{r}/actions/artifacts/{artifact_id}/zip",
                "created_at": created_at,
                "expires_at": T,
                "updated_at": created_at,
                "digest": None,
                "workflow_run": {
                    "id": run_id,
                    "repository_id": REPO_ID,
                    "head_repository_id": head_repo_id,
                    "head_branch": branch,
                    "head_sha": head_sha,
                },
            },
        )
        self.blobs[artifact_id] = (
            zip_bytes if zip_bytes is not None else digest_zip(payload or b"{}")
        )
        return artifact_id

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer the next `times` requests to METHOD PATH with `status` instead."""
        body = {
            "message": "Bad Gateway" if status >= 500 else "Resource not accessible by integration"
        }
        if status == 403 and headers and "Retry-After" in headers:
            body = {"message": "You have exceeded a secondary rate limit."}
        self.failures.setdefault((method, path), []).extend(
            [(status, dict(headers or {}), body)] * times
        )

    def requests_to(self, method: str, pattern: str) -> list[Recorded]:
        regex = re.compile(pattern)
        return [r for r in self.log if r.method == method and regex.search(r.path)]

    # ------------------------------------------------------------ routing
    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        r = f"/repos/{FULL}"
        queued = self.failures.get((method, path))
        if queued:
            status, headers, payload = queued.pop(0)
            return status, payload, headers
        if method == "GET" and path == r:
            return 200, self.repository(), {}
        if method == "POST" and path == f"{r}/check-runs":
            return 201, self._create_check_run(body), {}
        if method == "POST" and path == f"{r}/code-scanning/sarifs":
            sarif_id = f"sarif-{self.new_id()}"
            self.sarifs.append({**body, "id": sarif_id})
            url = f"{self.api_url}/repos/{FULL}/code-scanning/sarifs/{sarif_id}"
            return 202, {"id": sarif_id, "url": url}, {}
        match = re.fullmatch(rf"{r}/check-runs/(\d+)", path)
        if match and method == "PATCH":
            return self._update_check_run(int(match[1]), body)
        match = re.fullmatch(rf"{r}/issues/(\d+)/comments", path)
        if match and method == "GET":
            return self._list_comments(int(match[1]), query)
        if match and method == "POST":
            return 201, self._create_comment(int(match[1]), body), {}
        match = re.fullmatch(rf"{r}/issues/comments/(\d+)", path)
        if match and method == "PATCH" and int(match[1]) in self.comments:
            comment = self.comments[int(match[1])]
            comment["body"] = body["body"]
            comment["updated_at"] = "2024-05-02T12:00:00Z"
            return 200, comment, {}
        match = re.fullmatch(rf"{r}/commits/([0-9a-f]{{40}})", path)
        if match and method == "GET" and match[1] in self.commits:
            return 200, self.commits[match[1]], {}
        match = re.fullmatch(rf"{r}/pulls/(\d+)", path)
        if match and method == "GET" and int(match[1]) in self.pulls:
            return 200, self.pulls[int(match[1])], {}
        if method == "GET" and path == f"{r}/actions/artifacts":
            name = next(iter(query.get("name", [])), None)
            found = [a for a in self.artifacts if name is None or a["name"] == name]
            return 200, {"total_count": len(found), "artifacts": found}, {}
        match = re.fullmatch(rf"{r}/actions/runs/(\d+)", path)
        if match and method == "GET" and int(match[1]) in self.runs:
            return 200, self.runs[int(match[1])], {}
        match = re.fullmatch(rf"{r}/actions/runs/(\d+)/artifacts", path)
        if match and method == "GET" and int(match[1]) in self.runs:
            run = [a for a in self.artifacts if a["workflow_run"]["id"] == int(match[1])]
            return 200, {"total_count": len(run), "artifacts": run}, {}
        match = re.fullmatch(rf"{r}/actions/artifacts/(\d+)/zip", path)
        if match and method == "GET" and int(match[1]) in self.blobs:
            return 302, None, {"Location": f"{self.blob_url}/blob/{match[1]}.zip?sig=signed"}
        return (
            404,
            {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
            {},
        )

    def _create_check_run(self, body: dict[str, Any]) -> dict[str, Any]:
        run_id = self.new_id()
        r = f"{self.api_url}/repos/{FULL}"
        output = body.get("output") or {}
        self.annotations[run_id] = list(output.get("annotations") or [])
        run = {
            "id": run_id,
            "node_id": f"CR_{run_id}",
            "name": body["name"],
            "head_sha": body["head_sha"],
            "external_id": body.get("external_id"),
            "url": f"{r}/check-runs/{run_id}",
            "html_url": f"{WEB}/{FULL}/runs/{run_id}",
            "details_url": body.get("details_url"),
            "status": body.get("status", "queued"),
            "conclusion": body.get("conclusion"),
            "started_at": T,
            "completed_at": T,
            "check_suite": {"id": 5},
            "app": None,
            "pull_requests": [],
            "output": self._output(run_id, output),
        }
        self.check_runs[run_id] = run
        return run

    def _output(self, run_id: int, output: dict[str, Any]) -> dict[str, Any]:
        r = f"{self.api_url}/repos/{FULL}"
        return {
            "title": output.get("title"),
            "summary": output.get("summary"),
            "text": output.get("text"),
            "annotations_count": len(self.annotations[run_id]),
            "annotations_url": f"{r}/check-runs/{run_id}/annotations",
        }

    def _update_check_run(
        self, run_id: int, body: dict[str, Any]
    ) -> tuple[int, Any, dict[str, str]]:
        run = self.check_runs.get(run_id)
        if run is None:
            return 404, {"message": "Not Found"}, {}
        output = body.get("output") or {}
        self.annotations[run_id] += list(output.get("annotations") or [])
        for key in ("status", "conclusion", "details_url", "name"):
            if key in body:
                run[key] = body[key]
        run["output"] = self._output(run_id, {**run["output"], **output})
        return 200, run, {}

    def _create_comment(
        self, number: int, body: dict[str, Any], login: str = "github-actions[bot]"
    ) -> dict[str, Any]:
        comment_id = self.new_id()
        r = f"{self.api_url}/repos/{FULL}"
        comment = {
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "body": body["body"],
            "user": self.user(login, 41898282 if login == "github-actions[bot]" else 7, "Bot"),
            "created_at": T,
            "updated_at": T,
            "url": f"{r}/issues/comments/{comment_id}",
            "html_url": f"{WEB}/{FULL}/pull/{number}#issuecomment-{comment_id}",
            "issue_url": f"{r}/issues/{number}",
            "author_association": "NONE",
        }
        self.comments[comment_id] = comment
        return comment

    def comments_on(self, number: int) -> list[dict[str, Any]]:
        return [c for c in self.comments.values() if c["issue_url"].endswith(f"/issues/{number}")]

    def _list_comments(
        self, number: int, query: dict[str, list[str]]
    ) -> tuple[int, Any, dict[str, str]]:
        items = self.comments_on(number)
        per_page = int((query.get("per_page") or ["30"])[0])
        page = int((query.get("page") or ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            url = f"{self.api_url}/repos/{FULL}/issues/{number}/comments"
            headers["Link"] = f'<{url}?per_page={per_page}&page={page + 1}>; rel="next"'
        return 200, chunk, headers

    # ------------------------------------------------------------ validation
    def validate(self) -> list[str]:
        spec = load_spec()
        problems = list(self.errors)
        for entry in self.log:
            try:
                headers = dict(entry.headers)
                if entry.body and not any(k.lower() == "content-type" for k in headers):
                    problems.append(f"{entry.method} {entry.path}: a body without Content-Type")
                check_request(entry.method, entry.path, entry.query, headers, entry.body, spec=spec)
                documented = documented_statuses(entry.method, entry.path) or set()
                if entry.status in documented:
                    check_response(
                        entry.method,
                        entry.path,
                        entry.status,
                        entry.response_headers,
                        entry.response_body,
                        spec=spec,
                    )
                elif entry.status < 400 and entry.status != 302:
                    problems.append(f"{entry.method} {entry.path}: {entry.status} is undocumented")
            except AssertionError as error:
                problems.append(str(error))
        return problems


def quote_login(login: str) -> str:
    return login.replace("[", "%5B").replace("]", "%5D")


class _ApiHandler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _handle(self) -> None:
        url = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
        fake = self.fake
        path = url.path[len(fake.prefix) :] if url.path.startswith(fake.prefix) else url.path
        entry = Recorded(self.command, path, parse_qs(url.query), dict(self.headers), raw)
        try:
            body = json.loads(raw) if raw else None
            with fake.lock:
                status, payload, extra = fake.route(self.command, path, entry.query, body)
        except Exception as error:  # reported at teardown: a thread's exception fails no test
            fake.errors.append(f"{self.command} {path}: {type(error).__name__}: {error}")
            status, payload, extra = 500, {"message": "fake server error"}, {}
        data = b"" if payload is None else json.dumps(payload).encode()
        headers = {"Content-Type": "application/json; charset=utf-8", **extra}
        entry.status, entry.response_headers, entry.response_body = status, headers, data
        fake.log.append(entry)
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = _handle


DROP = 0  # a blob "status" that closes the connection without an answer


class _BlobHandler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.fake.blob_requests.append(dict(self.headers))
        if self.fake.blob_failures:
            status = self.fake.blob_failures.pop(0)
            if status == DROP:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        match = re.fullmatch(r"/blob/(\d+)\.zip", urlsplit(self.path).path)
        data = self.fake.blobs.get(int(match[1])) if match else None
        status = 200 if data is not None else 404
        data = data or b"not found"
        self.send_response(status)
        self.send_header("Content-Type", "application/zip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _serve(handler: type[BaseHTTPRequestHandler], fake: FakeGitHub) -> ThreadingHTTPServer:
    bound = type(handler.__name__, (handler,), {"fake": fake})
    server = ThreadingHTTPServer(("127.0.0.1", 0), bound)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@contextmanager
def running(prefix: str = "") -> Iterator[FakeGitHub]:
    """Serve a FakeGitHub; on exit, fail if any traffic did not match GitHub's schema."""
    fake = FakeGitHub(prefix)
    api, blob = _serve(_ApiHandler, fake), _serve(_BlobHandler, fake)
    fake.api_url = f"http://127.0.0.1:{api.server_port}{prefix}"
    # Same interface, another host name: the storage host is another origin.
    fake.blob_url = f"http://localhost:{blob.server_port}"
    try:
        yield fake
    finally:
        api.shutdown()
        blob.shutdown()
        api.server_close()
        blob.server_close()
    problems = fake.validate()
    assert not problems, "\n".join(problems)


def serve(repository: str, state_path: Path) -> None:
    """`PYTHONPATH=tests python -m helpers.fake_github --serve`: the fake for `make image-smoke`.

    Prints the API URL, serves until SIGTERM, then writes the check runs and comments it
    received to `state_path` as JSON.
    """
    import signal

    global OWNER, NAME, FULL, REPO_ID
    OWNER, NAME = repository.split("/", 1)
    FULL, REPO_ID = repository, 1
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    with running() as fake:
        print(fake.api_url, flush=True)
        stopped.wait()
        state = {
            "check_runs": list(fake.check_runs.values()),
            "comments": list(fake.comments.values()),
        }
        state_path.write_text(json.dumps(state), "utf-8")


if __name__ == "__main__":
    import os
    import sys

    if sys.argv[1:] != ["--serve"]:
        raise SystemExit("usage: PYTHONPATH=tests python -m helpers.fake_github --serve")
    serve(os.environ.get("FAKE_GITHUB_REPO", "demo/shop"), Path(os.environ["FAKE_GITHUB_STATE"]))
