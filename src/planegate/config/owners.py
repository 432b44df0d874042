"""Who must act on a finding: the plane's owner, the ledger entry's owner, or CODEOWNERS."""

from __future__ import annotations

from dataclasses import dataclass

from codeowners import CodeOwners

from planegate.config.load import Config

UNOWNED = "unowned"
CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


@dataclass(frozen=True)
class Owners:
    config: Config
    codeowners: CodeOwners | None

    def of_path(self, path: str) -> str:
        if self.codeowners is None:
            return UNOWNED
        owners = self.codeowners.of(path)
        return " ".join(name for _kind, name in owners) if owners else UNOWNED

    def of_plane(self, plane: str | None, path: str | None = None) -> str:
        """The plane's owner when it names one, else CODEOWNERS for the path."""
        if plane is not None and plane in self.config.planes:
            owner = self.config.planes[plane].owner
            if owner != UNOWNED:
                return owner
        return self.of_path(path) if path else UNOWNED

    def of_protected(self, plane: str | None, path: str) -> str:
        """Who answers for a protected path: its plane's owner, else CODEOWNERS, else the
        configuration's own owner (conftest files and pytest configuration outside any plane
        are part of the configuration)."""
        owner = self.of_plane(plane, path)
        return owner if owner != UNOWNED else self.of_plane_map()

    def of_plane_map(self) -> str:
        return self.config.owner if self.config.owner != UNOWNED else self.of_path(self.config.path)


def load(config: Config, files: dict[str, bytes | None]) -> Owners:
    """`files` maps each candidate CODEOWNERS path to its bytes at the base (None if absent)."""
    # GitHub uses the first CODEOWNERS it finds in .github/, then the root, then docs/.
    for path in CODEOWNERS_PATHS:
        data = files.get(path)
        if data is not None:
            return Owners(config, CodeOwners(data.decode("utf-8", "replace")))
    return Owners(config, None)
