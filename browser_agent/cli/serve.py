"""``browser-agent serve``: the web console on loopback, behind a random access token.

Only typer is imported here; the web app, uvicorn and the planner load when the command
runs, so ``--help`` stays fast.
"""

from __future__ import annotations

from typing import Annotated

import typer

from browser_agent.console.hosts import is_loopback
from browser_agent.errors import UserError

MODEL_HELP = "Model at the endpoint; 'offline' for the built-in planner (the default without one)."
MISSING = (
    "The web console needs its extra: pip install 'browser-agent[console]' "
    "(starlette, uvicorn, jinja2, python-multipart, sse-starlette)."
)


def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0 picks a free one).")
    ] = 8800,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote", help="Allow a non-loopback --host: anyone with the token can run."
        ),
    ] = False,
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
) -> None:
    """Serve the web console: start and watch runs, answer the agent, browse runs and skills.

    It prints its URL with a random access token; every page needs it (after the first
    visit, a session the browser keeps for this console alone). Stop it with Ctrl-C."""
    if not is_loopback(host) and not allow_remote:
        raise UserError(
            f"--host {host} is not a loopback address: anyone who can reach it and has the "
            "token could drive a browser from this machine. Add --allow-remote to do it anyway."
        )
    try:
        import uvicorn

        from browser_agent.console.app import create_app
    except ImportError:
        raise UserError(MISSING) from None
    from browser_agent.console.auth import new_token
    from browser_agent.console.serve import bound_socket, console_url
    from browser_agent.llm.choose import make_llm
    from browser_agent.settings import load_settings
    from browser_agent.store.db import open_store

    settings = load_settings()
    engine = open_store(settings)
    token = new_token()
    app = create_app(settings, engine, token, lambda: make_llm(settings, model))
    sock = bound_socket(host, port)
    if not is_loopback(host):
        typer.secho(
            f"Warning: the console listens on {host}, beyond this machine; keep its token secret.",
            fg="yellow",
            err=True,
        )
    typer.echo(f"Web console at {console_url(host, sock.getsockname()[1], token)}", err=False)
    typer.echo("Press Ctrl-C to stop.")
    # no access log: it would write the token of a first visit's URL
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
