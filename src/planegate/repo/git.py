"""The only module that imports GitPython: commits, blobs, diffs and exported trees.

Every GitPython error ends here: callers see planegate's own errors (an unknown revision
is a UsageError, anything else git could not do is ServiceUnavailable), never a
GitCommandError, BadName or ValueError. Every git command runs with the environment of
`planegate.repo.gitenv`: no replace refs, grafts, hooks, system or global config.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import git
import git.exc

from planegate.errors import (
    InputDataError,
    PlanegateError,
    ServiceUnavailable,
    UnknownRevision,
    UsageError,
)
from planegate.repo import export, gitdiff, gitenv, opened
from planegate.repo.gitdiff import Change

_CHUNK = 1 << 16
_CACHE_BYTES = 64 << 20  # blobs kept for a second read
_EXPORT_BATCH = 512  # blobs read at once when a tree is written out
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SYMLINK, _EXECUTABLE, _SUBMODULE = 0o120000, 0o100755, 0o160000
# What GitPython raises for a name, sha or object it cannot resolve.
_UNRESOLVED: tuple[type[Exception], ...] = (
    git.exc.BadName,
    git.exc.BadObject,
    git.exc.BadObjectType,
    git.exc.AmbiguousObjectName,
    ValueError,
)


@dataclass(frozen=True)
class CommitIdentity:
    """A commit and the author and committer it claims (git metadata: anyone can write it)."""

    sha: str
    author_name: str
    author_email: str
    committer_name: str
    committer_email: str


@dataclass(frozen=True)
class Merge:
    """`head` merged onto `base` in memory: the merged tree, or the paths that conflict."""

    tree: str | None
    conflicts: tuple[str, ...] = ()


@contextlib.contextmanager
def _translated(what: str, revision: str | None = None) -> Iterator[None]:
    """Turn whatever GitPython raises into planegate's errors. With `revision`, an object git
    cannot find is that revision being unknown; without, the repository lacks an object."""
    try:
        yield
    except PlanegateError:
        raise
    except git.exc.GitCommandNotFound:
        raise ServiceUnavailable("git is not installed or not on PATH") from None
    except git.exc.GitCommandError as error:
        raise _unavailable(what, error) from None
    except _UNRESOLVED as error:
        if revision is None:
            raise ServiceUnavailable(
                f"{what} failed: an object is missing or corrupt ({error})"
            ) from None
        raise UnknownRevision(
            f"unknown revision {revision!r}", "pass a branch, tag or commit sha"
        ) from None
    except (git.exc.GitError, git.exc.ODBError, OSError) as error:
        raise ServiceUnavailable(f"{what} failed: {type(error).__name__}: {error}") from None


class GitRepo:
    def __init__(self, root: Path) -> None:
        try:
            self._repo = git.Repo(root, search_parent_directories=True)
        except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError):
            raise UsageError(
                f"{root}: not a git repository", "run planegate inside one, or pass -C PATH"
            ) from None
        except git.exc.GitCommandNotFound:
            raise ServiceUnavailable("git is not installed or not on PATH") from None
        except (git.exc.GitError, git.exc.ODBError, OSError) as error:
            raise ServiceUnavailable(f"{root}: git cannot open it: {error}") from None
        if self._repo.working_tree_dir is None:
            raise UsageError(f"{root}: a bare repository has no working tree")
        # The merge writes its objects to a folder of planegate's own, which every read also
        # searches: the repository is only read (the action mounts it read-only).
        self._scratch = tempfile.mkdtemp(prefix="planegate-objects-")
        # GitPython's long-lived `cat-file` readers end with the repository object. Left to
        # the collector in a cycle, the readers' own finalizers may run first and find them
        # still running; a weakref callback runs before any finalizer of the cycle.
        weakref.finalize(self, _release, self._repo, self._scratch)
        self._objects = str(Path(self._repo.common_dir, "objects").resolve())
        self._repo.git.update_environment(
            **gitenv.hardened(os.environ),
            GIT_ALTERNATE_OBJECT_DIRECTORIES=gitenv.alternates(
                self._scratch, os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")
            ),
        )
        self.root = Path(self._repo.working_tree_dir)
        opened.add(str(self.root), os.fspath(self._repo.common_dir))
        self._indexes: dict[str, dict[str, tuple[bytes, int]]] = {}
        self._leaves: dict[str, dict[str, tuple[bytes, int, bool]]] = {}
        self._read_cache = _BlobCache(_CACHE_BYTES)
        self._hashes: dict[bytes, str] = {}

    def resolve(self, ref: str) -> str:
        return str(self._commit(ref).hexsha)

    def has_commit(self, sha: str) -> bool:
        """Whether this clone holds `sha` as a commit (a shallow clone may not)."""
        try:
            return self.resolve(sha) == sha.lower()
        except UnknownRevision:
            return False

    def merge_base(self, base: str, head: str) -> str:
        base_sha, head_sha = self.resolve(base), self.resolve(head)
        with _translated("git merge-base"):
            bases = self._repo.merge_base(base_sha, head_sha)
        if not bases:
            raise UsageError(f"{base} and {head} have no common ancestor")
        return str(bases[0].hexsha)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """False too when either commit is unknown to this clone."""
        if not (self.has_commit(ancestor) and self.has_commit(descendant)):
            return False
        if ancestor.lower() == descendant.lower():
            return True  # as `git merge-base --is-ancestor` answers, without its process
        with _translated("git merge-base --is-ancestor"):
            return bool(self._repo.is_ancestor(self._commit(ancestor), self._commit(descendant)))

    def merge(self, base: str, head: str) -> Merge:
        """`git merge-tree --write-tree`: the tree of `head` merged onto `base`, written to
        planegate's own object folder; the repository is not changed at all."""
        base_sha, head_sha = self.resolve(base), self.resolve(head)
        with _translated("git merge-tree"):
            status, out, err = self._repo.git.merge_tree(
                "--write-tree",
                "--name-only",
                "--no-messages",
                base_sha,
                head_sha,
                with_extended_output=True,
                with_exceptions=False,
                env={
                    "GIT_OBJECT_DIRECTORY": self._scratch,
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES": gitenv.alternates(
                        self._objects, os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")
                    ),
                },
            )
        lines = [line for line in str(out).splitlines() if line.strip()]
        if status not in (0, 1) or not lines:
            detail = " ".join(str(err).split()) or f"exit status {status}"
            raise ServiceUnavailable(
                f"git merge-tree --write-tree failed: {detail}",
                "planegate needs git 2.38 or newer to merge in memory",
            )
        if status == 1:
            return Merge(None, tuple(sorted(set(lines[1:]))))
        return Merge(lines[0])

    def files(self, commit: str) -> list[str]:
        return sorted(self._index(commit))

    def symlinks(self, commit: str) -> frozenset[str]:
        """Paths the commit stores as symlinks (their blob is the link's target path)."""
        return frozenset(
            path for path, (_, mode) in self._index(commit).items() if mode == _SYMLINK
        )

    def read(self, commit: str, path: str) -> bytes | None:
        stream = self._stream(commit, path)
        if stream is None:
            return None
        with _translated("git cat-file"):
            return bytes(stream.read())

    def read_many(self, commit: str, paths: Iterable[str]) -> dict[str, bytes]:
        """The bytes of every path of `paths` the commit holds (the others left out), read
        through one `git cat-file --batch` for all of them, not a round trip each."""
        index = self._index(commit)
        wanted = {path: index[path][0] for path in paths if path in index}
        if len(wanted) == 1:
            ((path, _),) = wanted.items()
            return {path: self.read(commit, path) or b""}
        held = {
            blob: data
            for blob in wanted.values()
            if (data := self._read_cache.get(blob)) is not None
        }
        fresh = self._blobs(set(wanted.values()) - held.keys())
        self._read_cache.keep(fresh)
        held.update(fresh)
        return {path: held[blob] for path, blob in wanted.items()}

    def _blobs(self, blobs: set[bytes], what: str = "git cat-file --batch") -> dict[bytes, bytes]:
        if not blobs:
            return {}
        request = b"".join(blob.hex().encode() + b"\n" for blob in blobs)
        with _translated(what):
            process = self._repo.git.cat_file("--batch", as_process=True, istream=subprocess.PIPE)
            writer = threading.Thread(target=_feed, args=(process.proc.stdin, request))
            writer.start()
            try:
                found = _batch_output(process.proc.stdout, len(blobs), what)
            except BaseException:
                process.proc.kill()  # else the writer may wait on a full pipe for ever
                raise
            finally:
                writer.join()
                status = process.proc.wait()
        if status != 0 or found.keys() != blobs:
            raise ServiceUnavailable(f"git cat-file --batch failed (exit status {status})")
        return found

    def sha256(self, commit: str, path: str) -> str | None:
        """Hash a blob without holding it in memory; a blob is hashed once, whichever commits
        and paths hold it (its git id names its bytes)."""
        entry = self._index(commit).get(path)
        if entry is None:
            return None
        known = self._hashes.get(entry[0])
        if known is not None:
            return known
        digest = hashlib.sha256()
        with _translated("git cat-file"):
            stream = self._repo.odb.stream(entry[0])
            while chunk := stream.read(_CHUNK):
                digest.update(chunk)
        self._hashes[entry[0]] = digest.hexdigest()
        return self._hashes[entry[0]]

    def changes(self, base: str, head: str) -> list[Change]:
        """Every path changed from `base` to `head` (commits, or trees named by full sha), read
        from `git diff-tree -z` (any name a file can have) and cross-checked against a walk of
        the two trees: output that does not parse, or that leaves out a path the trees say
        changed, stops the gate."""
        before, after = self._tree(base), self._tree(head)
        with _translated("git diff-tree"):
            raw = self._repo.git.diff_tree(
                "-r", "-z", "-M", "--name-status", "--no-commit-id", "--no-ext-diff",
                before.hexsha, after.hexsha, stdout_as_string=False, strip_newline_in_stdout=False,
            )  # fmt: skip
            changes = gitdiff.parse_name_status(bytes(raw))
        gitdiff.cross_check(changes, _changed_paths(self._entries(base), self._entries(head)))
        return sorted(changes, key=lambda change: change.path)

    def commits_touching(self, base: str, head: str, path: str) -> list[CommitIdentity]:
        """The commits on `head` but not on `base` that changed `path` (git log's history
        simplification), with the identities they claim."""
        with _translated("git log", head):
            raw = self._repo.git.log(
                "-z", "--format=%H%x00%an%x00%ae%x00%cn%x00%ce", f"{base}..{head}", "--", path
            )
        fields = str(raw).split("\0")
        return [
            CommitIdentity(*(part.strip() for part in fields[start : start + 5]))
            for start in range(0, len(fields) - 4, 5)
        ]

    @contextlib.contextmanager
    def worktree(self, commit: str, into: Path | None = None) -> Iterator[Path]:
        """`commit`'s tree (or a tree itself) exported into a throwaway folder with no link
        to this repository (no `.git`), removed afterwards with its parent whatever happens;
        `into`: an empty folder made for it ahead (runner/parked.py)."""
        parent = Path(tempfile.mkdtemp()) if into is None else into.parent  # a neutral name
        path = parent / "tree" if into is None else into
        try:
            path.mkdir(exist_ok=into is not None)
            with _translated(f"exporting the tree of {commit[:12]}"):
                export.write_tree(path, self._tree_entries(commit))
            yield path
        finally:
            shutil.rmtree(parent, ignore_errors=True)

    def _tree_entries(self, rev: str) -> Iterator[export.TreeEntry]:
        """Every entry of a tree but the trees, parents before what they hold; blobs read a
        batch at a time (one git process each, never the whole tree in memory)."""
        entries = self._entries(rev)
        paths = sorted(entries)
        for start in range(0, len(paths), _EXPORT_BATCH):
            batch = paths[start : start + _EXPORT_BATCH]
            wanted = {entries[path][0] for path in batch if entries[path][2]}
            blobs = self._blobs(wanted, f"exporting the tree of {rev[:12]}")
            for path in batch:
                sha, mode, is_blob = entries[path]
                if mode == _SUBMODULE or not is_blob:
                    yield export.TreeEntry(path, "submodule")
                elif mode == _SYMLINK:
                    yield export.TreeEntry(path, "symlink", blobs[sha])
                else:
                    kind: export.Kind = "executable" if mode == _EXECUTABLE else "file"
                    yield export.TreeEntry(path, kind, blobs[sha])

    def _commit(self, rev: str) -> git.Commit:
        with _translated("git rev-parse", rev):
            return self._repo.commit(rev)

    def _tree(self, rev: str) -> git.Tree:
        """The tree of a commit, or a tree named by its full sha (a merge's result)."""
        if _FULL_SHA.fullmatch(rev):
            with _translated("git cat-file", rev):
                found = self._repo.rev_parse(rev)
            if isinstance(found, git.Tree):  # given a path, like a commit's own tree
                return git.Tree(self._repo, found.binsha, git.Tree.tree_id << 12, "")
        commit = self._commit(rev)
        with _translated("git cat-file"):
            return commit.tree

    def _index(self, rev: str) -> dict[str, tuple[bytes, int]]:
        """path -> (blob id, mode) of every blob of a commit's tree (or a tree named by its
        full sha), listed once (a tree never changes): each read is then one object, not a
        walk of trees. Kept by sha: a branch name may move between two reads."""
        key = rev if _FULL_SHA.fullmatch(rev) else self._tree(rev).hexsha
        cached = self._indexes.get(key)
        if cached is None:
            entries = self._entries(key)
            cached = {path: (sha, mode) for path, (sha, mode, blob) in entries.items() if blob}
            self._indexes[key] = cached
        return cached

    def _entries(self, rev: str) -> dict[str, tuple[bytes, int, bool]]:
        """path -> (object id, mode, is a blob) of every entry but the trees, from one
        `git ls-tree -r -z` (libgit's own walk: one process, not an object read per tree)."""
        key = rev if _FULL_SHA.fullmatch(rev) else self._tree(rev).hexsha
        cached = self._leaves.get(key)
        if cached is not None:
            return cached
        tree = self._tree(key)
        with _translated("git ls-tree"):
            raw = self._repo.git.ls_tree(
                "-r", "-z", "--full-tree", tree.hexsha,
                stdout_as_string=False, strip_newline_in_stdout=False,
            )  # fmt: skip
        entries = _ls_tree(bytes(raw))
        self._leaves[key] = entries
        return entries

    def _stream(self, rev: str, path: str) -> Any | None:
        entry = self._index(rev).get(path)
        if entry is None:
            return None
        with _translated("git cat-file"):
            return self._repo.odb.stream(entry[0])


def _release(repo: git.Repo, scratch: str) -> None:
    repo.close()
    shutil.rmtree(scratch, ignore_errors=True)


def _changed_paths(
    before: dict[str, tuple[bytes, int, bool]], after: dict[str, tuple[bytes, int, bool]]
) -> set[str]:
    """Paths whose entry (object and mode) differs between two trees' listings: what the
    parsed diff must agree with."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def _ls_tree(raw: bytes) -> dict[str, tuple[bytes, int, bool]]:
    """`git ls-tree -r -z`: `<mode> <type> <object>\t<path>` records, each ended by NUL."""
    entries: dict[str, tuple[bytes, int, bool]] = {}
    for record in raw.split(b"\0"):
        if not record:
            continue
        head, tab, name = record.partition(b"\t")
        fields = head.split(b" ")
        if not tab or len(fields) != 3 or not _FULL_SHA.fullmatch(fields[2].decode("latin-1")):
            raise ServiceUnavailable(f"git ls-tree: unexpected line {record[:120]!r}")
        try:
            mode = int(fields[0], 8)
        except ValueError:
            raise ServiceUnavailable(f"git ls-tree: unexpected mode {fields[0][:20]!r}") from None
        path = name.decode("utf-8", "surrogateescape")
        if path in entries:
            raise InputDataError(f"the commit's tree holds {path!r} twice")
        entries[path] = (bytes.fromhex(fields[2].decode("ascii")), mode, fields[1] == b"blob")
    return entries


class _BlobCache:
    """Blobs already read, by id, up to a budget of bytes: the default evidence's scan, the
    inventory and the hunk analysis read the same test files."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._held: dict[bytes, bytes] = {}

    def get(self, blob: bytes) -> bytes | None:
        return self._held.get(blob)

    def keep(self, blobs: dict[bytes, bytes]) -> None:
        for blob, data in blobs.items():
            if len(data) > self._budget:
                return
            self._budget -= len(data)
            self._held[blob] = data


def _feed(stream: IO[bytes], data: bytes) -> None:
    """Write a request to a process (from a thread of its own, so that neither pipe fills up
    while the other waits); a process that stopped reading is told by its exit status."""
    with contextlib.suppress(OSError), stream:
        stream.write(data)


def _batch_output(stream: IO[bytes], count: int, what: str) -> dict[bytes, bytes]:
    """`count` answers of `git cat-file --batch`: `<id> blob <size>` then the bytes."""
    found: dict[bytes, bytes] = {}
    for _ in range(count):
        header = stream.readline().split()
        if len(header) == 2 and header[1] == b"missing":
            missing = header[0].decode("ascii", "replace")[:64]
            raise ServiceUnavailable(
                f"{what} failed: an object is missing or corrupt ({missing} missing)"
            )
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            raise ServiceUnavailable(
                f"git cat-file --batch: unexpected answer {b' '.join(header)[:120]!r}"
            )
        size = int(header[2])
        data = stream.read(size + 1)
        if len(data) != size + 1:
            raise ServiceUnavailable("git cat-file --batch: the output stopped in a blob")
        found[bytes.fromhex(header[0].decode("ascii"))] = data[:size]
    return found


def _unavailable(what: str, error: git.exc.GitCommandError) -> ServiceUnavailable:
    detail = " ".join(str(error.stderr).split()).removeprefix("stderr: ")
    return ServiceUnavailable(f"{what} failed: {detail}")


def init_repository(path: Path) -> GitRepo:
    """Create a new repository (used by `planegate demo`)."""
    with _translated("git init"):
        repo = git.Repo.init(path, initial_branch="main", env=gitenv.hardened(os.environ))
        with repo.config_writer() as writer:
            writer.set_value("user", "name", "planegate demo")
            writer.set_value("user", "email", "demo@planegate.invalid")
            writer.set_value("commit", "gpgsign", "false")
    return GitRepo(path)


def commit_all(repo: GitRepo, message: str) -> str:
    with _translated("git commit"):
        repo._repo.git.add("--all")
        repo._repo.git.commit("--quiet", "--allow-empty", "-m", message)
    return repo.resolve("HEAD")


def checkout(repo: GitRepo, ref: str, create: bool = False) -> None:
    with _translated("git checkout", ref):
        if create:
            repo._repo.git.checkout("--quiet", "-b", ref)
        else:
            repo._repo.git.checkout("--quiet", ref)


def tracked_files(root: Path) -> list[str] | None:
    """The files git tracks under `root` (its index: the commit plus what is staged), relative
    to `root`; None when `root` is in no git repository."""
    try:
        out = git.Git(root).execute(
            ["git", "ls-files", "-z"],
            env=gitenv.hardened(os.environ),
        )
    except (git.exc.GitCommandError, git.exc.GitCommandNotFound, OSError):
        return None
    return sorted(name for name in str(out).split("\0") if name)
