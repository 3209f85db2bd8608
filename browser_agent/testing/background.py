"""An HTTP server answering from a daemon thread: the test sites' and servers' base."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from typing import Self


class BackgroundServer:
    """Serves ``httpd`` from a daemon thread until :meth:`stop`; a ``with`` block stops it."""

    def __init__(self, httpd: ThreadingHTTPServer, name: str | None = None) -> None:
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},  # how long stop() may wait for the accept loop
            name=name,
            daemon=True,
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """``http://HOST:PORT``, where the server answers."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
