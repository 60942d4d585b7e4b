"""A real HTTP server in a thread, receiving webhooks for the tests: it keeps each request
(path, headers, raw body) and answers the status codes it is given, in turn (the last one
for ever after)."""

from __future__ import annotations

import hashlib
import hmac
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def signed_with(self, secret: str) -> bool:
        """The check a receiver makes (docs/api.md, "Webhooks"): the signature header is the
        HMAC-SHA256 of the raw body, compared in constant time."""
        expected = "sha256=" + hmac.new(secret.encode(), self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, self.headers.get("X-Circolo-Signature", ""))


@dataclass
class Receiver:
    server: ThreadingHTTPServer
    answers: list[int] = field(default_factory=lambda: [200])
    received: list[Received] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/hooks/circolo"

    def answer(self) -> int:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def start(answers: list[int] | None = None) -> Receiver:
    receiver: Receiver

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(length)
            receiver.received.append(Received(self.path, dict(self.headers.items()), body))
            status = receiver.answer()
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", "http://127.0.0.1:9/elsewhere")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
            receiver.arrived.set()

        def log_message(self, *args):  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver = Receiver(server=server, answers=list(answers or [200]))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver
