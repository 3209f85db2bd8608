"""Serving the web console: the socket it listens on, and its URL with the access token."""

from __future__ import annotations

import socket

from browser_agent.errors import UserError


def bound_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0: a free port), so the URL printed names the
    port actually taken; a port in use is the person's to change."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise UserError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}.") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def console_url(host: str, port: int, token: str) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    shown = f"[{shown}]" if ":" in shown and not shown.startswith("[") else shown
    return f"http://{shown}:{port}/?token={token}"
