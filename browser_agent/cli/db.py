"""``browser-agent db``: the store's schema revision, and upgrading it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from browser_agent.cli.json_output import print_json

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from browser_agent.store.migrate import Revision, SchemaStatus

db_app = typer.Typer(
    help="The store's schema: its revision, and upgrading it to this version.",
    no_args_is_help=True,
)


def _engine() -> Engine:
    from browser_agent.settings import load_settings
    from browser_agent.store.db import store_engine  # SQLAlchemy loads only for db commands

    return store_engine(load_settings())


def _url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


def _listed(revisions: list[Revision]) -> str:
    return "; ".join(f"{r.id} {r.doc}".strip() for r in revisions)


def _fail(message: str) -> typer.Exit:
    typer.secho(f"Error: {message}", fg="red", err=True)
    return typer.Exit(2)


@db_app.command("status")
def status_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
) -> None:
    """Show the store's schema revision, the newest one, and whether an upgrade is pending."""
    from browser_agent.store.migrate import StoreTooNew, status  # Alembic, for db only

    engine = _engine()
    try:
        state = status(engine)
    except StoreTooNew as exc:
        raise _fail(str(exc)) from None
    if as_json:
        print_json(_as_dict(engine, state))
        return
    typer.echo(f"Store: {_url(engine)}")
    if state.current is not None:
        typer.echo(f"Revision: {state.current}")
    elif state.legacy is not None:
        typer.echo(
            f"Revision: none recorded (tables of revision {state.legacy}, made before "
            "migrations; stamped with it on upgrade)"
        )
    else:
        typer.echo("Revision: none (no tables yet)")
    typer.echo(f"Head: {state.head}")
    if state.upgrade_needed:
        typer.echo(
            f"Upgrade pending: {_listed(state.pending)}. It is applied when the store is next "
            "opened, or now by `browser-agent db upgrade`."
        )
    else:
        typer.echo("Up to date.")


@db_app.command("upgrade")
def upgrade_command() -> None:
    """Apply the pending migrations to the store (a store made before migrations is
    stamped with the revision of its tables first; no row is lost)."""
    from browser_agent.store.lock import LockTimeout
    from browser_agent.store.migrate import StoreTooNew, upgrade  # Alembic, for db only

    engine = _engine()
    try:
        done = upgrade(engine)
    except (StoreTooNew, LockTimeout) as exc:
        raise _fail(str(exc)) from None
    if done.stamped is not None:
        typer.echo(f"Stamped the store's tables (made before migrations) as {done.stamped}.")
    if not done.applied:
        typer.echo(f"The store is up to date at revision {done.head} ({_url(engine)}).")
        return
    start = done.before or done.stamped or "an empty store"
    typer.echo(f"Upgraded {_url(engine)} from {start} to {done.head}:")
    for revision in done.applied:
        typer.echo(f"  {revision.id} {revision.doc}")


def _as_dict(engine: Engine, state: SchemaStatus) -> dict[str, object]:
    return {
        "url": _url(engine),
        "current": state.current,
        "head": state.head,
        "upgrade_pending": state.upgrade_needed,
        "pending": [{"revision": r.id, "doc": r.doc} for r in state.pending],
        "made_before_migrations": state.legacy,
    }
