"""Serve the demo shop until Ctrl-C:
``python -m browser_agent.demo_site [--port N] [--latency-ms MS]``."""

from __future__ import annotations

import argparse
import threading

from browser_agent.demo_site.server import start_demo_site
from browser_agent.demo_site.variants import VARIANTS
from browser_agent.sites.ports import MAX_PORT

DEFAULT_PORT = 8811


def main(argv: list[str] | None = None) -> None:
    """Parse the options, start the site, print its URL and wait for Ctrl-C."""
    parser = argparse.ArgumentParser(
        prog="python -m browser_agent.demo_site", description="Serve the demo shoe shop."
    )
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help="port on 127.0.0.1; 0 picks a free one"
    )
    parser.add_argument("--variant", choices=VARIANTS, default="normal")
    parser.add_argument(
        "--latency-ms", type=_latency, default=0, help="hold every response back this long"
    )
    args = parser.parse_args(argv)
    with start_demo_site(args.port, args.variant, args.latency_ms) as site:
        try:  # printed inside: a Ctrl-C right after the address is read still stops cleanly
            print(f"Demo shop ({site.variant}) at {site.url} - press Ctrl-C to stop", flush=True)
            threading.Event().wait()
        except KeyboardInterrupt:
            print("Stopped.", flush=True)


def _port(text: str) -> int:
    """A port on 127.0.0.1: 0 to 65535."""
    value = int(text)
    if not 0 <= value <= MAX_PORT:
        raise ValueError(text)
    return value


def _latency(text: str) -> int:
    """A latency in whole milliseconds, 0 or more."""
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


if __name__ == "__main__":
    main()
