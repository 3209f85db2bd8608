"""The store's migrations: they make exactly the models' schema, a store made by release 0.1
(tests/fixtures/store_release_0.1.db, made by that release's own code) upgrades without
losing a row, stores made before migrations are stamped rather than re-created, and
`browser-agent db status` / `db upgrade` say where a store stands."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from filelock import FileLock
from sqlalchemy import Engine, create_engine
from sqlmodel import SQLModel
from typer.testing import CliRunner

from browser_agent.cli import app
from browser_agent.planner.router import route
from browser_agent.settings import Settings, load_settings
from browser_agent.store.db import open_store, store_engine
from browser_agent.store.lock import LockTimeout, lock_path, migration_lock
from browser_agent.store.migrate import StoreTooNew, alembic_config, current_revision, upgrade
from browser_agent.store.migrations import HEAD_REVISION
from browser_agent.store.models import HarvestedSource
from browser_agent.store.skills import current_skills, harvested_source, record_use, remember_source

FIXTURE = Path(__file__).parent / "fixtures" / "store_release_0.1.db"
RELEASE_TABLES = ("run", "step", "skill", "validation", "memoryentry")


def workspace_with(tmp_path: Path, database: Path | None = None) -> Settings:
    """Settings for a fresh workspace, holding a copy of ``database`` when one is given."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    if database is not None:
        shutil.copy(database, workspace / "browser_agent.db")
    return load_settings().with_overrides(workspace=workspace, database_url=None)


def rows(database: Path, table: str) -> list[tuple]:
    with sqlite3.connect(database) as db:
        return db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def tables(database: Path) -> list[str]:
    with sqlite3.connect(database) as db:
        return [name for (name,) in db.execute("SELECT name FROM sqlite_master")]


def schema_drift(engine: Engine) -> list:
    """What alembic's autogenerate would change to make the store match the models."""
    import browser_agent.store.memory_models  # noqa: F401  (all tables registered)
    import browser_agent.store.models  # noqa: F401

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, SQLModel.metadata)


def cli(settings: Settings, *args: str) -> str:
    result = CliRunner().invoke(
        app, list(args), env={"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_head_revision_names_the_newest_migration() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert script.get_current_head() == HEAD_REVISION
    assert [r.revision for r in script.walk_revisions()][-1] == "0001"


def test_a_new_store_is_made_by_the_migrations_with_exactly_the_models_schema(
    tmp_path: Path,
) -> None:
    settings = workspace_with(tmp_path)
    engine = open_store(settings)
    assert current_revision(engine) == HEAD_REVISION
    assert schema_drift(engine) == []
    assert (settings.workspace / "browser_agent.db.lock").exists()  # made under the lock


def test_the_release_store_upgrades_to_exactly_the_models_schema_without_losing_a_row(
    tmp_path: Path,
) -> None:
    settings = workspace_with(tmp_path, FIXTURE)
    database = settings.workspace / "browser_agent.db"
    before = {table: rows(database, table) for table in RELEASE_TABLES}
    assert [len(before[t]) for t in RELEASE_TABLES] == [3, 11, 1, 1, 4]

    engine = open_store(settings)

    assert current_revision(engine) == HEAD_REVISION
    assert schema_drift(engine) == []
    assert {table: rows(database, table) for table in RELEASE_TABLES} == before
    assert rows(database, "harvestedsource") == []


def test_the_upgraded_release_store_is_used_as_before(tmp_path: Path) -> None:
    settings = workspace_with(tmp_path, FIXTURE)
    engine = open_store(settings)

    runs = cli(settings, "runs")
    assert (runs.count("succeeded"), runs.count("failed")) == (2, 1)
    assert all(word in runs for word in ("trail", "sandals", "moon"))
    assert "search_sort" in cli(settings, "skills")
    assert "enter_text" in cli(settings, "show", "20261130-173343-ac5746")
    memories = cli(settings, "memory", "list", "--kind", "long")
    assert "demo shop" in memories and "seller" in memories

    (skill,) = current_skills(engine, "healthy")
    found = route("search for sandals and sort by customer rating", [skill], skill.start_url)
    assert found is not None and found.skill.name == "search_sort"
    assert found.arguments == {"search_term": "sandals", "sort_by": "customer rating"}

    record_use(engine, skill.id, ok=True)  # the release's count goes on
    (skill,) = current_skills(engine)
    assert (skill.uses, skill.successes, skill.failures) == (2, 2, 0)

    remember_source(engine, HarvestedSource(key="run x", run_id="x", outcome="skipped"))
    assert harvested_source(engine, "run x") is not None  # the table revision 2 added


def test_a_store_made_with_the_harvested_sources_table_before_migrations_is_stamped_as_such(
    tmp_path: Path,
) -> None:
    """Development builds after release 0.1 made their tables with create_all too, the
    harvested sources among them: they are stamped with revision 0002, not re-created."""
    settings = workspace_with(tmp_path)
    legacy = create_engine(settings.db_url)
    import browser_agent.store.memory_models  # noqa: F401
    import browser_agent.store.models  # noqa: F401

    SQLModel.metadata.create_all(legacy)
    legacy.dispose()

    done = upgrade(store_engine(settings))

    assert (done.before, done.stamped, done.applied) == (None, "0002", [])
    assert current_revision(store_engine(settings)) == HEAD_REVISION


def test_db_status_and_db_upgrade_on_the_release_store(tmp_path: Path) -> None:
    settings = workspace_with(tmp_path, FIXTURE)

    status = json.loads(cli(settings, "db", "status", "--json"))
    assert status["current"] is None and status["made_before_migrations"] == "0001"
    assert status["head"] == HEAD_REVISION and status["upgrade_pending"] is True
    assert [p["revision"] for p in status["pending"]] == ["0002"]
    assert rows(settings.workspace / "browser_agent.db", "run")  # status changed nothing
    assert current_revision(store_engine(settings)) is None

    said = cli(settings, "db", "upgrade")
    assert "Stamped" in said and "0001" in said
    assert "from 0001 to 0002" in said and "Harvested sources" in said

    assert "up to date at revision 0002" in cli(settings, "db", "upgrade")
    status = json.loads(cli(settings, "db", "status", "--json"))
    assert (status["current"], status["upgrade_pending"], status["pending"]) == ("0002", False, [])
    assert "Up to date." in cli(settings, "db", "status")


def test_db_status_of_a_workspace_without_a_store_creates_none(tmp_path: Path) -> None:
    settings = workspace_with(tmp_path)
    said = cli(settings, "db", "status")
    assert "Revision: none (no tables yet)" in said and "0001" in said and "0002" in said
    assert not (settings.workspace / "browser_agent.db").exists()


def test_a_store_from_a_newer_version_is_refused_in_one_line(tmp_path: Path) -> None:
    settings = workspace_with(tmp_path)
    open_store(settings)
    with sqlite3.connect(settings.workspace / "browser_agent.db") as db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")

    with pytest.raises(StoreTooNew, match="revision 9999.*newer version"):
        open_store(settings)
    result = CliRunner().invoke(
        app, ["db", "status"], env={"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    )
    assert result.exit_code == 2
    assert "9999" in result.output and "Traceback" not in result.output


def test_the_newest_revision_downgrades_and_upgrades_again(tmp_path: Path) -> None:
    from alembic import command

    settings = workspace_with(tmp_path, FIXTURE)
    engine = open_store(settings)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0001")
    assert current_revision(engine) == "0001"
    assert len(rows(settings.workspace / "browser_agent.db", "run")) == 3

    done = upgrade(engine)
    assert [r.id for r in done.applied] == ["0002"] and schema_drift(engine) == []


def test_opening_a_current_store_and_starting_the_cli_leave_alembic_unimported(
    tmp_path: Path,
) -> None:
    settings = workspace_with(tmp_path)
    open_store(settings)
    code = (
        "import sys; from pathlib import Path; import browser_agent.cli; "
        "from browser_agent.settings import load_settings; "
        "from browser_agent.store.db import open_store; "
        f"open_store(load_settings().with_overrides(workspace=Path({str(settings.workspace)!r})));"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_opening_a_store_waits_while_another_process_holds_the_migration_lock(
    tmp_path: Path,
) -> None:
    settings = workspace_with(tmp_path)
    database = settings.workspace / "browser_agent.db"
    code = (
        "from pathlib import Path; from browser_agent.settings import load_settings; "
        "from browser_agent.store.db import open_store; "
        f"open_store(load_settings().with_overrides(workspace=Path({str(settings.workspace)!r})))"
    )
    with FileLock(str(lock_path(database))):
        opening = subprocess.Popen([sys.executable, "-c", code])
        deadline = time.monotonic() + 60
        while not database.exists() and time.monotonic() < deadline:  # it read the revision
            time.sleep(0.05)
        deadline = time.monotonic() + 3  # a migration takes a tenth of that
        while time.monotonic() < deadline:
            assert opening.poll() is None, "the store was opened while the lock was held"
            assert tables(database) == [], "tables were made while the lock was held"
            time.sleep(0.05)
    assert opening.wait(timeout=60) == 0
    assert current_revision(store_engine(settings)) == HEAD_REVISION


def test_a_lock_held_too_long_is_said_in_one_line(tmp_path: Path) -> None:
    settings = workspace_with(tmp_path)
    held = FileLock(str(lock_path(settings.workspace / "browser_agent.db")))
    expected = "another process has been creating or upgrading the store for 0 s"
    with (
        held,
        pytest.raises(LockTimeout, match=expected),
        migration_lock(store_engine(settings), wait_s=0.2),
    ):
        pass
