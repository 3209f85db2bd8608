"""Validations started from the console: one skill or all replayed in the server process,
as ``browser-agent validate`` does; each report is kept (also as JSON under ``reports/``)
with the screenshots of the replays that failed."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from browser_agent.settings import Settings

logger = logging.getLogger("browser_agent.console")


@dataclass
class Validation:
    """One validation: what was asked, its state, and its report once done."""

    key: str
    names: list[str]
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    status: str = "running"  # running, done, failed (it could not run)
    error: str | None = None
    report: dict[str, Any] | None = None
    task: asyncio.Task[None] | None = None

    @property
    def asked(self) -> str:
        return ", ".join(self.names) if self.names else "every skill"


class Validations:
    """The console's validations, newest first, and how to start one."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.done: dict[str, Validation] = {}

    def newest_first(self) -> list[Validation]:
        return sorted(self.done.values(), key=lambda v: v.started_at, reverse=True)

    def start(self, names: list[str]) -> Validation:
        """Validate the named skills, or every skill not retired when none is named."""
        validation = Validation(secrets.token_hex(6), names)
        self.done[validation.key] = validation
        validation.task = asyncio.create_task(self._run(validation))
        return validation

    def screenshot(self, key: str, index: int) -> Path | None:
        """The screenshot the validator saved for one replay of a report (by position:
        no path comes from the request)."""
        validation = self.done.get(key)
        skills = (validation.report or {}).get("skills", []) if validation else []
        if not 0 <= index < len(skills) or not skills[index].get("screenshot"):
            return None
        path = Path(skills[index]["screenshot"])
        return path if path.is_file() else None

    async def _run(self, validation: Validation) -> None:
        from browser_agent.errors import BrowserError
        from browser_agent.validate.lock import LockHeld
        from browser_agent.validate.validator import CannotValidate, run_validation

        try:
            report = await run_validation(
                self.settings, validation.names, all_skills=not validation.names, concurrency=2
            )
        except (LockHeld, CannotValidate, BrowserError) as exc:
            validation.status, validation.error = "failed", str(exc)
            return
        except Exception as exc:  # said on the page; the console goes on
            logger.warning("console validation %s failed: %s", validation.key, exc)
            validation.status, validation.error = "failed", f"{type(exc).__name__}: {exc}"
            return
        validation.report = report.as_dict()
        validation.status = "done"
        saved = self.settings.workspace / "reports" / f"console-{validation.key}.json"
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(validation.report, indent=2, default=str), encoding="utf-8")
