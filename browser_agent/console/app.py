"""The console's ASGI app: start and watch runs, answer their questions, browse runs and
skills. Pages are plain HTML from the package's templates; nothing comes from the internet."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy import Engine
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from browser_agent.console.auth import (
    CSRF_FIELD,
    SECURITY_HEADERS,
    SESSION_SCRIPT,
    WORKER_SCRIPT,
    CsrfRefused,
    TokenGuard,
    checked_form,
    csrf_token,
    new_token,
)
from browser_agent.console.browse import (
    chat_log,
    decisions_of,
    find_runs,
    iterations,
    set_retired,
    skill_view,
    totals_of,
)
from browser_agent.console.run_form import form_secrets, missing_secrets, review_mode
from browser_agent.console.runs import (
    LiveRun,
    RunBoard,
    shot_url,
    shots_root,
    step_target,
    trace_path,
)
from browser_agent.console.validation import Validations
from browser_agent.console.watches import DueWatches, watch_routes
from browser_agent.llm.prices import cost_of_run, shown_cost
from browser_agent.llm.types import LLMClient
from browser_agent.settings import Settings
from browser_agent.store.run_logs import log_file
from browser_agent.store.run_steps import run_with_steps
from browser_agent.store.skills import runs_of

RUN_STATUSES = ("running", "succeeded", "unverified", "failed", "interrupted", "abandoned")
RUN_ID = re.compile(r"[0-9A-Za-z_-]+")


class Console:
    """The console's state (settings, store, live runs, token) and its request handlers."""

    def __init__(
        self, settings: Settings, engine: Engine, token: str, make_llm: Callable[[], LLMClient]
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.token = token
        self.board = RunBoard(settings, make_llm)
        self.validations = Validations(settings)
        self.templates = Environment(
            loader=PackageLoader("browser_agent.console"), autoescape=select_autoescape()
        )

    def page(self, name: str, status_code: int = 200, **values: Any) -> HTMLResponse:
        """A template rendered with the form's CSRF token, under the security headers."""
        html = self.templates.get_template(name).render(
            csrf_field=CSRF_FIELD, csrf=csrf_token(self.token), **values
        )
        return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)

    async def form(self, request: Request) -> dict[str, str]:
        try:
            return await checked_form(request, self.token)
        except CsrfRefused:
            raise HTTPException(
                403, "Refused: the form's CSRF token is wrong or missing."
            ) from None

    def live_run(self, request: Request) -> LiveRun:
        live = self.board.get(request.path_params["key"])
        if live is None:
            raise HTTPException(404, "No such run in this console.")
        return live

    async def home(self, request: Request) -> Response:
        live = sorted(self.board.runs.values(), key=lambda r: r.key)
        return self.page("home.html", live=[r for r in live if r.status == "running"])

    async def start_run(self, request: Request) -> Response:
        fields = await self.form(request)
        command = fields.get("command", "").strip()
        start_url = fields.get("start_url", "").strip() or None
        given, problem = form_secrets(fields)
        problem = problem or self._refused_start(command, start_url)
        problem = problem or missing_secrets(command, given)
        if problem:  # the form comes back without its secrets' values
            return self.page(
                "home.html", 400, live=[], problem=problem, command=command, start_url=start_url
            )
        approve, every = review_mode(fields)
        live = self.board.start(command, start_url, approve, every, given)
        return RedirectResponse(f"/live/{live.key}", status_code=303)

    async def start_recording(self, request: Request) -> Response:
        """Record the person showing the command in a browser window (see ``recording``)."""
        from browser_agent.console.recording import start_recording
        from browser_agent.record.teach import NO_DISPLAY, has_display
        from browser_agent.sites.policy import normalize_url

        fields = await self.form(request)
        command = fields.get("command", "").strip()
        start_url = fields.get("start_url", "").strip() or None
        problem = self._refused_start(command, start_url)
        if problem is None and not self.settings.browser_endpoint and not has_display():
            problem = NO_DISPLAY
        if problem:
            return self.page(
                "home.html", 400, live=[], problem=problem, command=command, start_url=start_url
            )
        start = normalize_url(start_url, self.settings) if start_url else None
        live = start_recording(self.board, self.engine, command, start)
        return RedirectResponse(f"/live/{live.key}", status_code=303)

    def _refused_start(self, command: str, start_url: str | None) -> str | None:
        """Why this command may not start (an empty command, a URL the settings refuse)."""
        from browser_agent.errors import ActionError
        from browser_agent.sites.policy import normalize_url

        if not command:
            return "The command is empty: say what the agent should do."
        if start_url:
            try:
                normalize_url(start_url, self.settings)
            except ActionError as exc:
                return str(exc)
        return None

    async def live_page(self, request: Request) -> Response:
        return self.page("live.html", run=self.live_run(request))

    async def live_events(self, request: Request) -> Response:
        live = self.live_run(request)
        last = request.headers.get("last-event-id", "")
        start = int(last) + 1 if last.isdigit() else 0

        async def events() -> AsyncIterator[dict[str, str]]:
            async for event in live.follow(start):
                yield {"id": str(event["id"]), "data": json.dumps(event)}

        return EventSourceResponse(events(), ping=15, headers={"Cache-Control": "no-store"})

    async def live_stop(self, request: Request) -> Response:
        live = self.live_run(request)
        await self.form(request)
        live.stop()
        return RedirectResponse(f"/live/{live.key}", status_code=303)

    async def live_judge(self, request: Request) -> Response:
        """Approve, reject or correct the action waiting (a refused correction is said on
        the run's page, and the action still waits)."""
        live = self.live_run(request)
        fields = await self.form(request)
        live.judge(
            fields.get("decision", "reject"),
            fields.get("note", ""),
            fields.get("tool", "").strip(),
            fields.get("arguments", ""),
        )
        return RedirectResponse(f"/live/{live.key}", status_code=303)

    async def live_answer(self, request: Request) -> Response:
        live = self.live_run(request)
        fields = await self.form(request)
        live.answer(fields.get("answer", ""))
        return RedirectResponse(f"/live/{live.key}", status_code=303)

    async def run_shot(self, request: Request) -> Response:
        run_id, index = request.path_params["run_id"], int(request.path_params["index"])
        path = shots_root(self.settings.workspace) / run_id / f"{index}.jpg"
        if not RUN_ID.fullmatch(run_id) or not path.is_file():
            raise HTTPException(404, "No screenshot of that step.")
        return FileResponse(path, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    async def run_trace(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        path = trace_path(self.settings.logs_dir, run_id)
        if not RUN_ID.fullmatch(run_id) or not path.is_file():
            raise HTTPException(404, "No trace of that run.")
        return FileResponse(path, media_type="application/zip", filename=f"{run_id}.trace.zip")

    async def runs(self, request: Request) -> Response:
        status = request.query_params.get("status") or None
        text = request.query_params.get("q", "").strip() or None
        found = find_runs(self.engine, status, text)
        prices = self.settings.prices
        return self.page(
            "runs.html",
            runs=found,
            costs={run.id: shown_cost(cost_of_run(run, prices)) for run in found},
            totals=totals_of(self.engine, status, text, prices),
            status=status,
            q=text or "",
            statuses=RUN_STATUSES,
        )

    async def run(self, request: Request) -> Response:
        found = run_with_steps(self.engine, request.path_params["run_id"])
        if found is None:
            raise HTTPException(404, "No run with that id.")
        run, steps = found
        folder = shots_root(self.settings.workspace) / run.id
        shown = [
            {
                "step": step,
                "target": step_target(step.arguments),
                "shot": shot_url(run.id, step.index)
                if (folder / f"{step.index}.jpg").is_file()
                else None,
            }
            for step in steps
        ]
        traced = trace_path(self.settings.logs_dir, run.id).is_file()
        log = log_file(self.engine, run, self.settings.workspace)  # or the store's copy
        return self.page(
            "run.html",
            run=run,
            cost=shown_cost(cost_of_run(run, self.settings.prices)),
            decisions=decisions_of(self.engine, run.id),
            steps=shown,
            traced=traced,
            chat=chat_log(log),
            calls=iterations(log),
        )

    async def skills(self, request: Request) -> Response:
        from browser_agent.skills.stored import refusal
        from browser_agent.store.skill_use import current_skills

        skills = current_skills(self.engine)
        refused = {skill.name: refusal(skill) for skill in skills}
        return self.page("skills.html", skills=skills, refused=refused)

    async def skill(self, request: Request) -> Response:
        name = request.path_params["name"]
        view = skill_view(self.engine, name, self.settings.health_window)
        if view is None:
            raise HTTPException(404, "No skill with that name.")
        return self.page("skill.html", view=view, source_runs=runs_of(view.skill))

    async def validations_page(self, request: Request) -> Response:
        shown = self.validations.newest_first()
        running = any(v.status == "running" for v in shown)
        return self.page("validations.html", validations=shown, refresh=running)

    async def validate(self, request: Request) -> Response:
        fields = await self.form(request)
        name = fields.get("name", "").strip()
        if name and skill_view(self.engine, name) is None:
            raise HTTPException(404, "No skill with that name.")
        self.validations.start([name] if name else [])
        return RedirectResponse("/validations", status_code=303)

    async def validation_shot(self, request: Request) -> Response:
        path = self.validations.screenshot(
            request.path_params["key"], int(request.path_params["index"])
        )
        if path is None:
            raise HTTPException(404, "No screenshot of that replay.")
        return FileResponse(path, headers={"Cache-Control": "no-store"})

    async def retire(self, request: Request) -> Response:
        return await self._set_retired(request, True)

    async def restore(self, request: Request) -> Response:
        return await self._set_retired(request, False)

    async def _set_retired(self, request: Request, retired: bool) -> Response:
        name = request.path_params["name"]
        await self.form(request)
        if set_retired(self.engine, name, retired) is None:
            raise HTTPException(404, "No skill with that name.")
        return RedirectResponse(f"/skills/{quote(name)}", status_code=303)


def _session_script(name: str) -> Route:
    """A route for one of the console's session scripts (generic code, open to all)."""
    path = Path(__file__).parent / "static" / name.lstrip("/")

    async def script(_request: Request) -> Response:
        return FileResponse(path, media_type="text/javascript", headers=SECURITY_HEADERS)

    return Route(name, script)


async def _refused(request: Request, exc: Exception) -> Response:
    """Errors as one line of plain text, with the security headers."""
    assert isinstance(exc, HTTPException)
    return Response(exc.detail, exc.status_code, headers=SECURITY_HEADERS, media_type="text/plain")


def create_app(
    settings: Settings, engine: Engine, token: str, make_llm: Callable[[], LLMClient]
) -> Starlette:
    """The console for ``settings``' workspace; every request needs ``token``, or the
    browser session its first visit with the token started."""
    console = Console(settings, engine, token, make_llm)
    routes = [
        Route("/", console.home),
        Route("/runs/new", console.start_run, methods=["POST"]),
        Route("/recordings/new", console.start_recording, methods=["POST"]),
        Route("/live/{key:str}", console.live_page),
        Route("/live/{key:str}/events", console.live_events),
        Route("/live/{key:str}/stop", console.live_stop, methods=["POST"]),
        Route("/live/{key:str}/answer", console.live_answer, methods=["POST"]),
        Route("/live/{key:str}/judge", console.live_judge, methods=["POST"]),
        Route("/runs", console.runs),
        Route("/runs/{run_id:str}", console.run),
        Route("/runs/{run_id:str}/shots/{index:int}.jpg", console.run_shot),
        Route("/runs/{run_id:str}/trace.zip", console.run_trace),
        Route("/skills", console.skills),
        Route("/skills/{name:str}", console.skill),
        Route("/skills/{name:str}/retire", console.retire, methods=["POST"]),
        Route("/skills/{name:str}/restore", console.restore, methods=["POST"]),
        Route("/validations", console.validations_page),
        Route("/validations/new", console.validate, methods=["POST"]),
        Route("/validations/{key:str}/shots/{index:int}", console.validation_shot),
        *watch_routes(console),
        _session_script(SESSION_SCRIPT),
        _session_script(WORKER_SCRIPT),
        Mount("/static", StaticFiles(packages=[("browser_agent.console", "static")])),
    ]

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        due = DueWatches(settings, engine, make_llm)
        due.start()
        yield
        await due.stop()
        await console.board.stop_all()  # Ctrl-C: runs end as interrupted, as in the CLI

    app = Starlette(
        routes=routes,
        middleware=[Middleware(TokenGuard, token=token, session=new_token())],
        exception_handlers={HTTPException: _refused},
        lifespan=lifespan,
    )
    app.state.console = console
    return app
