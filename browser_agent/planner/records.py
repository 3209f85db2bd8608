"""Everything a run leaves behind: the chat log, iteration records and Run/Step rows.

Written as the run goes, so a failure or Ctrl-C keeps what happened up to that point.
Each write is a short transaction of its own, never held across browser work, so any
number of runs can share one store. Secrets are masked in every file and row.
"""

from __future__ import annotations

import json
import os
import secrets as random_tokens
import textwrap
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from browser_agent.secrets import redact
from browser_agent.store.abandoned import this_process
from browser_agent.store.connection import Store
from browser_agent.store.decisions import add_decision, follow_decision, rewrite_decisions
from browser_agent.store.paths import from_store, to_store
from browser_agent.store.rows import DecisionRow, RunRow, StepRow
from browser_agent.store.run_logs import add_to_log, keep_iteration, keep_iterations, keep_log
from browser_agent.store.run_rows import add_step, rewrite_steps, save_run

if TYPE_CHECKING:
    from browser_agent.store.connection import Db


def new_run_id() -> str:
    """Sortable, unique run id such as 20261130-013700-3fa9c2."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{random_tokens.token_hex(3)}"


def log_message(message: dict[str, Any]) -> dict[str, Any]:
    """A planner message in the chat-log shape: tool messages also carry tool_responses."""
    if message.get("role") != "tool":
        return message
    return {
        **message,
        "tool_responses": [
            {
                "tool_call_id": message.get("tool_call_id"),
                "role": "tool",
                "content": message.get("content"),
            }
        ],
    }


def _json_text(data: Any) -> str:
    """``data`` as the log files write it."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def _write_json(path: Path, data: Any) -> str:
    """Replace ``path`` atomically, so a crash never leaves half a file; the text written."""
    text = _json_text(data)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return text


# What this release's logs say that older ones did not: each action's answer says when the
# page sent data to the site (see browser.effects.SENT_DATA), so silence means it did not.
SAYS = {"sent_data_said": True}


@dataclass
class RunRecorder:
    """Keeps a run's log files and store rows up to date, with secrets masked."""

    store: Store
    logs_dir: Path
    run: RunRow
    secrets: set[str] = field(default_factory=set)
    named: dict[str, str] = field(default_factory=dict)  # secrets by name, for {NAME}
    step_count: int = 0
    masked: int = 0  # how many secrets everything written so far was masked with
    log_in_store: bool = False  # keep a copy of the chat log in the store too
    in_store: tuple[int, int] = (0, 0)  # messages in the store's copy, secrets it is masked with

    @classmethod
    def start(
        cls,
        db: Db,
        logs_dir: Path,
        command: str,
        start_url: str | None,
        model: str,
        log_in_store: bool = False,
    ) -> RunRecorder:
        logs_dir.mkdir(parents=True, exist_ok=True)
        run_id = new_run_id()
        pid, host = this_process()
        run = RunRow(
            id=run_id,
            command=command,
            start_url=start_url,
            model=model,
            pid=pid,
            host=host,
            log_path=to_store(logs_dir / f"{run_id}.json", logs_dir.parent),
        )
        recorder = cls(Store.of(db), logs_dir, run, log_in_store=log_in_store)
        recorder._save_run()
        return recorder

    @property
    def log_path(self) -> Path:
        """The chat log's file (the store keeps its path relative to the workspace)."""
        return from_store(self.run.log_path, self.logs_dir.parent)

    @property
    def meta_path(self) -> Path:
        return self.log_path.with_suffix(".meta.json")

    @property
    def iterations_path(self) -> Path:
        return self.log_path.with_suffix(".iterations.jsonl")

    def write_log(self, messages: list[dict[str, Any]]) -> None:
        """Rewrite the chat log and the metadata beside it (and their copy in the store)."""
        items = self.without_secrets([log_message(m) for m in messages])
        log = _write_json(self.log_path, items)
        meta = _write_json(self.meta_path, self.without_secrets({**self.run.as_json(), **SAYS}))
        if self.log_in_store:
            self._keep_in_store(items, log, meta)

    def _keep_in_store(self, items: list[dict[str, Any]], log: str, meta: str) -> None:
        """The store's copy of the chat log: only the messages added since it was last
        written are sent (a run's log grows with every step), unless it holds none yet or
        a secret learnt since must be masked in all of it."""
        kept, masked_with = self.in_store
        if 0 < kept <= len(items) and masked_with == len(self.secrets):
            added = ",\n".join(textwrap.indent(_json_text(item), "  ") for item in items[kept:])
            add_to_log(self.store, self.run.id, added, log, meta)
        else:
            keep_log(self.store, self.run.id, log, meta)
        self.in_store = (len(items), len(self.secrets))

    def add_iteration(self, record: dict[str, Any]) -> None:
        """Append one planner iteration: context sent, reasoning, actions and results (and
        to the store's copy)."""
        line = json.dumps(self.without_secrets(record), ensure_ascii=False) + "\n"
        with self.iterations_path.open("a", encoding="utf-8") as out:
            out.write(line)
        if self.log_in_store:
            keep_iteration(self.store, self.run.id, line)

    def add_step(self, step: StepRow) -> None:
        """Store one tool call at once, so it survives an interrupted run: the step and the
        run's step count in one short transaction of their own."""
        self.step_count += 1
        step.index = self.step_count
        step.run_id = self.run.id
        step.arguments = self.without_secrets(step.arguments)
        step.response = self.without_secrets(step.response)
        step.url_after = self.without_secrets(step.url_after)
        step.error = self.without_secrets(step.error)
        self.run.steps = self.step_count
        with self.store.transaction() as execute:
            step.id = add_step(execute, step)
            save_run(execute, self._redacted_run())
        if len(self.secrets) > self.masked:  # a password was just typed: mask it at once,
            self._mask_written()  # so a run killed now leaves no copy in clear

    def add_decision(self, decision: DecisionRow) -> int:
        """Keep a person's decision on a proposed action, masked, in a transaction of its
        own; its id."""
        for name in ("action", "arguments", "corrected_arguments", "note", "context"):
            setattr(decision, name, self.without_secrets(getattr(decision, name)))
        decision.run_id = self.run.id
        with self.store.transaction() as execute:
            return add_decision(execute, decision)

    def follow_decision(self, decision_id: int, reply: dict[str, Any]) -> None:
        """Keep the model's next reply after a rejection (its answer to the note), masked."""
        text = json.dumps(self.without_secrets(reply), ensure_ascii=False)
        follow_decision(self.store, decision_id, text)

    def count_calls(self, llm_calls: int, prompt_tokens: int, completion_tokens: int) -> None:
        """Store the run's model calls and tokens so far, as each call is made: a run
        killed mid-way (SIGKILL, a lost machine) keeps what it made and spent."""
        self.run.llm_calls = llm_calls
        self.run.prompt_tokens = prompt_tokens
        self.run.completion_tokens = completion_tokens
        self._save_run()

    def finish(self, messages: list[dict[str, Any]], status: str, **fields: Any) -> None:
        """Close the run: final row, final log, and secrets masked in everything written."""
        self.run.status = status
        self.run.finished_at = datetime.now(UTC)
        for key, value in fields.items():
            setattr(self.run, key, value)
        self.write_log(messages)
        self._save_run()
        self._mask_written()

    def without_secrets(self, value: Any) -> Any:
        """``value`` with the run's secrets masked (in an address, a named one by its
        placeholder): what a file, a row or the printed result may hold."""
        return redact(value, self.secrets, self.named)

    def _save_run(self) -> None:
        """Write the run's row in a transaction of its own."""
        with self.store.transaction() as execute:
            save_run(execute, self._redacted_run())

    def _redacted_run(self) -> RunRow:
        return RunRow(**self.without_secrets(asdict(self.run)))

    def _mask_written(self) -> None:
        """Secrets learnt late (typed after the command named them) are masked after the fact."""
        if not self.secrets:
            return
        self.masked = len(self.secrets)
        if self.iterations_path.exists():
            text = self.without_secrets(self.iterations_path.read_text(encoding="utf-8"))
            self.iterations_path.write_text(text, encoding="utf-8")
            if self.log_in_store:
                keep_iterations(self.store, self.run.id, text)
        rewrite_steps(self.store, self.run.id, self.without_secrets)
        rewrite_decisions(self.store, self.run.id, self.without_secrets)
        self.store.forget_old_versions()
