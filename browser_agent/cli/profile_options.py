"""The ``--profile`` and ``--storage-state`` options of the commands that open a browser."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

ProfileOption = Annotated[
    str | None,
    typer.Option(
        "--profile",
        help="Browser profile NAME: start from its cookies and storage (a login kept) "
        "and save them back in the workspace; overrides BROWSER_AGENT_PROFILE.",
    ),
]
StorageStateOption = Annotated[
    Path | None,
    typer.Option(
        "--storage-state",
        dir_okay=False,
        help="Start from this Playwright storage-state file (cookies and localStorage).",
    ),
]
