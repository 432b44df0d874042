"""planegate.yml as committed: the configuration the gate takes from a commit, never a tree."""

from __future__ import annotations

from planegate.config import load as config_mod
from planegate.config.load import Config
from planegate.repo.git import GitRepo


def load_config(repo: GitRepo, commit: str, requested: str | None, files: set[str]) -> Config:
    name = config_mod.find_config_name(files, requested)
    if name is None:
        raise config_mod.missing_config_error(
            requested or "planegate.yml", files, f"at commit {commit[:12]}"
        )
    data = repo.read(commit, name)
    assert data is not None
    return config_mod.parse(data, name)
