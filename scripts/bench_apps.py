"""Skills on real web applications (scripts/apps/): learn a task once, run it on fresh
values, and after the admin's new look.

Per app, a workspace of its own; the product is driven through its CLI (``browser-agent
--workspace W run|harvest|validate --json``) with no LLM endpoint, so its planner is the
built-in offline one, and every run starts from the admin's login kept in a storage state
(``BROWSER_AGENT_STORAGE_STATE``), but a task that starts logged out (a login) starts with
none, and a value its command names as a ``{NAME}`` secret is given as
``BROWSER_AGENT_SECRET_NAME``. Per task:

- the first instance: the planner's run, harvested when the app's check says it is done;
  else a person (Playwright) shows it once through the product's recorder
  (``record_session``), saved as a run and harvested ("taught"), or the harvest's refusal;
- with ``--local``, one more first instance on values of its own, skills off, planned by
  the language model ``scripts/local_model.sh`` serves on 127.0.0.1 (started, and stopped
  at the end, by the bench when none is running), with the settings that script prints:
  the "local" column, beside the built-in planner's "first", on the same tasks;
- N fresh instances with skills (routed = 0 LLM calls), and N more with the planner alone
  (skills off): the same task, each with values of its own, as the apps keep state;
- after the new look: ``validate`` on the skills (stale or not); each skill run as written
  on fresh values (its module's function, no healing, no fallback, no planner) and judged
  by the app's check ("broken": really broken; "f.heal": validated healthy while really
  broken); and N fresh instances with skills again ("healed": those done with 0 LLM calls
  by a skill that found a step's control again by its identity, as its answer says).

Success is the app's own check on its database or pages, never the product's verdict. A run
the product calls "succeeded" that the check refuses is a false success ("false+"), one it
calls failed or unverified that the check passes a false failure ("false-"); "unver" counts
the runs it ended unverified. A run that changed
a part of the app's state its task does not touch is a wrong action. Everything is on
127.0.0.1.

    .venv/bin/python scripts/bench_apps.py [--apps trac,datasette] [--fresh 10] [--tasks a,b]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium  # noqa: E402
from browser_agent.record.save import save_recording  # noqa: E402
from browser_agent.record.session import record_session  # noqa: E402
from browser_agent.settings import load_settings  # noqa: E402
from browser_agent.store.db import open_store  # noqa: E402
from scripts.apps import APP_NAMES, App, Running, Task, Values, load  # noqa: E402

CLI = [str(ROOT / ".venv/bin/browser-agent")]


@dataclass
class Outcome:
    """One run of the product on one instance, judged by the app."""

    command: str
    status: str  # the product's
    llm_calls: int
    done: bool  # the app's check
    wrong: list[str]  # state parts changed that the task does not touch
    answer: str = ""
    final_url: str | None = None
    seconds: float = 0.0
    run_id: str = ""

    @property
    def false_success(self) -> bool:
        return self.status == "succeeded" and not self.done

    @property
    def false_failure(self) -> bool:
        """Said failed or unverified while the app's check passes."""
        return self.status in ("failed", "unverified") and self.done

    @property
    def healed(self) -> bool:
        """Done with 0 LLM calls by a skill that found a step again by its identity."""
        return self.done and self.llm_calls == 0 and "found by its identity" in self.answer

    @property
    def routed(self) -> bool:
        return self.llm_calls == 0 and self.status != "error"


@dataclass
class TaskReport:
    """What one task gave, phase by phase."""

    app: str
    task: str
    first: str = ""  # planner solved / taught / refused: reason
    skill: str = ""
    harvest_said: str = ""
    runs: dict[str, list[Outcome]] = field(default_factory=dict)  # phase -> outcomes
    readings: list[str] = field(default_factory=list)  # the harvest's reading per step
    stale: str = ""  # after the new look: the validator's verdict on the task's skill
    broken: str = ""  # after the new look: its code run as written, judged by the app's check


def product(
    workspace: Path,
    app: Running,
    *args: str,
    use_skills: bool = True,
    task: Task | None = None,
    values: Values | None = None,
    llm: dict[str, str] | None = None,
) -> dict:
    """The product's CLI in the app's workspace; its --json output (or the error said).
    With a task: its login (none when it starts logged out) and the values' secrets; with
    ``llm``: the settings of a model to plan with (else the built-in offline planner)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BROWSER_AGENT_"))}
    env.update(llm or {})
    if task is None or not task.logged_out:
        env["BROWSER_AGENT_STORAGE_STATE"] = str(app.storage_state)
    if task is not None and values is not None:
        env.update({f"BROWSER_AGENT_SECRET_{k}": v for k, v in task.secret_values(values).items()})
    env["BROWSER_AGENT_USE_SKILLS"] = "true" if use_skills else "false"
    done = subprocess.run(
        [*CLI, "--workspace", str(workspace), *args, "--json"],
        capture_output=True, text=True, env=env, timeout=3600 if llm else 900,
    )  # fmt: skip
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        said = (done.stderr or done.stdout).strip().splitlines()
        return {"status": "error", "answer": said[-1] if said else f"exit {done.returncode}"}


def changed_parts(before: dict, after: dict) -> set[str]:
    return {part for part in before if before[part] != after.get(part)}


def attempt(
    workspace: Path,
    app: Running,
    task: Task,
    values: Values,
    use_skills: bool = True,
    llm: dict[str, str] | None = None,
) -> Outcome:
    """One run of the task's command with these values, judged by the app's check."""
    command = task.command(values)
    before = app.state()
    started = time.monotonic()
    url = app.url + task.start
    result = product(
        workspace, app, "run", command, "--url", url,
        task=task, values=values, use_skills=use_skills, llm=llm,
    )  # fmt: skip
    seconds = time.monotonic() - started
    final_url = result.get("final_url")
    done = task.check(app, values, final_url)
    wrong = sorted(changed_parts(before, app.state()) - task.touches)
    return Outcome(
        command, str(result.get("status")), int(result.get("llm_calls") or 0), done, wrong,
        str(result.get("answer") or ""), final_url, seconds, str(result.get("run_id") or ""),
    )  # fmt: skip


async def teach(workspace: Path, app: Running, task: Task, values: Values) -> str | None:
    """A person shows the task once, recorded; the saved run's log (None if the app's check
    says the demonstration did not do it)."""
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    settings = load_settings().with_overrides(workspace=workspace)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=find_chromium(), args=LAUNCH_ARGS
        )
        try:
            state = None if task.logged_out else str(app.storage_state)
            context = await browser.new_context(storage_state=state)
            page = await context.new_page()
            await page.goto(app.url + task.start)  # shown from where the command starts
            async with record_session(context, task.secret_values(values)) as recording:
                try:
                    await task.person(page, app, values)
                    await page.wait_for_load_state()
                except PlaywrightError as exc:  # the person's script met another page
                    print(f"    the demonstration stopped: {str(exc).splitlines()[0]}")
                    return None
            final = page.url
            await context.close()
        finally:
            await browser.close()
    if not task.check(app, values, final):
        return None
    saved = save_recording(recording, task.command(values), settings, open_store(settings))
    return saved.log_path


def harvest(
    workspace: Path, app: Running, source: str, task: Task, values: Values
) -> tuple[str, str, list[str]]:
    """Harvest one run or log; (skill or "", what the harvest said, its reading per step)."""
    data = product(workspace, app, "harvest", source, task=task, values=values)
    results = data.get("results") or []
    if not results:
        return "", str(data.get("answer") or data.get("summary") or data), []
    got = results[0]
    said = got.get("error") or got.get("reason") or got.get("verify_error") or ""
    readings = [str(r) for r in got.get("readings") or []]
    if got.get("name") and got.get("outcome") in ("new skill", "new version", "unchanged"):
        verified = "verified" if got.get("verified") else "not verified"
        return f"{got['name']} v{got.get('version')} ({verified})", str(said), readings
    return "", f"{got.get('outcome')}: {said}", readings


def learn(
    workspace: Path, app: Running, task: Task, rng: random.Random, report: TaskReport
) -> Values:
    """The first instance: the planner, else a demonstration; harvested. The values of
    the instance harvested (its skill's example)."""
    values = task.generate(rng, app)
    first = attempt(workspace, app, task, values, use_skills=False)
    report.runs["first"] = [first]
    source = None
    if first.done:
        report.first = "planner solved"
        source = first.run_id or None
    else:
        report.first = f"planner failed ({first.status}: {first.answer[:120]})"
        values = task.generate(rng, app)
        log = asyncio.run(teach(workspace, app, task, values))
        if log is None:
            report.first += "; demonstration failed the app's check"
            return values
        report.first += "; taught"
        source = log
    if source is not None:
        report.skill, report.harvest_said, report.readings = harvest(
            workspace, app, source, task, values
        )
    if report.skill:
        listed = product(workspace, app, "skills", "--limit", "0").get("skills") or []
        name = report.skill.split(" ")[0]
        templates = [t for s in listed if s["name"] == name for t in s["command_templates"]]
        report.skill += f" {templates}"
    return values


def run_phase(
    report: TaskReport,
    phase: str,
    count: int,
    at: tuple[Path, Running, random.Random],
    task: Task,
    use_skills: bool = True,
) -> None:
    """``count`` fresh instances of the task (``at``: the workspace, the app and the values'
    random source), each outcome kept in the report's phase as it ends: a failure part
    way keeps those before it."""
    workspace, app, rng = at
    outcomes = report.runs.setdefault(phase, [])
    for _ in range(count):
        values = task.generate(rng, app)
        outcomes.append(attempt(workspace, app, task, values, use_skills=use_skills))


def bench_app(
    app_def: App,
    fresh: int,
    tasks: list[str] | None,
    seed: int,
    llm: dict[str, str] | None,
    kept: list[TaskReport],
) -> None:
    """Every phase for one app, in a workspace of its own, its task reports added to
    ``kept`` at once and filled as the phases end; with ``llm``, a first instance planned
    by that model too."""
    rng = random.Random(seed)
    workspace = Path(tempfile.mkdtemp(prefix=f"bench-apps-{app_def.name}-"))
    chosen = [t for t in app_def.tasks if not tasks or t.name in tasks]
    reports = [TaskReport(app_def.name, t.name) for t in chosen]
    kept += reports
    examples: dict[str, Values] = {}
    with app_def.start() as app:
        print(f"{app_def.name}: {app.url}, workspace {workspace}", flush=True)
        for task, report in zip(chosen, reports, strict=True):
            examples[task.name] = learn(workspace, app, task, rng, report)
            print(
                f"  {task.name}: {report.first} -> {report.skill or report.harvest_said}",
                flush=True,
            )
            if llm:
                local = attempt(workspace, app, task, task.generate(rng, app), False, llm)
                report.runs["local"] = [local]
                print(f"    local model: {'done' if local.done else 'not done'} "
                      f"({local.status}, {local.llm_calls} calls, {local.seconds:.0f} s)",
                      flush=True)  # fmt: skip
            for phase, skills in (("skills", True), ("planner", False)):
                run_phase(report, phase, fresh, (workspace, app, rng), task, use_skills=skills)
        said = app_def.new_look(app)
        print(f"  new look: {said}", flush=True)
        validation = product(workspace, app, "validate", "--all")
        verdicts = {c["name"]: c for c in validation.get("skills") or []}
        for task, report in zip(chosen, reports, strict=True):
            name = report.skill.split(" ")[0] if report.skill else ""
            if name and (task.logged_out or task.secrets):  # again, as its task starts
                alone = product(workspace, app, "validate", name, task=task,
                                values=examples[task.name])  # fmt: skip
                verdicts.update({c["name"]: c for c in alone.get("skills") or []})
            checked = verdicts.get(name)
            if checked:
                report.stale = checked["verdict"] + (
                    f" ({checked.get('error') or ''})"[:160]
                    if checked["verdict"] != "healthy"
                    else ""
                )
            if name:
                values = task.generate(rng, app)
                report.broken = asyncio.run(by_hand(workspace, app, task, name, values)) or "-"
            run_phase(report, "after", fresh, (workspace, app, rng), task)


async def by_hand(workspace: Path, app: Running, task: Task, name: str, values: Values) -> str:
    """The task's skill run as written on fresh values, with no healing, address fallback
    or planner (the module's function called in a browser with the admin's login), judged
    by the app's check: "" when it did the task, else why it is really broken."""
    from browser_agent.browser.session import browser_session
    from browser_agent.planner.router import route
    from browser_agent.secrets import masked_command
    from browser_agent.skills.stored import load_skill
    from browser_agent.store.skill_use import current_skills

    settings = load_settings().with_overrides(
        workspace=workspace,
        storage_state=None if task.logged_out else app.storage_state,
        llm_model="offline",
    )
    # matched to the command as routing would, whatever validation said of it
    stored = current_skills(open_store(settings))
    skills = [replace(s, status="healthy", routable=True) for s in stored]
    skills = [s for s in skills if s.name == name]
    # the command as a run routes it: a password it gives is a secret of its own
    command, given = masked_command(task.command(values), task.secret_values(values))
    found = route(command, skills, app.url + task.start) if skills else None
    if found is None:
        return "no route to its skill"
    arguments = {**found.arguments, "start_url": app.url + task.start}
    final, said = None, ""
    async with browser_session(settings) as active:
        active.use_secrets({**task.secret_values(values), **given})
        try:
            await load_skill(found.skill, workspace)(**arguments)
        except Exception as exc:  # what a person replaying it would see fail
            said = f"{type(exc).__name__}: {str(exc)[:120]}"
        final = active.current_page().url
    if task.check(app, values, final):
        return ""
    return said or f"ended on {final}, which the app's check refuses"


@contextmanager
def local_model(protocol: str | None) -> Iterator[dict[str, str] | None]:
    """The settings of the model scripts/local_model.sh serves (fetched, built and started
    when missing; stopped at the end if started here), or None without a protocol."""
    if protocol is None:
        yield None
        return
    script = ["bash", str(ROOT / "scripts/local_model.sh")]
    said = subprocess.run([*script, "fetch", "build", "start"], capture_output=True, text=True)
    if said.returncode != 0:
        sys.exit(f"bench_apps: the local model did not start: {said.stderr.strip()[-300:]}")
    print(*[line for line in said.stdout.splitlines() if line.startswith("start:")], flush=True)
    settings = dict(
        line.removeprefix("export ").split("=", 1)
        for line in said.stdout.splitlines()
        if line.startswith("export ")
    )
    settings["BROWSER_AGENT_LLM_TEXT_ACTIONS"] = "true" if protocol == "text" else "false"
    try:
        yield settings
    finally:
        if "running already" not in said.stdout:
            subprocess.run([*script, "stop"], capture_output=True)


def ratio(outcomes: list[Outcome], test) -> str:  # type: ignore[no-untyped-def]
    return f"{sum(1 for o in outcomes if test(o))}/{len(outcomes)}"


def table(reports: list[TaskReport]) -> str:
    """The figures, per app and task, then in total."""
    head = (
        f"{'app/task':24} {'first':16} {'local':5} {'skill':10} {'routed':7} {'0-LLM ok':8} "
        f"{'planner':7} {'stale':8} {'broken':6} {'f.heal':6} {'after ok':8} {'after 0':7} "
        f"{'healed':6} {'false+':6} {'wrong':5} {'false-':6} {'unver':5}"
    )
    lines = [head, "-" * len(head)]

    def row(label: str, group: list[TaskReport]) -> str:
        runs = lambda phase: [o for r in group for o in r.runs.get(phase, [])]  # noqa: E731
        every = [o for r in group for phase in r.runs.values() for o in phase]
        firsts = Counter(r.first.split(";")[-1].strip().split(" (")[0] for r in group)
        first = ",".join(f"{n} {k.split()[-1]}" for k, n in firsts.items())
        skills = sum(1 for r in group if r.skill)
        stale = sum(1 for r in group if r.stale.startswith("stale"))
        broken = [r for r in group if r.broken not in ("", "-")]
        false_healthy = sum(1 for r in broken if r.stale.startswith("healthy"))
        return (
            f"{label:24} {first[:16]:16} "
            f"{ratio(runs('local'), lambda o: o.done) if runs('local') else '-':5} "
            f"{skills:>3}/{len(group):<6} "
            f"{ratio(runs('skills'), lambda o: o.routed):7} "
            f"{ratio(runs('skills'), lambda o: o.routed and o.done):8} "
            f"{ratio(runs('planner'), lambda o: o.done):7} "
            f"{stale:>3}/{skills:<4} {len(broken):>6} {false_healthy:>6} "
            f"{ratio(runs('after'), lambda o: o.done):8} "
            f"{ratio(runs('after'), lambda o: o.done and o.llm_calls == 0):7} "
            f"{ratio(runs('after'), lambda o: o.healed):6} "
            f"{sum(o.false_success for o in every):6} {sum(bool(o.wrong) for o in every):5} "
            f"{sum(o.false_failure for o in every):6} "
            f"{sum(o.status == 'unverified' for o in every):5}"
        )

    for report in reports:
        lines.append(row(f"{report.app}/{report.task}", [report]))
    for app in dict.fromkeys(r.app for r in reports):
        lines.append(row(f"{app} (all)", [r for r in reports if r.app == app]))
    lines.append(row("TOTAL", reports))
    return "\n".join(lines)


def messages(reports: list[TaskReport]) -> str:
    """The product's own words where it went wrong: one example per task and phase."""
    lines = []
    for r in reports:
        lines.append(f"{r.app}/{r.task}: first: {r.first}")
        if r.skill or r.harvest_said:
            lines.append(f"    harvest: {r.skill or '-'} {r.harvest_said}")
        lines += [f"    reading: {reading}" for reading in r.readings]
        if r.stale:
            lines.append(f"    after the new look, validate: {r.stale}")
        if r.broken not in ("", "-"):
            lines.append(f"    after the new look, run as written: really broken: {r.broken}")
        for phase, outcomes in r.runs.items():
            for o in outcomes:
                if not o.done or o.wrong:
                    tag = "FALSE SUCCESS" if o.false_success else o.status
                    extra = f" wrong: {','.join(o.wrong)}" if o.wrong else ""
                    lines.append(
                        f"    {phase}: {tag}, {o.llm_calls} LLM calls{extra}: {o.command!r} -> "
                        f"{o.answer[:200]!r} at {o.final_url}"
                    )
                    break
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", default=",".join(APP_NAMES), help="comma-separated apps")
    parser.add_argument("--tasks", default="", help="comma-separated task names (default all)")
    parser.add_argument("--fresh", type=int, default=10, help="fresh instances per phase")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--json", type=Path, help="also write every outcome to this file")
    parser.add_argument(
        "--local",
        choices=("text", "tools"),
        help="also plan each task's first instance with the model scripts/local_model.sh "
        "serves, over plain-text actions or native tool calls",
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the apps' servers stop too
    tasks = [t for t in args.tasks.split(",") if t] or None
    names = [a for a in args.apps.split(",") if a]
    unknown = [a for a in names if a not in APP_NAMES]
    if unknown:
        parser.error(f"no app named {', '.join(unknown)}; the apps are {', '.join(APP_NAMES)}")
    reports: list[TaskReport] = []
    started = time.monotonic()
    with local_model(args.local) as llm:
        for name in names:
            try:
                bench_app(load(name), args.fresh, tasks, args.seed, llm, reports)
            except Exception as exc:  # noqa: BLE001 - the other apps' figures still count
                print(f"{name}: stopped: {type(exc).__name__}: {exc}", flush=True)
                # its tasks that never began are not figures: only those that ran count
                reports[:] = [r for r in reports if r.app != name or r.first]
    print(f"\n{len(reports)} tasks, {args.fresh} fresh instances per phase, "
          f"{time.monotonic() - started:.0f} s\n")  # fmt: skip
    print(table(reports))
    print("\nWhere it went wrong (the product's words, first case per task and phase):")
    print(messages(reports))
    if args.json:
        from dataclasses import asdict

        args.json.write_text(json.dumps([asdict(r) for r in reports], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
