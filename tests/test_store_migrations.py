"""The store's migrations: they make exactly the models' schema, a store made by release 0.1
(tests/fixtures/store_release_0.1.sql: the dump of a store made by that release's own code)
upgrades without losing a row, stores made before migrations are stamped rather than re-created, and
`browser-agent db status` / `db upgrade` say where a store stands.

The release store is a SQLite file, so its tests run on SQLite; the others run on both
kinds of store (the ``store_url`` fixture: a SQLite file, and a database of the test's own
on the session's PostgreSQL server)."""

from __future__ import annotations

import hashlib
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
from sqlalchemy import Engine, insert, inspect, text
from sqlmodel import SQLModel
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.planner.router import route
from browser_agent.settings import Settings, load_settings
from browser_agent.store.db import open_store, store_engine
from browser_agent.store.health import OK, count_use
from browser_agent.store.lock import LockTimeout, lock_path, migration_lock
from browser_agent.store.migrate import StoreTooNew, alembic_config, current_revision, upgrade
from browser_agent.store.migrations import HEAD_REVISION
from browser_agent.store.models import HarvestedSource, Run
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import harvested_source, remember_source

FIXTURE = Path(__file__).parent / "fixtures" / "store_release_0.1.sql"  # a text dump
RELEASE_TABLES = ("run", "step", "skill", "validation", "memoryentry")


def workspace_with(tmp_path: Path, dump: Path | None = None) -> Settings:
    """Settings for a fresh workspace, holding the database of ``dump`` (SQL text, as
    ``sqlite3 .dump`` writes it) when one is given."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    if dump is not None:
        with sqlite3.connect(workspace / "browser_agent.db") as database:
            database.executescript(dump.read_text(encoding="utf-8"))
    return load_settings().with_overrides(workspace=workspace, database_url=None)


def store_at(tmp_path: Path, store_url: str) -> Settings:
    """Settings for a fresh workspace whose store is ``store_url`` (empty)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return load_settings().with_overrides(workspace=workspace, database_url=store_url)


def table_names(engine: Engine) -> list[str]:
    return sorted(inspect(engine).get_table_names())


def revisions_after(revision: str) -> list[str]:
    """The revisions after ``revision`` up to the head, oldest first."""
    script = ScriptDirectory.from_config(alembic_config())
    ids = [r.revision for r in reversed(list(script.walk_revisions()))]
    return ids[ids.index(revision) + 1 :]


def rows(database: Path, table: str, columns: list[str] | None = None) -> list[tuple]:
    """The table's rows (only ``columns``, when given), in id order."""
    chosen = ", ".join(f'"{c}"' for c in columns) if columns else "*"
    with sqlite3.connect(database) as db:
        return db.execute(f"SELECT {chosen} FROM {table} ORDER BY 1").fetchall()


def columns_of(database: Path, table: str) -> list[str]:
    with sqlite3.connect(database) as db:
        return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


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


def cli_env(settings: Settings) -> dict[str, str | None]:
    """The environment that points the command line at the settings' workspace and store."""
    return {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_DATABASE_URL": settings.database_url,
    }


def cli(settings: Settings, *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env=cli_env(settings))
    assert result.exit_code == 0, result.output
    return result.output


def test_head_revision_names_the_newest_migration() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert script.get_current_head() == HEAD_REVISION
    assert [r.revision for r in script.walk_revisions()][-1] == "0001"


def test_a_new_store_is_made_by_the_migrations_with_exactly_the_models_schema(
    tmp_path: Path, store_url: str
) -> None:
    settings = store_at(tmp_path, store_url)
    engine = open_store(settings)
    assert current_revision(engine) == HEAD_REVISION
    assert schema_drift(engine) == []
    if engine.url.get_backend_name() == "sqlite":
        assert (settings.workspace / "browser_agent.db.lock").exists()  # made under the lock
        with engine.connect() as connection:  # a run and the validator can write at once
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_the_release_store_upgrades_to_exactly_the_models_schema_without_losing_a_row(
    tmp_path: Path,
) -> None:
    settings = workspace_with(tmp_path, FIXTURE)
    database = settings.workspace / "browser_agent.db"
    columns = {table: columns_of(database, table) for table in RELEASE_TABLES}
    before = {table: rows(database, table) for table in RELEASE_TABLES}
    assert [len(before[t]) for t in RELEASE_TABLES] == [3, 11, 1, 1, 4]

    engine = open_store(settings)

    assert current_revision(engine) == HEAD_REVISION
    assert schema_drift(engine) == []
    after = {table: rows(database, table, columns[table]) for table in RELEASE_TABLES}
    assert after == before  # (its files are not here: the paths stay as they were)
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

    count_use(engine, skill.id, OK, None)  # the release's count goes on
    (skill,) = current_skills(engine)
    assert (skill.uses, skill.successes, skill.failures) == (2, 2, 0)

    remember_source(engine, HarvestedSource(key="run x", run_id="x", outcome="skipped"))
    assert harvested_source(engine, "run x") is not None  # the table revision 2 added


def test_a_store_made_with_the_harvested_sources_table_before_migrations_is_stamped_as_such(
    tmp_path: Path, store_url: str
) -> None:
    """Development builds after release 0.1 made their tables with create_all too, the
    harvested sources among them: they are stamped with revision 0002, not re-created."""
    settings = store_at(tmp_path, store_url)
    legacy = store_engine(settings)
    import browser_agent.store.memory_models  # noqa: F401
    import browser_agent.store.models  # noqa: F401

    SQLModel.metadata.create_all(legacy)
    with legacy.begin() as connection:  # those builds kept no skill code in the store
        connection.exec_driver_sql("ALTER TABLE skill DROP COLUMN source")
        connection.exec_driver_sql("ALTER TABLE skill DROP COLUMN source_hash")
        connection.exec_driver_sql("ALTER TABLE run DROP COLUMN pid")  # nor the run's owner
        connection.exec_driver_sql("ALTER TABLE run DROP COLUMN host")
        connection.exec_driver_sql("DROP TABLE batchjob")  # nor batch jobs
        connection.exec_driver_sql("DROP TABLE runlog")  # nor run logs
        connection.exec_driver_sql("DROP INDEX ix_validation_job_id")  # nor validation jobs
        connection.exec_driver_sql("ALTER TABLE validation DROP COLUMN job_id")
        connection.exec_driver_sql("DROP TABLE skilloutcome")  # nor skill outcomes
        connection.exec_driver_sql("ALTER TABLE skill DROP COLUMN plan")  # nor skill plans
        connection.exec_driver_sql("ALTER TABLE run DROP COLUMN cost_usd")  # nor run costs
        connection.exec_driver_sql("DROP TABLE watchcheck")  # nor watches
        connection.exec_driver_sql("DROP TABLE watch")
        connection.exec_driver_sql("DROP TABLE decision")  # nor decisions
        connection.exec_driver_sql("ALTER TABLE skill DROP COLUMN routable")  # nor routability
    legacy.dispose()

    done = upgrade(store_engine(settings))

    assert (done.before, done.stamped) == (None, "0002")
    assert [revision.id for revision in done.applied] == revisions_after("0002")
    assert current_revision(store_engine(settings)) == HEAD_REVISION


def test_db_status_and_db_upgrade_on_the_release_store(tmp_path: Path) -> None:
    settings = workspace_with(tmp_path, FIXTURE)

    status = json.loads(cli(settings, "db", "status", "--json"))
    assert status["current"] is None and status["made_before_migrations"] == "0001"
    assert status["head"] == HEAD_REVISION and status["upgrade_pending"] is True
    assert [p["revision"] for p in status["pending"]] == revisions_after("0001")
    assert rows(settings.workspace / "browser_agent.db", "run")  # status changed nothing
    assert current_revision(store_engine(settings)) is None

    said = cli(settings, "db", "upgrade")
    assert "Stamped" in said and "0001" in said
    assert f"from 0001 to {HEAD_REVISION}" in said and "Harvested sources" in said

    assert f"up to date at revision {HEAD_REVISION}" in cli(settings, "db", "upgrade")
    status = json.loads(cli(settings, "db", "status", "--json"))
    assert (status["current"], status["upgrade_pending"], status["pending"]) == (
        HEAD_REVISION,
        False,
        [],
    )
    assert "Up to date." in cli(settings, "db", "status")


def test_db_status_of_a_workspace_without_a_store_creates_none(
    tmp_path: Path, store_url: str
) -> None:
    settings = store_at(tmp_path, store_url)
    said = cli(settings, "db", "status")
    assert "Revision: none (no tables yet)" in said and "0001" in said and "0002" in said
    assert not (settings.workspace / "browser_agent.db").exists()
    if store_url.startswith("postgresql"):
        assert table_names(store_engine(settings)) == []


def test_db_status_and_db_upgrade_on_a_store_made_before_migrations(
    tmp_path: Path, store_url: str
) -> None:
    """A store with the first revision's tables and a run but no revision recorded (as
    release 0.1 made them) is shown as such, then stamped and upgraded keeping its run."""
    from alembic import command

    settings = store_at(tmp_path, store_url)
    with store_engine(settings).begin() as connection:
        command.upgrade(alembic_config(connection), "0001")
        connection.execute(text("DROP TABLE alembic_version"))
        connection.execute(insert(Run), {"id": "r1", "command": "search for boots"})

    status = json.loads(cli(settings, "db", "status", "--json"))
    assert (status["current"], status["made_before_migrations"]) == (None, "0001")
    assert [p["revision"] for p in status["pending"]] == revisions_after("0001")
    assert current_revision(store_engine(settings)) is None  # status changed nothing

    said = cli(settings, "db", "upgrade")
    assert "Stamped the store's tables (made before migrations) as 0001" in said
    assert f"from 0001 to {HEAD_REVISION}" in said

    status = json.loads(cli(settings, "db", "status", "--json"))
    assert (status["current"], status["upgrade_pending"]) == (HEAD_REVISION, False)
    engine = store_engine(settings)
    assert schema_drift(engine) == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT id, command FROM run")).all() == [
            ("r1", "search for boots")
        ]


def test_a_store_from_a_newer_version_is_refused_in_one_line(
    tmp_path: Path, store_url: str
) -> None:
    settings = store_at(tmp_path, store_url)
    with open_store(settings).begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))

    with pytest.raises(StoreTooNew, match="revision 9999.*newer version"):
        open_store(settings)
    for command in (["db", "status"], ["db", "upgrade"], ["runs"]):
        result = CliRunner().invoke(app, command, env=cli_env(settings))
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert "9999" in result.output and "Traceback" not in result.output


def test_every_revision_downgrades_and_upgrades_again_keeping_the_runs(
    tmp_path: Path, store_url: str
) -> None:
    from alembic import command

    settings = store_at(tmp_path, store_url)
    engine = open_store(settings)
    with engine.begin() as connection:
        connection.execute(insert(Run), {"id": "r1", "command": "search for boots"})
        command.downgrade(alembic_config(connection), "0001")
    assert current_revision(engine) == "0001"

    done = upgrade(engine)

    assert [r.id for r in done.applied] == revisions_after("0001")
    assert schema_drift(engine) == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT id FROM run")).scalars().all() == ["r1"]


def test_skills_stored_before_routability_get_it_once_as_routing_read_it(
    tmp_path: Path, store_url: str
) -> None:
    """Revision 0015 fills the new field of every skill from its status, completeness,
    plan and last error, as routing read them before it was kept."""
    from alembic import command

    settings = store_at(tmp_path, store_url)
    engine = open_store(settings)
    plan = json.dumps({"steps": [{"address": ""}, {"address": "/search?q={q}"}]})
    kept = {  # name: status, complete, last error, routable as read before
        "healthy": ("healthy", True, None, True),
        "partial": ("healthy", False, None, False),
        "secret": ("candidate", True, "needs a secret: PW is not configured", True),
        "unverified": ("candidate", True, "ended on /a instead of /b", False),
        "by_address": ("stale", True, "step 2: #gone is not there", True),
        "broken": ("stale", True, "step 1: #gone is not there", False),
    }
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0014")
        for name, (status, complete, error, _routable) in kept.items():
            connection.execute(
                text(
                    "INSERT INTO skill (name, module_path, shape, version, current, status, "
                    "command_templates, signature, docstring, example_args, start_url, "
                    "expected_end, complete, selectors, source_runs, healed, plan, source, "
                    "source_hash, uses, successes, failures, last_error, created_at) VALUES "
                    "(:name, '', :name, 1, :yes, :status, '[]', '{}', '', '{}', '', '', "
                    ":complete, '[]', '[]', '{}', :plan, '', '', 0, 0, 0, :error, :at)"
                ),
                {"name": name, "yes": True, "status": status, "complete": complete,
                 "plan": plan, "error": error, "at": "2026-12-01 00:00:00"},
            )  # fmt: skip

    upgrade(engine)

    routable = {s.name: s.routable for s in current_skills(engine)}
    assert routable == {name: row[3] for name, row in kept.items()}


def test_the_newest_revision_downgrades_and_upgrades_again(tmp_path: Path) -> None:
    from alembic import command

    settings = workspace_with(tmp_path, FIXTURE)
    engine = open_store(settings)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0001")
    assert current_revision(engine) == "0001"
    assert len(rows(settings.workspace / "browser_agent.db", "run")) == 3

    done = upgrade(engine)
    assert [r.id for r in done.applied] == revisions_after("0001")
    assert schema_drift(engine) == []


def test_opening_a_current_store_and_starting_the_cli_leave_alembic_unimported(
    tmp_path: Path,
) -> None:
    settings = workspace_with(tmp_path)
    open_store(settings)
    code = (
        "import sys; from pathlib import Path; import browser_agent.cli.app; "
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


def test_the_release_store_in_its_workspace_gets_its_code_and_relative_paths(
    tmp_path: Path,
) -> None:
    """With the release's files beside it, the upgrade keeps each skill's code in the store
    and makes paths inside the workspace relative: the workspace can move from then on."""
    settings = workspace_with(tmp_path, FIXTURE)
    release_files = FIXTURE.with_suffix("")  # tests/fixtures/store_release_0.1/
    shutil.copytree(release_files, settings.workspace, dirs_exist_ok=True)
    engine = open_store(settings)

    (skill,) = current_skills(engine)
    module = release_files / "skills" / "harvested" / "search_sort_v1.py"
    assert skill.module_path == "skills/harvested/search_sort_v1.py"
    assert skill.source == module.read_text(encoding="utf-8")
    assert skill.source_hash == hashlib.sha256(module.read_bytes()).hexdigest()
    database = settings.workspace / "browser_agent.db"
    logs = [path for (path,) in rows(database, "run", ["log_path"])]
    assert logs and all(path.startswith("logs/") and path.endswith(".json") for path in logs)
    assert all((settings.workspace / path).exists() for path in logs)
