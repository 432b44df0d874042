"""An artifact's zip over HTTP: retried on 5xx and dropped connections, streamed under a byte
cap, and the token kept from the storage host.

The API answers the archive URL with a redirect to a storage host; the token goes to the API
only. Both requests retry with exponential backoff (urllib3's `Retry`, through requests'
adapter) on 500/502/503/504 and on connection errors; the body is read in chunks and refused
as soon as it passes the cap, so a huge artifact never fills memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from planegate.errors import InputDataError, ServiceUnavailable

MAX_ZIP_BYTES = 128 * 1024 * 1024
_REDIRECTS = (301, 302, 303, 307, 308)
_RETRIED_STATUSES = (500, 502, 503, 504)
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Transfer:
    """How a download behaves: retries, backoff between them (seconds, doubling), timeout,
    TLS verification (True, False or a CA bundle's path) and the byte cap."""

    retries: int = 4
    backoff: float = 1.0
    timeout: float = 60.0
    verify: bool | str = True
    max_bytes: int = MAX_ZIP_BYTES


def _session(transfer: Transfer) -> requests.Session:
    retry = Retry(
        total=transfer.retries,
        connect=transfer.retries,
        read=transfer.retries,
        status=transfer.retries,
        backoff_factor=transfer.backoff,
        status_forcelist=_RETRIED_STATUSES,
        allowed_methods=frozenset({"GET"}),
        raise_on_status=False,
        respect_retry_after_header=True,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def download_zip(url: str, token: str, name: str, transfer: Transfer = Transfer()) -> bytes:
    """GET the archive URL with the token, then follow the redirect in a fresh session without
    it (no Authorization, no cookies): the zip lives on a host that must never see the token."""
    with _session(transfer) as api:
        first = api.get(
            url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"},
            allow_redirects=False,
            timeout=transfer.timeout,
            verify=transfer.verify,
            stream=True,
        )
        if first.status_code not in _REDIRECTS or not first.headers.get("Location"):
            return _body(first, name, transfer.max_bytes)
        first.close()
    with _session(transfer) as storage:
        blob = storage.get(
            first.headers["Location"], timeout=transfer.timeout, verify=transfer.verify, stream=True
        )
        return _body(blob, name, transfer.max_bytes)


def _body(response: requests.Response, name: str, limit: int) -> bytes:
    with response:
        if response.status_code != 200:
            raise ServiceUnavailable(
                f"downloading the artifact {name} answered {response.status_code}"
            )
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _too_large(name, limit)
        data = bytearray()
        for chunk in response.iter_content(_CHUNK):
            data += chunk
            if len(data) > limit:
                raise _too_large(name, limit)
        return bytes(data)


def _too_large(name: str, limit: int) -> InputDataError:
    return InputDataError(f"the artifact {name} is larger than the {limit}-byte download cap")
