"""PostgreSQL as a store: ``postgres://`` and ``postgresql://`` URLs open it through psycopg,
and a store that cannot be opened is said in one line (exit code 2, no traceback, no
password) for each way it goes wrong: no driver, nothing listening, a refused login, no
such database, not a database URL.

The server is the session's throwaway cluster (tests/conftest.py); its logins need a
password, as on a real server. The migration lock is the server's advisory lock, which
every client sees wherever it runs. The missing driver is a real interpreter whose path holds
every package of this one except psycopg.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, make_url
from sqlmodel import Session
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.settings import load_settings
from browser_agent.store.db import engine_url, open_store, store_engine
from browser_agent.store.errors import StoreError
from browser_agent.store.lock import LockTimeout, migration_lock
from browser_agent.store.migrate import current_revision
from browser_agent.store.migrations import HEAD_REVISION
from browser_agent.store.models import Run
from tests.postgres_server import free_port

ROOT = Path(__file__).resolve().parent.parent
DATABASE_ENV = "BROWSER_AGENT_DATABASE_URL"


def with_url(url: str, **parts: object) -> str:
    """``url`` with some of its parts changed (user, password, port, database)."""
    return make_url(url).set(**parts).render_as_string(hide_password=False)


def password_of(url: str) -> str:
    password = make_url(url).password
    assert password, "the test server's logins have a password"
    return str(password)


def cli(workspace: Path, url: str, *args: str) -> tuple[int, str]:
    """Run the command line in this process with the store URL set; exit code and output."""
    env = {"BROWSER_AGENT_WORKSPACE": str(workspace), DATABASE_ENV: url}
    result = CliRunner().invoke(app, list(args), env=env)
    return result.exit_code, result.output


def assert_one_line(code: int, output: str, *expected: str, password: str = "") -> None:
    """Exit code 2 and one line saying ``expected``, with no traceback and no password."""
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert "Traceback" not in output
    for words in expected:
        assert words in lines[0], output
    if password:
        assert password not in output


@pytest.mark.parametrize(
    ("given", "opened"),
    [
        ("postgres://u:p@db:5432/agent", "postgresql+psycopg://u:p@db:5432/agent"),
        ("postgresql://u:p@db/agent", "postgresql+psycopg://u:p@db/agent"),
        ("PostgreSQL://db/agent", "postgresql+psycopg://db/agent"),
        ("postgresql+psycopg2://u:p@db/agent", "postgresql+psycopg2://u:p@db/agent"),
        ("sqlite:////tmp/agent.db", "sqlite:////tmp/agent.db"),
    ],
)
def test_postgres_urls_without_a_driver_are_opened_with_psycopg(given: str, opened: str) -> None:
    assert engine_url(given) == opened


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_a_store_on_the_server_is_made_and_used_through_either_scheme(
    postgres_url: str, tmp_path: Path, scheme: str
) -> None:
    url = scheme + "://" + postgres_url.split("://", 1)[1]
    settings = load_settings().with_overrides(workspace=tmp_path, database_url=url)

    engine = open_store(settings)

    assert engine.url.drivername == "postgresql+psycopg"
    assert current_revision(engine) == HEAD_REVISION
    with Session(engine) as db:
        db.add(Run(id="r1", command="search for boots", status="succeeded"))
        db.commit()
    code, output = cli(tmp_path, url, "runs")
    assert code == 0 and "r1" in output and "search for boots" in output


def test_the_store_url_holds_whatever_the_workspace(postgres_url: str, tmp_path: Path) -> None:
    """``--workspace`` moves logs and skills, not a store that the URL names."""
    with Session(open_store(load_settings().with_overrides(database_url=postgres_url))) as db:
        db.add(Run(id="kept", command="open the cart", status="succeeded"))
        db.commit()
    elsewhere = tmp_path / "elsewhere"

    result = CliRunner().invoke(
        app, ["--workspace", str(elsewhere), "runs"], env={DATABASE_ENV: postgres_url}
    )

    assert result.exit_code == 0 and "open the cart" in result.output
    assert not (elsewhere / "browser_agent.db").exists()


def test_opening_a_store_waits_while_another_session_holds_the_migration_lock(
    postgres_url: str, tmp_path: Path
) -> None:
    """The advisory lock is the server's: a process elsewhere waits for it before it makes
    a single table, then finds the store to migrate."""
    settings = load_settings().with_overrides(workspace=tmp_path, database_url=postgres_url)
    engine = store_engine(settings)
    code = (
        "from browser_agent.settings import load_settings; "
        "from browser_agent.store.db import open_store; "
        f"open_store(load_settings().with_overrides(database_url={postgres_url!r}))"
    )
    with migration_lock(engine):
        opening = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
        deadline = time.monotonic() + 60
        while not waiting_for_the_lock(engine) and time.monotonic() < deadline:
            assert opening.poll() is None, "the store was opened while the lock was held"
            time.sleep(0.05)
        assert waiting_for_the_lock(engine), "the other process never asked for the lock"
        time.sleep(1)
        assert opening.poll() is None, "the store was opened while the lock was held"
        assert inspect(engine).get_table_names() == [], "tables were made under the lock"
    assert opening.wait(timeout=60) == 0
    assert current_revision(engine) == HEAD_REVISION


def waiting_for_the_lock(engine: Engine) -> bool:
    """Whether a session of the database waits for an advisory lock."""
    with engine.connect() as connection:
        query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        return bool(connection.exec_driver_sql(query).scalar())


def test_a_migration_lock_held_too_long_is_said_in_one_line(
    postgres_url: str, tmp_path: Path
) -> None:
    settings = load_settings().with_overrides(workspace=tmp_path, database_url=postgres_url)
    expected = "creating or upgrading the store for 0 s \\(advisory lock\\)"
    with (
        migration_lock(store_engine(settings)),
        pytest.raises(LockTimeout, match=expected),
        migration_lock(store_engine(settings), wait_s=0.2),
    ):
        pass


def test_a_wrong_password_is_said_in_one_line(postgres_url: str, tmp_path: Path) -> None:
    url = with_url(postgres_url, password="not-the-password")
    code, output = cli(tmp_path, url, "runs")
    assert_one_line(
        code, output, "refused user 'postgres'", "wrong password", password="not-the-password"
    )
    assert password_of(postgres_url) not in output


def test_an_unknown_user_is_said_in_one_line(postgres_url: str, tmp_path: Path) -> None:
    url = with_url(postgres_url, username="nobody", password="s3cret-guess")
    code, output = cli(tmp_path, url, "skills")
    assert_one_line(code, output, "refused user 'nobody'", password="s3cret-guess")


def test_an_unknown_user_on_a_server_that_trusts_its_socket_is_said_in_one_line(
    postgres_url: str, tmp_path: Path
) -> None:
    """Over the local socket the test server trusts whoever logs in, so it tells an unknown
    user apart from a wrong password."""
    with open_store(load_settings().with_overrides(database_url=postgres_url)).connect() as db:
        folder = db.exec_driver_sql("SHOW unix_socket_directories").scalar()
    url = make_url(postgres_url)
    socket_url = f"postgresql://nobody@/{url.database}?host={folder}&port={url.port}"
    code, output = cli(tmp_path, socket_url, "runs")
    assert_one_line(code, output, "the server has no user 'nobody'")


def test_a_login_without_the_password_the_server_asks_for_is_said(
    postgres_url: str, tmp_path: Path
) -> None:
    url = make_url(postgres_url)._replace(password=None).render_as_string(hide_password=False)
    assert ":" not in url.split("://")[1].split("@")[0]
    code, output = cli(tmp_path, url, "runs")
    assert_one_line(code, output, "asks for a password and the URL gives none")


def test_an_unknown_database_is_said_in_one_line(postgres_server: str, tmp_path: Path) -> None:
    url = with_url(postgres_server, database="no_such_store")
    code, output = cli(tmp_path, url, "db", "status")
    assert_one_line(
        code, output, "has no database 'no_such_store'", password=password_of(postgres_server)
    )


def test_a_refused_connection_is_said_in_one_line(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    url = f"postgresql://agent:hunter2@127.0.0.1:{port}/agent"
    code, output = cli(tmp_path, url, "runs")
    assert_one_line(
        code,
        output,
        f"postgresql://agent:***@127.0.0.1:{port}/agent",
        f"nothing accepts connections at 127.0.0.1:{port} (connection refused)",
        password="hunter2",
    )
    with pytest.raises(StoreError, match="connection refused"):
        store_engine(load_settings().with_overrides(workspace=tmp_path, database_url=url))


def test_an_unknown_host_is_said_in_one_line(tmp_path: Path) -> None:
    url = "postgresql://agent:hunter2@no-such-host.invalid/agent"
    code, output = cli(tmp_path, url, "runs")
    assert_one_line(
        code, output, "the host 'no-such-host.invalid' is not known", password="hunter2"
    )


def test_a_server_that_does_not_answer_is_said_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as silent:  # accepts connections, never speaks
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        url = f"postgresql://agent:hunter2@127.0.0.1:{port}/agent?connect_timeout=2"
        code, output = cli(tmp_path, url, "runs")
    assert_one_line(
        code, output, f"no answer from 127.0.0.1:{port} (timed out)", password="hunter2"
    )


def test_any_other_refusal_is_the_servers_own_words_on_one_line(
    postgres_url: str, tmp_path: Path
) -> None:
    url = make_url(postgres_url).update_query_dict({"sslmode": "require"})
    code, output = cli(tmp_path, url.render_as_string(hide_password=False), "runs")
    assert_one_line(
        code,
        output,
        "server does not support SSL, but SSL was required",
        password=password_of(postgres_url),
    )
    assert "connection to server at" not in output  # libpq's preamble is left out


@pytest.mark.parametrize(
    "url", ["http://user:hunter2@example.com/store", "agent.db", "postgresq://db/agent"]
)
def test_a_url_that_is_not_a_database_url_is_said_in_one_line(url: str, tmp_path: Path) -> None:
    code, output = cli(tmp_path, url, "runs")
    assert_one_line(
        code, output, "is not a database URL", "BROWSER_AGENT_DATABASE_URL", password="hunter2"
    )


@pytest.mark.parametrize("url", ["mysql://agent:hunter2@db/agent", "mssql+pyodbc://db/agent"])
def test_a_database_other_than_sqlite_or_postgresql_is_said_in_one_line(
    url: str, tmp_path: Path
) -> None:
    code, output = cli(tmp_path, url, "runs")
    assert_one_line(
        code,
        output,
        "database; the store is a SQLite file or a PostgreSQL database",
        password="hunter2",
    )


def test_a_sqlite_file_in_a_folder_that_does_not_exist_is_said_in_one_line(
    tmp_path: Path,
) -> None:
    code, output = cli(tmp_path, f"sqlite:///{tmp_path / 'gone' / 'agent.db'}", "runs")
    assert_one_line(code, output, f"the folder {tmp_path / 'gone'} does not exist")


def test_a_file_that_is_no_sqlite_database_is_said_in_one_line(tmp_path: Path) -> None:
    """Opened with sqlite3 by a run, and by open_store for every other command."""
    store = tmp_path / "notes.db"
    store.write_text("Shopping list: sandals, laces, a shoe horn.\n" * 20, encoding="utf-8")
    for args in (["runs"], ["run", "search for sandals", "--url", "http://127.0.0.1:9/"]):
        code, output = cli(tmp_path, f"sqlite:///{store}", *args)
        assert_one_line(code, output, f"cannot open the store sqlite:///{store}", "not a database")


@pytest.mark.parametrize("refusal", ["wrong password", "refused"])
def test_a_run_says_a_store_it_cannot_open_in_one_line(
    refusal: str, postgres_url: str, tmp_path: Path
) -> None:
    """A run opens the store with psycopg alone, and says the server's refusal as every
    other command does."""
    if refusal == "wrong password":
        url, said = with_url(postgres_url, password="hunter2"), "wrong password or unknown user"
    else:
        url, said = f"postgres://agent:hunter2@127.0.0.1:{free_port()}/agent", "connection refused"
    code, output = cli(tmp_path, url, "run", "search for sandals", "--url", "http://127.0.0.1:9/")
    assert_one_line(code, output, "cannot open the store", said, password="hunter2")


def test_a_run_tries_a_server_that_hangs_up_once(tmp_path: Path) -> None:
    """A server that takes the connection and closes it: the run's attempt is all there
    is (open_store does not connect again to say why)."""
    import psycopg

    accepted: list[int] = []
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.2)
        done = threading.Event()

        def hang_up() -> None:
            while not done.is_set():
                try:
                    connection, _ = server.accept()
                except TimeoutError:
                    continue
                accepted.append(1)
                connection.close()

        thread = threading.Thread(target=hang_up)
        thread.start()
        url = f"postgresql://agent:hunter2@127.0.0.1:{server.getsockname()[1]}/agent"
        try:
            with pytest.raises(psycopg.OperationalError):
                psycopg.connect(url)  # one attempt of libpq (it may try twice: SSL, then not)
            one_attempt, accepted[:] = len(accepted), []
            code, output = cli(
                tmp_path, url, "run", "search for sandals", "--url", "http://127.0.0.1:9/"
            )
        finally:
            done.set()
            thread.join()
    assert_one_line(code, output, "cannot open the store", password="hunter2")
    assert len(accepted) == one_attempt


def test_a_refused_connection_is_one_line_from_the_installed_command(tmp_path: Path) -> None:
    """The console script, as a user runs it: stderr holds one line, exit code 2."""
    url = f"postgres://agent:hunter2@127.0.0.1:{free_port()}/agent"
    done = run_command_line(url, tmp_path, [str(ROOT / ".venv" / "bin" / "browser-agent")])
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "connection refused" in done.stderr and "hunter2" not in done.stderr


def test_a_missing_driver_says_which_extra_to_install(tmp_path: Path) -> None:
    """An interpreter that has every package of this one but psycopg."""
    without = tmp_path / "site-packages"
    without.mkdir()
    for site in {Path(p) for p in sys.path if p.endswith("site-packages")}:
        for entry in site.iterdir():
            if not entry.name.startswith("psycopg") and not (without / entry.name).exists():
                (without / entry.name).symlink_to(entry)
    command = [sys.executable, "-S", "-m", "browser_agent.cli"]
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(without)])}
    url = "postgresql://agent:hunter2@127.0.0.1:5432/agent"

    done = run_command_line(url, tmp_path, command, env)

    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "driver psycopg is not installed" in lines[0]
    assert "pip install 'browser-agent[postgres]'" in lines[0]
    assert "hunter2" not in done.stdout + done.stderr


def run_command_line(
    url: str, workspace: Path, command: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``browser-agent runs`` in a process of its own, with the store URL set."""
    return subprocess.run(
        [*command, "runs"],
        env={
            **os.environ,
            **(env or {}),
            DATABASE_ENV: url,
            "BROWSER_AGENT_WORKSPACE": str(workspace),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
