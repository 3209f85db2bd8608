"""Benchmark the store when it is big: `runs`, `skills` and routing a command with 10,000
runs and 1,000 skills in it, on SQLite and on PostgreSQL.

Each store is filled like one used for months: runs and their steps copied from the runs
of tests/fixtures/store_release_0.1.sql (a store made by the agent's own code) with other
commands, times and ids; skills made like its harvested skill (signature, docstring,
selectors, module code), each with its own command template on its own site. SQLite is a
file in a temporary workspace; PostgreSQL is a throwaway server on 127.0.0.1, started
from the system's binaries as the tests do (scripts/setup.sh installs them).

Timed, in this process (the interpreter's start is the same whatever the store holds):

- `browser-agent runs` and `browser-agent skills`, through the command line's own code
  (opening the store, its query, printing the table), and each one's query alone;
- routing a command: ``route(command, current_skills(engine), start_url)``, as a run
  does before anything else, for a command a skill takes on its site and for one that
  no skill takes (every template is tried).

Prints the first and the median of ``--repeat`` timings per path and store, and whether
the median is under 0.5 s.

    .venv/bin/python scripts/bench_store.py [--runs 10000] [--skills 1000] [--repeat 5]
        [--stores sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sqlalchemy import Engine, insert  # noqa: E402
from sqlmodel import Session, select  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from browser_agent.cli.app import app  # noqa: E402
from browser_agent.planner.router import route  # noqa: E402
from browser_agent.settings import Settings, load_settings  # noqa: E402
from browser_agent.store.db import open_store  # noqa: E402
from browser_agent.store.models import Run, Skill, Step  # noqa: E402
from browser_agent.store.skill_use import current_skills  # noqa: E402
from tests.postgres_server import fresh_database, throwaway_postgres  # noqa: E402

RELEASE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "store_release_0.1.sql"
RELEASE_MODULE = RELEASE.with_suffix("") / "skills" / "harvested" / "search_sort_v1.py"
LIMIT_S = 0.5
BATCH = 2_000

#: Command shapes a shop's skills answer: (name, template, parameters with examples).
SHAPES: list[tuple[str, str, dict[str, str]]] = [
    ("search_sort", "search for {search_term} and sort by {sort_by}",
     {"search_term": "trail shoes", "sort_by": "price low to high"}),
    ("add_to_cart", "add {product} in size {size} to the cart",
     {"product": "Trail Runner", "size": "42"}),
    ("open_category", "open the {category} page and filter by {brand}",
     {"category": "sandals", "brand": "Stride"}),
    ("track_order", "track the order {order_number} with the email {email}",
     {"order_number": "A-10023", "email": "pat@example.org"}),
    ("subscribe", "subscribe to the newsletter as {email}", {"email": "pat@example.org"}),
    ("review", "write a review of {product} saying {text}",
     {"product": "Trail Runner", "text": "comfortable on long runs"}),
    ("compare", "compare {first} with {second}", {"first": "Trail Runner", "second": "Road Max"}),
    ("wishlist", "put {product} on the wishlist", {"product": "Trail Runner"}),
    ("apply_coupon", "apply the coupon {code} at checkout", {"code": "SPRING10"}),
    ("store_hours", "find the opening hours of the store in {city}", {"city": "Lyon"}),
]  # fmt: skip
TERMS = ["trail shoes", "sandals", "boots", "running socks", "rain jacket", "hiking poles",
         "sneakers", "slippers", "insoles", "gaiters"]  # fmt: skip
ORDERS = ["price low to high", "price high to low", "customer rating", "newest", "best seller"]
SYLLABLES = ["bra", "kel", "mo", "ra", "ven", "tu", "lis", "dor", "ne", "xa"]


@dataclass
class Figures:
    """Timings of one path on one store: the first call and the median of the others."""

    first: float
    median: float


def release_rows(table: str) -> list[dict[str, Any]]:
    """The rows of a table of the release store, as dictionaries."""
    with sqlite3.connect(":memory:") as db:
        db.executescript(RELEASE.read_text(encoding="utf-8"))
        db.row_factory = sqlite3.Row
        return [dict(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY 1")]


def store_name(index: int) -> str:
    """A made-up shop name, one per site: ``Bravenne``."""
    a, b, c = index % 10, index // 10 % 10, index // 100 % 10
    return (SYLLABLES[a] + SYLLABLES[b] + SYLLABLES[c]).capitalize()


def run_rows(count: int, rng: random.Random) -> Iterator[tuple[dict, list[dict]]]:
    """``count`` runs, each a copy of a release run (with its steps) with another command,
    start time and id; newest last."""
    runs = release_rows("run")
    steps = release_rows("step")
    start = datetime(2026, 9, 1, tzinfo=UTC)
    for index in range(count):
        template = runs[index % len(runs)]
        when = start + timedelta(minutes=13 * index, seconds=rng.randrange(60))
        run_id = f"{when:%Y%m%d-%H%M%S}-{rng.getrandbits(24):06x}"
        command = template["command"].replace("trail shoes", rng.choice(TERMS))
        command = command.replace("price low to high", rng.choice(ORDERS))
        run = {
            **{k: v for k, v in template.items() if k in Run.model_fields},
            "id": run_id,
            "command": command,
            "started_at": when,
            "finished_at": when + timedelta(seconds=rng.uniform(0.5, 40)),
            "log_path": f"logs/{run_id}.json",
        }
        copied = [
            {
                **{k: v for k, v in step.items() if k in Step.model_fields and k != "id"},
                "run_id": run_id,
                "ok": bool(step["ok"]),
            }
            for step in steps
            if step["run_id"] == template["id"]
        ]
        yield run, copied


def skill_rows(count: int, rng: random.Random) -> list[dict[str, Any]]:
    """``count`` healthy harvested skills (a few stale or candidates), each one shape on
    one shop: ``search for {search_term} and sort by {sort_by} at Bravenne``."""
    (template,) = release_rows("skill")
    module = RELEASE_MODULE.read_text(encoding="utf-8")
    rows = []
    for index in range(count):
        shape_name, shape, examples = SHAPES[index % len(SHAPES)]
        shop = store_name(index // len(SHAPES))
        name = f"{shape_name}_{shop.lower()}"
        command = f"{shape} at {shop}"
        row = {
            **{k: v for k, v in template.items() if k in Skill.model_fields and k != "id"},
            "name": name,
            "status": rng.choices(["healthy", "stale", "candidate"], [90, 7, 3])[0],
            "current": True,
            "complete": True,
            "module_path": f"skills/harvested/{name}_v1.py",
            "shape": command.replace("{", "").replace("}", ""),
            "command_templates": json.dumps([command]),
            "signature": json.dumps(signature(name, command, examples, shop)),
            "docstring": f"{command[0].upper()}{command[1:]}.",
            "example_args": json.dumps(examples),
            "start_url": f"https://{shop.lower()}.example/",
            "source_runs": json.dumps([f"20261130-1733{index % 60:02d}-{index:06x}"]),
            "last_validated_at": datetime(2026, 11, 30, tzinfo=UTC),
            "created_at": datetime(2026, 10, 1, tzinfo=UTC) + timedelta(hours=index),
        }
        if "source" in Skill.model_fields:  # the module's code, when the store keeps it
            row["source"] = module.replace("search_sort", name)
        rows.append(row)
    return rows


def signature(name: str, command: str, examples: dict[str, str], shop: str) -> dict[str, Any]:
    """The tool schema of a skill, as the harvester writes it."""
    properties: dict[str, Any] = {
        param: {"type": "string", "description": f"{param.replace('_', ' ')} (example: {value})"}
        for param, value in examples.items()
    }
    properties["start_url"] = {
        "type": "string",
        "description": "The page the skill starts from (the site's address).",
        "default": f"https://{shop.lower()}.example/",
    }
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{command}. Harvested from a run at {shop}.",
            "parameters": {"type": "object", "properties": properties, "required": [*examples]},
        },
    }


def fill(engine: Engine, runs: int, skills: int) -> tuple[int, int]:
    """Write the runs (with their steps) and the skills; how many runs and steps."""
    rng = random.Random(12)
    written_steps = 0
    batch_runs: list[dict] = []
    batch_steps: list[dict] = []
    with engine.begin() as connection:
        for run, steps in run_rows(runs, rng):
            batch_runs.append(run)
            batch_steps += steps
            if len(batch_runs) == BATCH:
                written_steps += write(connection, batch_runs, batch_steps)
                batch_runs, batch_steps = [], []
        written_steps += write(connection, batch_runs, batch_steps)
        connection.execute(insert(Skill), skill_rows(skills, rng))
    return runs, written_steps


def write(connection: Any, runs: list[dict], steps: list[dict]) -> int:
    if runs:
        connection.execute(insert(Run), runs)
    if steps:
        connection.execute(insert(Step), steps)
    return len(steps)


def timed(action: Callable[[], object], repeat: int) -> Figures:
    """The first call's time and the median of ``repeat`` more."""
    times = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return Figures(times[0], statistics.median(times[1:]))


def cli(settings: Settings, *args: str) -> Callable[[], object]:
    """A command line call on the store, through the command line's own code."""
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    if settings.database_url:
        env["BROWSER_AGENT_DATABASE_URL"] = settings.database_url

    def call() -> object:
        result = CliRunner().invoke(app, list(args), env=env)
        if result.exit_code != 0:
            raise SystemExit(f"browser-agent {' '.join(args)} failed: {result.output}")
        return result

    return call


def recent_runs(engine: Engine, limit: int = 20) -> list[Run]:
    """The query of `browser-agent runs`: the newest runs."""
    with Session(engine) as db:
        return list(db.exec(select(Run).order_by(Run.started_at.desc()).limit(limit)).all())


def routing(engine: Engine, command: str, start_url: str | None, expect: str | None) -> Callable:
    """Routing ``command`` as a run does, checking which skill (if any) it reaches."""

    def call() -> object:
        found = route(command, current_skills(engine), start_url)
        name = found.skill.name if found else None
        if name != expect:
            raise SystemExit(f"routing {command!r} reached {name}, not {expect}")
        return found

    return call


def bench(label: str, settings: Settings, args: argparse.Namespace) -> dict[str, Figures]:
    """Fill one store and time each path on it."""
    engine = open_store(settings)
    started = time.perf_counter()
    runs, steps = fill(engine, args.runs, args.skills)
    print(
        f"{label}: {runs:,} runs, {steps:,} steps, {args.skills:,} skills written in "
        f"{time.perf_counter() - started:.1f} s",
        flush=True,
    )
    healthy = next(s for s in current_skills(engine, "healthy") if s.name.startswith("search"))
    shop = healthy.name.split("_")[-1].capitalize()
    taken = f"search for rain jackets and sort by customer rating at {shop}"
    nobody = "search for rain jackets and sort by customer rating at the moon"
    paths = {
        "runs": cli(settings, "runs"),
        "runs (its query)": lambda: recent_runs(engine),
        "skills": cli(settings, "skills"),
        "skills (its query)": lambda: current_skills(engine, limit=50),
        "skills --limit 0 (all, drawn)": cli(settings, "skills", "--limit", "0"),
        "route (on its site)": routing(engine, taken, healthy.start_url, healthy.name),
        "route (no skill takes it)": routing(engine, nobody, None, None),
    }
    figures = {name: timed(action, args.repeat) for name, action in paths.items()}
    engine.dispose()
    return figures


@contextmanager
def sqlite_store() -> Iterator[Settings]:
    with tempfile.TemporaryDirectory(prefix="bench-store-") as workspace:
        yield load_settings().with_overrides(workspace=Path(workspace), database_url=None)


@contextmanager
def postgres_store() -> Iterator[Settings]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-store-") as workspace,
        throwaway_postgres() as server,
        fresh_database(server, prefix="bench") as url,
    ):
        yield load_settings().with_overrides(workspace=Path(workspace), database_url=url)


STORES = {"sqlite": sqlite_store, "postgresql": postgres_store}


def report(results: dict[str, dict[str, Figures]]) -> None:
    """One line per path and store: first call, median, and whether it is under the limit."""
    print(f"\n{'store':<11} {'path':<30} {'first':>8} {'median':>8}")
    for label, figures in results.items():
        for name, figure in figures.items():
            verdict = "ok" if figure.median < LIMIT_S else f"over {LIMIT_S} s"
            print(f"{label:<11} {name:<30} {figure.first:>7.3f}s {figure.median:>7.3f}s  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--skills", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5, help="timed calls after the first")
    parser.add_argument("--stores", default="sqlite,postgresql")
    args = parser.parse_args()
    results = {}
    for label in args.stores.split(","):
        with STORES[label]() as settings:
            results[label] = bench(label, settings, args)
    report(results)


if __name__ == "__main__":
    main()
