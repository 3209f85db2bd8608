"""Watches people can live with: a page whose text changes between checks (stock 7, then
"Sold out") is a change, said as a short diff, that ends an ``--until changes`` watch; the
next check is said by every check and by ``watch list``; clock schedules (``--at``,
``--cron``); a watch added twice is refused in one line; a removed watch's id is never
given again, on a store made new and on one upgraded from before.

A real Chromium checks a page served on 127.0.0.1; the store is a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler

import pytest
from playwright.async_api import Browser
from sqlalchemy import text

from browser_agent.cli.watch import watch_names
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.settings import Settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.migrate import alembic_config, upgrade
from browser_agent.store.watches import all_watches, checks_of, find_watch
from browser_agent.watch.adding import new_watch
from browser_agent.watch.runner import now_utc, run_due
from tests.served_site import ServedSite
from tests.test_watch import cli, one_line

PERIOD = timedelta(minutes=15)


class StockPage(ServedSite):
    """A product page whose text the test changes: no price on it, only words and a count."""

    text = "Trail runner\nIn stock: 7\nShips tomorrow"

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        lines = "".join(f"<p>{line}</p>" for line in self.text.splitlines())
        body = f"<html><head><title>Trail runner</title></head><body>{lines}</body></html>"
        request.send_response(200)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.end_headers()
        request.wfile.write(body.encode())


@pytest.fixture(scope="module")
def page() -> Iterator[StockPage]:
    with StockPage() as site:
        yield site


async def test_a_change_of_the_page_text_is_said_as_a_diff_and_ends_until_changes(
    settings: Settings, browser: Browser, page: StockPage
) -> None:
    engine = open_store(settings)
    store = Store.of(engine)
    watch, _ = new_watch(
        store, settings, "open the trail runner page", "15m", f"{page.url}/", "changes", None
    )
    clock = watch.next_at
    said = []
    for words in (
        "Trail runner\nIn stock: 7\nShips tomorrow",
        "Trail runner\nIn stock: 7\nShips tomorrow",
        "Trail runner\nIn stock: 0\nSold out",
    ):
        page.text = words
        (checked,) = await run_due(
            settings, engine, now=clock, browser=browser, llm=OfflinePlanner()
        )
        said.append(checked)
        clock += PERIOD
    first, same, sold_out = said
    assert not first.failed and not same.failed, [c.said() for c in said]
    assert (first.check.changed, same.check.changed) == (None, None)
    assert sold_out.check.changed == (
        "the page: -In stock: 7 | -Ships tomorrow | +In stock: 0 | +Sold out"
    )
    assert sold_out.check.held and sold_out.ended
    assert "changed: the page: -In stock: 7" in sold_out.said()
    assert "next check" in same.said() and "watch done" in sold_out.said()
    assert find_watch(store, watch.name).status == "done"


def test_every_check_and_the_list_say_when_the_next_check_is_due(settings: Settings) -> None:
    store = Store.of(open_store(settings))
    watch, _ = new_watch(store, settings, "open Trail Blazer 2", "15m", None, None, None)
    assert cli(settings, "watch", "pause", watch.name).stdout.strip().endswith("no next check")
    resumed = cli(settings, "watch", "resume", watch.name).stdout
    assert resumed.strip().endswith("due now")
    listed = cli(settings, "watch", "list", "--json")
    assert '"next_check": "due now"' in listed.stdout
    later = find_watch(store, watch.name)
    store.execute(
        "UPDATE watch SET next_at = :at WHERE id = :id",
        at=now_utc() + timedelta(hours=2, minutes=30),
        id=later.id,
    )
    table = cli(settings, "watch", "list").stdout
    assert "next" in table and "in 2h29m" in table, table


def test_a_clock_schedule_is_due_at_its_next_time_each_day(settings: Settings) -> None:
    added = cli(settings, "watch", "open Trail Blazer 2", "--at", "09:00", "--detach")
    assert added.returncode == 0, added.stderr
    assert "at 09:00" in added.stdout and "next check" in added.stdout
    watch = find_watch(Store.of(open_store(settings)), "open-trail-blazer-2")
    local = watch.next_at.astimezone()
    assert (local.hour, local.minute, local.second) == (9, 0, 0)
    assert timedelta(0) < watch.next_at - now_utc() <= timedelta(days=1)
    weekdays = cli(settings, "watch", "open Road Glide 5", "--cron", "30 17 * * 1-5", "--detach")
    assert weekdays.returncode == 0, weekdays.stderr
    watch = find_watch(Store.of(open_store(settings)), "open-road-glide-5")
    local = watch.next_at.astimezone()
    assert (local.hour, local.minute, local.weekday() < 5) == (17, 30, True)
    listed = cli(settings, "watch", "list").stdout  # at 80 columns, the cron folded
    assert "at 09:00" in listed and "cron 30" in listed, listed
    assert '"schedule": "30 17 * * 1-5"' in cli(settings, "watch", "list", "--json").stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--at", "25:00"], "Error: --at '25:00' is not a time of day"),
        (["--cron", "every morning"], "Error: --cron 'every morning' is not a cron expression"),
        (["--at", "09:00", "--every", "1h"], "Error: --every and --at/--cron both say when"),
        (["--at", "09:00", "--cron", "0 9 * * *"], "Error: --at and --cron both say when"),
    ],
)
def test_a_schedule_that_names_no_time_is_one_line(
    settings: Settings, args: list[str], said: str
) -> None:
    done = cli(settings, "watch", "open Trail Blazer 2", *args, "--detach")
    assert done.returncode == 2
    assert one_line(done).startswith(said)


def test_a_watch_added_twice_is_refused_and_ids_are_never_given_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER_AGENT_WORKSPACE", str(settings.workspace))  # for completion

    def add(*args: str) -> int:
        done = cli(settings, "watch", *args, "--detach", "--json")
        assert done.returncode == 0, done.stderr
        return int(done.stdout.split('"id": ')[1].split(",")[0])

    first = add("open Trail Blazer 2", "--every", "15m")
    again = cli(settings, "watch", "open  Trail Blazer 2", "--every", "1h", "--detach")
    assert again.returncode == 2
    assert one_line(again) == (
        "Error: watch 'open-trail-blazer-2' (id 1) checks this already: browser-agent watch "
        "list shows it, watch remove open-trail-blazer-2 ends it"
    )
    other = add("open Trail Blazer 2", "--until", "price under 80")  # another condition
    assert (first, other) == (1, 2)
    assert cli(settings, "watch", "remove", str(other)).returncode == 0
    assert add("open Road Glide 5") == 3  # not 2 again
    assert cli(settings, "watch", "remove", "1").returncode == 0
    assert cli(settings, "watch", "remove", "3").returncode == 0
    assert add("open Road Glide 5") == 4
    assert watch_names("open-r") == ["open-road-glide-5"]


def test_an_upgraded_store_keeps_its_watches_and_gives_no_id_again(settings: Settings) -> None:
    from alembic import command

    engine = open_store(settings)
    store = Store.of(engine)
    kept, _ = new_watch(store, settings, "open Trail Blazer 2", "15m", None, None, None)
    gone, _ = new_watch(store, settings, "open Road Glide 5", "15m", None, None, None)
    store.execute(
        "INSERT INTO watchcheck (watch_id, status, at, answer, extracted, llm_calls, seconds, "
        "held, page) VALUES (:id, 'succeeded', :at, '', '{}', 0, 0, 0, 'In stock: 7')",
        id=kept.id,
        at=now_utc(),
    )
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0013")
    upgrade(engine)

    (check,) = checks_of(store, kept)
    assert check.page == ""  # kept from before the page text was
    assert [w.name for w in all_watches(store)] == [kept.name, gone.name]
    assert cli(settings, "watch", "remove", gone.name).returncode == 0
    again, _ = new_watch(store, settings, "open Road Glide 5", "15m", None, None, None)
    assert again.id == (gone.id or 0) + 1
    with engine.connect() as connection:
        sql = connection.execute(text("SELECT sql FROM sqlite_master WHERE name = 'watch'"))
        assert "AUTOINCREMENT" in sql.scalar_one()


def test_a_cron_day_after_a_check_is_the_next_day_s(settings: Settings) -> None:
    from browser_agent.watch.schedule import next_due

    store = Store.of(open_store(settings))
    watch, _ = new_watch(store, settings, "open Trail Blazer 2", None, None, None, None, at="07:45")
    after = watch.next_at + timedelta(seconds=5)
    following = next_due(watch, after).astimezone()
    assert following.date() == (watch.next_at.astimezone() + timedelta(days=1)).date()
    assert (following.hour, following.minute) == (7, 45)
    assert isinstance(following, datetime)
