"""The agent of the Python API: commands carried out, runs harvested, skills and runs read,
with the settings the command line uses."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from browser_agent.api.records import (
    HarvestInfo,
    OpenStore,
    RunInfo,
    RunNotFound,
    SkillInfo,
    SkillNotFound,
    SkillVersion,
    harvest_record,
    run_record,
    skill_record,
    step_record,
)
from browser_agent.api.skill import Skill

if TYPE_CHECKING:
    from browser_agent.llm.types import LLMClient
    from browser_agent.planner.agent import RunResult
    from browser_agent.settings import Settings
    from browser_agent.store.connection import Store
    from browser_agent.store.rows import SkillRow

T = TypeVar("T")


def run_now(work: Coroutine[Any, Any, T]) -> T:
    """``work`` run to its end from synchronous code; a RuntimeError inside a running event
    loop, where the async method must be awaited instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    work.close()
    raise RuntimeError(
        "A *_sync method was called inside a running event loop: await the async one"
    )


class Agent:
    """The browser agent, set up as the command line is: the settings come from the
    environment (``BROWSER_AGENT_*``), with any setting overridden by keyword
    (``workspace=``, ``allowed_domains=``...); ``headless=`` is ``headed``'s opposite, ``url``
    the page commands start from, ``model`` a model name at the configured endpoint
    (``"offline"`` for the built-in planner), ``llm`` a model client of your own, ``secrets``
    values named ``{NAME}`` in commands. A setting that is not one is a TypeError; a bad
    value a SettingsError (a ValueError) naming it."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        url: str | None = None,
        model: str | None = None,
        headless: bool | None = None,
        llm: LLMClient | None = None,
        secrets: Mapping[str, str] | None = None,
        max_steps: int = 30,
        **overrides: object,
    ) -> None:
        from browser_agent.secrets import configured, key
        from browser_agent.settings import load_settings

        if headless is not None:
            overrides["headed"] = not headless
        base = settings if settings is not None else load_settings()
        self.settings: Settings = base.with_overrides(**overrides)
        self.url, self.model, self.llm, self.max_steps = url, model, llm, max_steps
        self.secrets = {**configured(), **{key(k): v for k, v in (secrets or {}).items()}}

    async def run(
        self, command: str, *, url: str | None = None, max_steps: int | None = None
    ) -> RunResult:
        """Carry out ``command`` in a browser of its own, starting from ``url`` (else the
        agent's), routed to a healthy skill when one matches, else with the planner; the run
        is logged and stored. A failed task is a result (``status``), not an exception; a
        mistake of the caller (an empty command, a refused address) is a UserError."""
        from browser_agent.llm.choose import make_llm
        from browser_agent.planner.agent import run_command
        from browser_agent.secrets import unconfigured_in
        from browser_agent.sites.policy import checked_start

        start = url or self.url
        checked_start(command, start, self.settings)
        unconfigured_in(command, self.secrets)
        return await run_command(
            command,
            self.llm or make_llm(self.settings, self.model),
            self.settings,
            start_url=start,
            max_steps=max_steps or self.max_steps,
            secrets=self.secrets,
        )

    def run_sync(
        self, command: str, *, url: str | None = None, max_steps: int | None = None
    ) -> RunResult:
        """:meth:`run`, from synchronous code."""
        return run_now(self.run(command, url=url, max_steps=max_steps))

    async def harvest(self, *run_ids: str, verify: bool = True) -> list[HarvestInfo]:
        """Harvest these runs (every succeeded run when none is named) into skills, each
        new skill or version verified by a replay; runs harvested before are passed over."""
        from browser_agent.harvest.harvester import harvest
        from browser_agent.store.db import open_store
        from browser_agent.store.run_logs import log_file
        from browser_agent.store.run_rows import run_row, succeeded_runs

        with self._store() as store:
            ids = [self._run_id(store, run_id) for run_id in run_ids]
            runs = [run_row(store, run_id) for run_id in ids] if ids else succeeded_runs(store)
            workspace = self.settings.workspace
            logs = [log_file(store, run, workspace) for run in runs if run and run.log_path]
        results = await harvest(logs, self.settings, open_store(self.settings), verify=verify)
        return [harvest_record(result) for result in results]

    def harvest_sync(self, *run_ids: str, verify: bool = True) -> list[HarvestInfo]:
        """:meth:`harvest`, from synchronous code."""
        return run_now(self.harvest(*run_ids, verify=verify))

    def skills(self, status: str | None = None) -> list[SkillInfo]:
        """The current version of every harvested skill (only those with ``status``:
        healthy, candidate, stale), by name, with its health."""
        from browser_agent.skills.stored import refusal
        from browser_agent.store.health import healths
        from browser_agent.store.skill_use import current_skills

        with self._store() as store:
            rows = current_skills(store, status)
            health = healths(store, rows, self.settings.health_window)
        workspace = self.settings.workspace
        return [skill_record(row, refusal(row, workspace), health[row.id]) for row in rows]

    def skill_info(self, name: str) -> SkillInfo:
        """The skill ``name`` as stored: its current version with every version's status
        and the code that runs (None when refused); SkillNotFound when there is none."""
        from browser_agent.skills.stored import refusal
        from browser_agent.store.health import health_of

        with self._store() as store:
            row = self._current(store, name)
            health = health_of(store, row, self.settings.health_window)
            sql = "SELECT version, status FROM skill WHERE name = :name ORDER BY version"
            rows = store.execute(sql, name=name).rows
        versions = [SkillVersion(version=r["version"], status=r["status"]) for r in rows]
        return skill_record(row, refusal(row, self.settings.workspace), health, versions)

    def skill(self, name: str) -> Skill:
        """The skill ``name`` (its current version), ready to call on a page of yours;
        SkillNotFound when there is none, SkillRefused when its stored plan or code does
        not check (its code is only ever made from its checked plan)."""
        from browser_agent.skills.stored import load_skill

        with self._store() as store:
            row = self._current(store, name)
        return Skill(row, load_skill(row, self.settings.workspace), self.settings, self.secrets)

    def _current(self, store: Store, name: str) -> SkillRow:
        """The current version of the skill ``name``; SkillNotFound when there is none."""
        from browser_agent.store.skill_use import current_skills

        row = next((s for s in current_skills(store) if s.name == name), None)
        if row is None:
            raise SkillNotFound(f"No skill {name!r}: Agent.skills() lists the names.")
        return row

    def runs(
        self,
        limit: int = 20,
        status: str | None = None,
        *,
        site: str | None = None,
        skill: str | None = None,
        since: str | None = None,
        words: str | None = None,
    ) -> list[RunInfo]:
        """The ``limit`` most recent runs, newest first, filtered as ``browser-agent runs``
        filters them: only those with ``status``, started or ended on ``site`` (a host),
        that used ``skill``, started ``since`` (``"2h"``, ``"3d"``, ``"2026-12-01"``), whose
        command holds ``words``. A filter no run can match is a UserError saying why."""
        from browser_agent.api.run_filter import RunFilter, filtered_runs

        wanted = RunFilter.given(status, site, skill, since, words, named=lambda name: name)
        with self._store() as store:
            return [run_record(row, self.settings) for row in filtered_runs(store, limit, wanted)]

    def run_info(self, run_id: str) -> RunInfo:
        """One run with its steps, by its id or the unique start of one; RunNotFound if none.
        Its log is the file it wrote, or the store's copy written into this workspace."""
        from browser_agent.store.rows import StepRow, columns
        from browser_agent.store.run_logs import log_file
        from browser_agent.store.run_rows import run_row

        with self._store() as store:
            found = self._run_id(store, run_id)
            row = run_row(store, found)
            assert row is not None  # _run_id found it
            names = ", ".join(f'"{name}"' for name in columns(StepRow))
            sql = f'SELECT {names} FROM step WHERE run_id = :run_id ORDER BY "index"'
            steps = [StepRow(**step) for step in store.execute(sql, run_id=found).rows]
            log = log_file(store, row, self.settings.workspace) if row.log_path else None
        shown = [step_record(step) for step in steps]
        return replace(run_record(row, self.settings, log), steps=shown)

    @staticmethod
    def _run_id(store: Store, text: str) -> str:
        """The id of the run that is ``text`` or alone starts with it; RunNotFound otherwise."""
        escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        sql = "SELECT id FROM run WHERE id = :text OR id LIKE :start ESCAPE '\\' ORDER BY id"
        ids = [row["id"] for row in store.execute(sql, text=text, start=f"{escaped}%").rows]
        if text in ids:
            return text
        if len(ids) == 1 and text:
            return ids[0]
        raise RunNotFound(text, ids if text else [])

    def _store(self) -> OpenStore:
        return OpenStore(self.settings)
