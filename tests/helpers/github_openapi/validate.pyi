# Types for the vendored validate.py, which stays byte-for-byte as published.
from collections.abc import Mapping
from pathlib import Path

from openapi_core import OpenAPI

SPEC_PATH: Path
HOST: str

class GitHubSchemaError(AssertionError): ...

def load_spec(path: str | Path | None = None, strict: bool = False) -> OpenAPI: ...
def check_request(
    method: str,
    url_path: str,
    query: Mapping[str, str | list[str]] | None = None,
    headers: Mapping[str, str] | None = None,
    body: str | bytes | None = None,
    spec: OpenAPI | None = None,
) -> None: ...
def check_response(
    method: str,
    url_path: str,
    status: int | str,
    headers: Mapping[str, str] | None = None,
    body: str | bytes | None = None,
    spec: OpenAPI | None = None,
) -> None: ...
def main(argv: list[str]) -> int: ...
