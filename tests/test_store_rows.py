"""A run's rows written through the database driver (no ORM) are the rows the ORM writes
and reads: same columns, same stored values, on SQLite and on PostgreSQL; and a run opens
a current SQLite store with sqlite3 alone, any other store as every command does."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, SQLModel, select

from browser_agent.planner.records import RunRecorder
from browser_agent.secrets import MASK
from browser_agent.settings import Settings, load_settings
from browser_agent.store.abandoned import ABANDONED_ERROR, this_process
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store, orm_engine
from browser_agent.store.health import BROKEN, OK, count_use
from browser_agent.store.migrate import current_revision
from browser_agent.store.migrations import HEAD_REVISION
from browser_agent.store.models import Decision, Run, Skill, Step
from browser_agent.store.rows import DecisionRow, RunRow, SkillRow, StepRow
from browser_agent.store.run_rows import recent_runs
from browser_agent.store.run_store import open_run_store
from browser_agent.store.skill_use import current_skills, mark_stale

PAIRS = ((RunRow, Run), (StepRow, Step), (SkillRow, Skill), (DecisionRow, Decision))


def store_settings(tmp_path: Path, store_url: str) -> Settings:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    return load_settings().with_overrides(workspace=workspace, database_url=store_url)


def stored(engine: Engine, table: str, key: str, value: object) -> dict[str, object]:
    """A row as the database keeps it (SQLite's time text included), without the ORM."""
    with engine.connect() as connection:
        query = text(f'SELECT * FROM {table} WHERE "{key}" = :value')
        return dict(connection.execute(query, {"value": value}).mappings().one())


def test_recent_runs_are_filtered_by_status_and_words_of_the_command(
    tmp_path: Path, store_url: str
) -> None:
    settings = store_settings(tmp_path, store_url)
    engine = open_store(settings)
    commands = [
        ("a", "Search for TRAIL shoes", "succeeded"),
        ("b", "search for trail shoes at 100%", "failed"),
        ("c", "open the sale_page", "succeeded"),
        ("d", "open the salespage", "succeeded"),
    ]
    with Session(engine) as db:
        for n, (run_id, command, status) in enumerate(commands):
            started = datetime(2026, 12, 1, 10, n, tzinfo=UTC)
            db.add(Run(id=run_id, command=command, status=status, started_at=started))
        db.commit()
    store = Store.of(engine)

    assert [run.id for run in recent_runs(store, 10)] == ["d", "c", "b", "a"]
    assert [run.id for run in recent_runs(store, 2)] == ["d", "c"]
    assert [run.id for run in recent_runs(store, 10, text="trail")] == ["b", "a"]
    assert [run.id for run in recent_runs(store, 10, "succeeded", "trail")] == ["a"]
    assert [run.id for run in recent_runs(store, 10, text="100%")] == ["b"]
    assert [run.id for run in recent_runs(store, 10, text="sale_")] == ["c"]
    assert [run.id for run in recent_runs(store, 10, text="%")] == ["b"]


@pytest.mark.parametrize(("row", "model"), PAIRS, ids=lambda t: t.__name__)
def test_each_row_type_has_the_fields_of_its_table(row: type, model: type[SQLModel]) -> None:
    """Names, types and defaults: the SQL made from a row type's fields fits its table."""
    fields = {f.name: f for f in dataclasses.fields(row)}
    assert set(fields) == set(model.model_fields)
    for name, field in model.model_fields.items():
        mine = fields[name]
        assert str(mine.type).replace("datetime.", "") == _type_name(field.annotation), name
        if field.default_factory is not None:
            assert mine.default_factory is field.default_factory, name
        elif field.is_required():
            assert mine.default is dataclasses.MISSING, name
        else:
            assert mine.default == field.default, name


def _type_name(annotation: object) -> str:
    name = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    return (name or str(annotation)).replace("datetime.", "")


def test_a_run_and_its_step_are_stored_as_the_orm_stores_them(
    tmp_path: Path, store_url: str
) -> None:
    settings = store_settings(tmp_path, store_url)
    engine = open_store(settings)
    store = open_run_store(settings)
    recorder = RunRecorder.start(store, settings.logs_dir, "say {PIN}", None, "offline")
    recorder.secrets.add("4711")
    recorder.add_step(StepRow(recorder.run.id, 0, "enter_text", '{"text": "4711"}', "typed 4711"))
    recorder.finish([], "succeeded", answer="done", final_url="http://127.0.0.1/x")

    run = recorder.run  # the same fields, written by the ORM under another id
    twin = Run(**{**dataclasses.asdict(run), "id": "twin"})
    step = StepRow(**{**dataclasses.asdict(recorder_step(engine, run.id)), "id": None})
    with Session(engine) as db:
        db.add(twin)
        db.commit()
        db.add(Step(**{**dataclasses.asdict(step), "run_id": "twin"}))
        db.commit()

    assert {**stored(engine, "run", "id", run.id), "id": "twin"} == stored(
        engine, "run", "id", "twin"
    )
    mine, theirs = (
        stored(engine, "step", "run_id", run.id),
        stored(engine, "step", "run_id", "twin"),
    )
    assert {**mine, "id": None, "run_id": None} == {**theirs, "id": None, "run_id": None}
    assert mine["arguments"] == f'{{"text": "{MASK}"}}' and mine["response"] == f"typed {MASK}"
    assert (mine["index"], mine["ok"]) == (1, True)
    with Session(engine) as db:  # and the ORM reads it back as it was given
        back = db.get(Run, run.id)
    assert back is not None and (back.status, back.steps, back.answer) == ("succeeded", 1, "done")
    assert back.started_at == run.started_at


def recorder_step(engine: Engine, run_id: str) -> StepRow:
    """The run's one step, read by the ORM, as a row."""
    with Session(engine) as db:
        (step,) = db.exec(select(Step).where(Step.run_id == run_id)).all()
    return StepRow(**step.model_dump())


def test_skills_are_read_and_counted_as_the_orm_keeps_them(tmp_path: Path, store_url: str) -> None:
    settings = store_settings(tmp_path, store_url)
    engine = open_store(settings)
    made = datetime(2026, 5, 4, 3, 2, 1, 123456, tzinfo=UTC)
    with Session(engine) as db:
        for name, current in (("b_search", True), ("a_open", True), ("a_open", False)):
            db.add(Skill(name=name, module_path=f"{name}.py", shape=name, current=current))
        db.add(Skill(name="c_sort", module_path="c.py", shape="c", last_validated_at=made))
        db.commit()
    store = open_run_store(settings)

    rows = current_skills(store)
    assert [row.name for row in rows] == ["a_open", "b_search", "c_sort"]
    with Session(engine) as db:
        orm = {s.name: s.model_dump() for s in db.exec(select(Skill).where(Skill.current))}
    assert [dataclasses.asdict(row) for row in rows] == [orm[row.name] for row in rows]
    assert rows[0].current is True and rows[0].complete is True

    count_use(store, rows[0].id, OK, None)  # type: ignore[arg-type]
    count_use(store, rows[0].id, BROKEN, "step 2: gone")  # type: ignore[arg-type]
    mark_stale(store, rows[1].id, "step 1: gone", '{"1": {"css": "#q"}}')  # type: ignore[arg-type]
    with Session(engine) as db:
        used, stale = db.get(Skill, rows[0].id), db.get(Skill, rows[1].id)
    assert used is not None and stale is not None
    assert (used.uses, used.successes, used.failures, used.last_error) == (2, 1, 1, "step 2: gone")
    assert (stale.status, stale.last_error, stale.healed) == (
        "stale",
        "step 1: gone",
        '{"1": {"css": "#q"}}',
    )


def test_a_run_on_a_current_store_loads_no_sqlalchemy(tmp_path: Path, store_url: str) -> None:
    """SQLite through sqlite3, PostgreSQL through psycopg: opened, a run's row written."""
    settings = store_settings(tmp_path, store_url)
    open_store(settings)
    script = (
        "import sys; from browser_agent.settings import load_settings; "
        "from browser_agent.store.run_store import open_run_store; "
        "from browser_agent.planner.records import RunRecorder; "
        "settings = load_settings(); store = open_run_store(settings); "
        "RunRecorder.start(store, settings.logs_dir, 'x', None, 'offline'); "
        "loaded = {m.split('.')[0] for m in sys.modules}; "
        "print(store.engine is None, sorted(loaded & {'sqlalchemy', 'sqlmodel'}))"
    )
    env = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_DATABASE_URL": store_url,
    }
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.stdout.split("\n")[0] == "True []", done.stdout + done.stderr
    with Session(open_store(settings)) as db:
        assert [run.command for run in db.exec(select(Run))] == ["x"]


def test_a_run_opens_a_current_sqlite_store_with_sqlite3_alone(settings: Settings) -> None:
    first = open_run_store(settings)  # no file yet: made and migrated by open_store
    assert first.engine is not None
    assert current_revision(first.engine) == HEAD_REVISION

    again = open_run_store(settings)
    assert again.engine is None and again.keep  # the file is current: sqlite3 alone
    assert again.execute("PRAGMA foreign_keys").rows == [{"foreign_keys": 1}]
    assert again.execute("PRAGMA busy_timeout").rows == [{"timeout": 5000}]
    assert again.execute("PRAGMA secure_delete").rows == [{"secure_delete": 1}]
    assert again.execute("PRAGMA journal_mode").rows == [{"journal_mode": "wal"}]
    again.close()


def test_a_direct_connection_gives_the_orm_an_engine_on_the_same_file(
    settings: Settings,
) -> None:
    open_store(settings)
    store = open_run_store(settings)
    assert store.engine is None
    engine = orm_engine(store, settings)  # the memory manager's queries
    assert orm_engine(store, settings) is engine
    RunRecorder.start(store, settings.logs_dir, "x", None, "offline")
    with Session(engine) as db:
        assert [run.command for run in db.exec(select(Run))] == ["x"]
    store.close()


def test_a_store_behind_the_head_revision_is_migrated_before_a_run_uses_it(
    settings: Settings,
) -> None:
    from alembic import command

    from browser_agent.store.migrate import alembic_config

    engine = open_store(settings)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0007")
    assert current_revision(engine) == "0007"

    store = open_run_store(settings)  # not current: through open_store, which migrates
    assert store.engine is not None
    assert current_revision(engine) == HEAD_REVISION


def test_a_run_opening_the_store_with_sqlite3_marks_dead_runs_abandoned(
    settings: Settings,
) -> None:
    engine = open_store(settings)
    _pid, host = this_process()
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = int(ended.stdout)
    with Session(engine) as db:
        db.add(Run(id="gone", command="x", pid=dead, host=host))
        db.add(Run(id="alive", command="y", pid=os.getpid(), host=host))
        db.commit()

    store = open_run_store(settings)
    assert store.engine is None  # the direct way
    assert stored(engine, "run", "id", "gone")["status"] == "abandoned"
    assert stored(engine, "run", "id", "gone")["error"] == ABANDONED_ERROR
    assert stored(engine, "run", "id", "alive")["status"] == "running"
    store.close()


def test_an_engine_given_is_used_as_it_is(settings: Settings) -> None:
    engine = open_store(settings)
    store = Store.of(engine)
    assert store.engine is engine and Store.of(store) is store
    assert store.execute("SELECT 1 AS one").rows == [{"one": 1}]
