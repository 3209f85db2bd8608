"""``browser-agent batch``: a file of commands on browser slots in one process, with the
offline planner on the demo shop; each job's result is written once under its job id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.async_api import Browser
from sqlmodel import Session, select

from browser_agent.browser.session import launched_browser
from browser_agent.cluster.batch_file import BatchFileError, read_batch
from browser_agent.cluster.jobs import BrowserLost, CommandJob, ValidateJob, run_job, validate_job
from browser_agent.demo_site import DemoSite
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import BatchJob, Run, Validation
from tests.skill_workspaces import SEARCH as SEARCH_SORT
from tests.skill_workspaces import harvest_commands

SEARCHES = (
    "search for sandals and sort by customer rating",
    "search for trail shoes and sort by price low to high",
)


def batch(workspace: Path, *args: str, env: dict[str, str] | None = None):
    """``browser-agent batch ARGS`` as its own process, with the offline planner."""
    environment = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(workspace),
        "BROWSER_AGENT_LLM_MODEL": "offline",
        "COLUMNS": "100",
        **(env or {}),
    }
    return subprocess.run(
        [str(Path(sys.executable).parent / "browser-agent"), "batch", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=180,
    )


def json_line(command: str, url: str, **more: object) -> str:
    return json.dumps({"command": command, "url": url, **more})


def test_a_batch_runs_each_line_once_and_says_how_each_went(
    tmp_path: Path, demo: DemoSite, settings: Settings
) -> None:
    file = tmp_path / "batch.txt"
    lines = [json_line(command, demo.url) for command in SEARCHES]
    file.write_text("# tonight's searches\n\n" + "\n".join(lines) + "\nopen the moon\n")

    done = batch(settings.workspace, str(file), "--slots", "2", "--json")

    assert done.returncode == 1, done.stderr  # the third command fails
    report = json.loads(done.stdout)
    jobs = report["jobs"]
    assert [job["command"] for job in jobs] == [*SEARCHES, "open the moon"]
    assert [job["status"] for job in jobs] == ["succeeded", "succeeded", "failed"]
    assert report["counts"] == {"succeeded": 2, "failed": 1}
    assert len({job["job_id"] for job in jobs}) == 3
    assert all(job["job_id"].startswith(report["batch_id"]) for job in jobs)
    assert all(job["llm_calls"] > 0 for job in jobs)
    with Session(open_store(settings)) as db:
        runs = {run.id: run for run in db.exec(select(Run)).all()}
        stored = {row.job_id: row for row in db.exec(select(BatchJob)).all()}
    assert set(stored) == {job["job_id"] for job in jobs}
    assert set(runs) == {job["run_id"] for job in jobs}  # one run per job, no more
    for job in jobs:
        assert runs[job["run_id"]].status == job["status"] == stored[job["job_id"]].status


def test_all_succeeded_is_exit_code_0_and_a_table(
    tmp_path: Path, demo: DemoSite, settings: Settings
) -> None:
    file = tmp_path / "batch.jsonl"
    file.write_text(json_line(SEARCHES[0], demo.url) + "\n")

    done = batch(settings.workspace, str(file))

    assert done.returncode == 0, done.stderr
    assert "1 of 1 commands succeeded" in done.stdout
    assert SEARCHES[0] in done.stdout  # the command on one line, at 100 columns
    assert done.stderr == ""  # no progress bar off a terminal


def test_url_is_the_start_page_of_lines_that_name_none(
    tmp_path: Path, demo: DemoSite, settings: Settings
) -> None:
    file = tmp_path / "batch.txt"
    file.write_text(f"{SEARCHES[0]}\n{json_line(SEARCHES[1], demo.url + '/deals')}\n")

    done = batch(settings.workspace, str(file), "--url", demo.url, "--json")

    assert done.returncode == 0, done.stderr
    jobs = json.loads(done.stdout)["jobs"]
    with Session(open_store(settings)) as db:
        starts = [db.get(Run, job["run_id"]).start_url for job in jobs]
    assert starts == [demo.url, demo.url + "/deals"]


async def test_a_job_written_already_is_not_run_again(
    demo: DemoSite, settings: Settings, browser: Browser
) -> None:
    engine = open_store(settings)
    job = CommandJob("b1-0001", "b1", SEARCHES[0], demo.url)

    first = await run_job(job, browser, settings, engine)
    again = await run_job(job, browser, settings, engine)

    assert first.status == again.status == "succeeded"
    assert again.run_id == first.run_id
    with Session(engine) as db:
        assert len(db.exec(select(Run)).all()) == 1
        assert len(db.exec(select(BatchJob)).all()) == 1


async def test_a_validation_job_run_again_after_its_replay_was_kept_adds_no_second_replay(
    demo: DemoSite, settings: Settings, browser: Browser
) -> None:
    """The worker died after keeping the replay, before the job's result: the job's second
    attempt replays again but keeps one replay of the job, and its result once."""
    from browser_agent.secrets import configured
    from browser_agent.store.skill_use import current_skills
    from browser_agent.validate.reharvest import Place
    from browser_agent.validate.validator import Job, check_skill

    await harvest_commands([SEARCH_SORT], settings, browser, demo)
    engine = open_store(settings)
    (skill,) = current_skills(engine)
    job = ValidateJob("v1-0001", "v1", skill.name)
    place = Place(browser, None, settings.workspace / "shots", configured())
    with Session(engine) as db:
        before = len(db.exec(select(Validation)).all())  # the check right after harvesting
    first = await check_skill(skill, Job(settings, engine, place, False, job_id=job.job_id))
    assert first.verdict == "healthy"

    again = await validate_job(job, browser, settings, engine)
    once_more = await validate_job(job, browser, settings, engine)

    assert again.status == once_more.status == "healthy"
    with Session(engine) as db:
        kept = db.exec(select(Validation)).all()
        assert len(kept) == before + 1 and kept[-1].job_id == job.job_id
        assert len(db.exec(select(BatchJob)).all()) == 1


def test_a_job_replay_that_cannot_be_kept_for_another_reason_says_so(settings: Settings) -> None:
    """Only a replay kept already under the job id is passed over: any other refusal by
    the store (here a skill that is not there) is raised, not swallowed."""
    from sqlalchemy.exc import IntegrityError

    from browser_agent.skills.replay_session import Replay
    from browser_agent.store.models import Skill
    from browser_agent.validate.outcome import keep_replay

    engine = open_store(settings)
    gone = Skill(id=4711, name="gone", version=1, command_template="x", module="m")
    with pytest.raises(IntegrityError):
        keep_replay(engine, gone, Replay(passed=True), job_id="v2-0001")


async def test_a_secret_is_typed_by_name_and_written_nowhere(
    demo: DemoSite, settings: Settings, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER_AGENT_SECRET_SHOP_PW", "secret123")
    engine = open_store(settings)
    command = "log in as demo with password {SHOP_PW}"
    job = CommandJob("b2-0001", "b2", command, demo.url + "/login", ("SHOP_PW",))

    ran = (browser, settings, engine)
    result = await run_job(job, *ran)

    assert result.run_id is not None
    logs = "".join(p.read_text() for p in settings.logs_dir.glob("*") if p.is_file())
    assert "{SHOP_PW}" in logs and "secret123" not in logs
    unnamed = CommandJob("b2-0002", "b2", command, demo.url + "/login", ("NOT_SET",))
    refused = await run_job(unnamed, browser, settings, engine)
    assert refused.status == "failed" and "NOT_SET" in (refused.error or "")
    inline = "log in as demo with password secret123"
    given = await run_job(CommandJob("b2-0003", "b2", inline, demo.url + "/login"), *ran)
    assert "secret123" not in json.dumps(given.as_dict()) and "{PASSWORD}" in given.command
    with Session(engine) as db:
        assert all("secret123" not in row.command for row in db.exec(select(BatchJob)))


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('search for sandals\n{"command": "x", "url": 3}\n', "line 2: 'url'"),
        ('\n\n{"command": ""}\n', "line 3: 'command'"),
        ('{"command": "x", "secret": ["A"]}\n', "line 1: unknown key 'secret'"),
        ('{"command": "x", "secrets": "A"}\n', "line 1: 'secrets'"),
        ("ok\n{not json\n", "line 2: not valid JSON"),
        ("[1, 2]\n", None),  # a command that happens to start with [: taken as it is
        ("# only a comment\n\n", "holds no commands"),
    ],
)
def test_bad_lines_are_named_by_number(tmp_path: Path, content: str, said: str | None) -> None:
    file = tmp_path / "batch.txt"
    file.write_text(content)
    if said is None:
        assert [line.command for line in read_batch(file)] == ["[1, 2]"]
        return
    with pytest.raises(BatchFileError, match="^" + str(file).replace(".", r"\.")) as raised:
        read_batch(file)
    assert said in str(raised.value)


def test_mistakes_are_one_line_with_exit_code_2(tmp_path: Path, settings: Settings) -> None:
    file = tmp_path / "batch.txt"
    file.write_text('search for sandals\n{"command": "x", "url": "file:///etc/passwd"}\n')
    secret = tmp_path / "secret.txt"
    secret.write_text(
        '{"command": "log in with {PW}", "url": "http://127.0.0.1:9", "secrets": ["PW"]}\n'
    )
    cases = [
        ([str(file)], "line 2"),
        ([str(secret)], "line 1: the secret PW is not configured"),
        ([str(tmp_path / "missing.txt")], "missing.txt"),
        ([str(file), "--workers", "2", "--cluster", "tcp://127.0.0.1:1"], "give one"),
        ([str(file), "--cluster", "127.0.0.1:1"], "tcp://HOST:PORT"),
        ([str(secret), "--url", "file:///etc/passwd"], "--url"),
    ]
    for args, said in cases:
        done = batch(settings.workspace, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert said in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


async def test_a_browser_gone_is_not_the_jobs_failure(demo: DemoSite, settings: Settings) -> None:
    async with launched_browser(settings) as gone:
        await gone.close()
    job = CommandJob("b3-0001", "b3", SEARCHES[0], demo.url)

    with pytest.raises(BrowserLost):
        await run_job(job, gone, settings, open_store(settings))

    with Session(open_store(settings)) as db:
        assert db.exec(select(BatchJob)).all() == []  # free to run again elsewhere


def test_cluster_options_refuse_what_runs_in_one_process(settings: Settings) -> None:
    for extra in (["--reharvest"], ["--secret", "PW=x"], ["--profile", "shop"]):
        done = subprocess.run(
            [str(Path(sys.executable).parent / "browser-agent"), "validate", "--all",
             "--workers", "2", *extra],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "BROWSER_AGENT_WORKSPACE": str(settings.workspace)},
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "one process" in done.stderr and len(done.stderr.strip().splitlines()) == 1
