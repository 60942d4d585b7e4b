"""One HTTP POST of a delivery: the body signed, sent to an address checked just before
(:func:`clubs.webhooks.addresses.public_addresses`), with short timeouts, no redirect
followed, and no proxy from the environment.

The standard library's ``http.client`` rather than ``requests`` (not a dependency of the
site, only of a test tool): it connects to the address given, which is what defeats DNS
rebinding -- the host name is resolved once, checked, and that address is the one used
(HTTPS still checks the certificate against the host name).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from clubs.webhooks.addresses import Refused, parts, public_addresses

CONNECT_TIMEOUT = 3.0  # seconds to connect
READ_TIMEOUT = 5.0  # seconds for each read of the answer
USER_AGENT = "Circolo-Webhooks/1"
ANSWER_BYTES = 1024  # what is read of an answer's body (nobody looks at it)


def body_bytes(body: dict) -> bytes:
    """The exact bytes sent (and signed): compact JSON, keys sorted, UTF-8."""
    return json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def signature(secret: str, payload: bytes) -> str:
    """The ``X-Circolo-Signature`` header: ``sha256=`` and the hex HMAC-SHA256 of the
    body under the webhook's secret."""
    digest = hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


@dataclass(frozen=True)
class Answer:
    """How one attempt went: the receiver's status code (None if none came) and, if it
    failed, why in a few words."""

    status: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, *, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), CONNECT_TIMEOUT)
        self.sock.settimeout(self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, *, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), CONNECT_TIMEOUT)
        sock.settimeout(self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def post(url: str, payload: bytes, headers: dict[str, str]) -> Answer:
    """POST ``payload`` to ``url`` once: never raises, the :class:`Answer` says how it went.
    A redirect is an answer like any other (a 3xx: not delivered), never followed."""
    try:
        addresses = public_addresses(url)
        scheme, host, port = parts(url)
    except Refused as refused:
        return Answer(None, f"refused: {refused}")
    split = urlsplit(url.strip())
    target = (split.path or "/") + (f"?{split.query}" if split.query else "")
    connection_class = _PinnedHTTPSConnection if scheme == "https" else _PinnedHTTPConnection
    error = ""
    for address in addresses:  # the next address only if this one would not connect
        connection = connection_class(host, port, address=address, timeout=READ_TIMEOUT)
        try:
            try:
                connection.connect()
            except OSError as failure:
                error = _describe(failure)
                continue
            connection.request(
                "POST",
                target,
                body=payload,
                headers={"User-Agent": USER_AGENT, "Content-Type": "application/json", **headers},
            )
            response = connection.getresponse()
            response.read(ANSWER_BYTES)
            return Answer(response.status)  # the status says it all
        except (OSError, http.client.HTTPException) as failure:
            return Answer(None, _describe(failure))
        finally:
            connection.close()
    return Answer(None, error)


def _describe(failure: BaseException) -> str:
    return f"{type(failure).__name__}: {failure}"[:300]
