"""The options of the commands that open a browser: ``--profile``, ``--storage-state``,
``--allow-domain`` and ``--secret``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from browser_agent.secrets import OPTION_HELP as SECRET_HELP
from browser_agent.sites.policy import ALLOW_DOMAIN_HELP

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
AllowDomainOption = Annotated[
    list[str] | None, typer.Option("--allow-domain", help=ALLOW_DOMAIN_HELP)
]
SecretOption = Annotated[list[str] | None, typer.Option("--secret", help=SECRET_HELP)]
