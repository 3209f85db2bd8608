"""A test site served on a free port of 127.0.0.1 for the length of a ``with`` block."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

# How long a test's own clicks on a real application wait (ms): a busy machine's PHP or
# Python application may take seconds to save, far beyond a run's short action timeout.
PERSON_WAITS = 30_000


class ServedSite:
    """GET and POST requests go to the site's ``_get`` and ``_post``; ``url`` is its
    address once the block has started."""

    url: str = ""
    _server: ThreadingHTTPServer | None = None

    def __enter__(self) -> Self:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                site._get(self)

            def do_POST(self) -> None:  # noqa: N802
                site._post(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        request.send_error(404)

    def _post(self, request: BaseHTTPRequestHandler) -> None:
        request.send_error(405)
