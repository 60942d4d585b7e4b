"""Are the integration services reachable? ``python -m tests.services DATABASE_URL REDIS_URL``
exits 0 if both answer, else 1 naming what is down. Used by the Makefile and the fixtures."""

import socket
import sys
from urllib.parse import urlsplit


def reachable(url: str, default_port: int, timeout: float = 2.0) -> str | None:
    """None if ``url``'s host:port accepts a connection, else the reason."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or default_port
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as error:
        return f"{parts.scheme} at {host}:{port} is not reachable ({error})"


def main(argv: list[str]) -> int:
    database_url, redis_url = argv[1], argv[2]
    problems = [p for p in (reachable(database_url, 5432), reachable(redis_url, 6379)) if p]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
