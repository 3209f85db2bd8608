"""A reviewed run's page in the console (a real serve process, a real Chromium, the run
kept by the run recorder in a real SQLite store): the person's decisions are numbered
1, 2, 3 in their own order, each saying and linking the step it was made at, and the
steps keep their own numbers with the decision made on them."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.async_api import Browser, expect

from browser_agent.planner.records import RunRecorder
from browser_agent.settings import load_settings
from browser_agent.store.db import open_store
from browser_agent.store.rows import DecisionRow, StepRow
from browser_agent.testing.openai_server import LLMTestServer
from tests.test_console import llm_server, serving, visiting

__all__ = ["llm_server"]  # the test model's server, a fixture of the console's tests

# (tool, decision on it or None when it was not put to the person)
STEPS = [
    ("open_url", None),
    ("enter_text", "approved"),
    ("click", "corrected"),
    ("get_dom", None),
    ("open_url", "rejected"),
    ("click", "approved"),
]


def reviewed_run(workspace: Path) -> str:
    """A run of six steps, four of them decided on (at steps 2, 3, 5 and 6); its id."""
    settings = load_settings().with_overrides(workspace=workspace)
    recorder = RunRecorder.start(
        open_store(settings), settings.logs_dir, "sign up for deals", None, "test-model"
    )
    for index, (tool, verdict) in enumerate(STEPS, start=1):
        arguments = json.dumps({"selector": f"#field-{index}"})
        if verdict is not None:
            recorder.add_decision(
                DecisionRow(
                    run_id="",
                    step=index,
                    verdict=verdict,
                    action=f"{tool} #field-{index}",
                    tool=tool,
                    arguments=arguments,
                    note=f"note {index}",
                )
            )
        recorder.add_step(StepRow("", 0, tool, arguments, f"Did {tool}.", ok=verdict != "rejected"))
    recorder.finish([{"role": "user", "content": "sign up for deals"}], "failed")
    return recorder.run.id


async def test_decisions_have_their_own_numbers_and_name_their_steps(
    tmp_path: Path, browser: Browser, llm_server: LLMTestServer
) -> None:
    run_id = reviewed_run(tmp_path)
    with serving(tmp_path, llm_server) as served:
        async with visiting(browser, served) as page:
            await page.goto(f"{served.origin}/runs/{run_id}")
            rows = page.locator("#decisions tbody tr")
            await expect(rows.locator("td.number")).to_have_text(["1", "2", "3", "4"])
            await expect(rows.locator("td.at-step")).to_have_text(
                ["step 2", "step 3", "step 5", "step 6"]
            )
            await expect(rows.locator("td.verdict")).to_have_text(
                ["approved", "corrected", "rejected", "approved"]
            )
            await expect(page.locator("#decisions thead")).to_contain_text("at step")

            await rows.nth(2).get_by_role("link", name="step 5").click()
            assert page.url.endswith("#step-5")
            step = page.locator("#step-5")
            await expect(step).to_have_attribute("data-tool", "open_url")
            await expect(step.locator("a.decided")).to_have_text("rejected by you")
            await expect(page.locator("#step-4 a.decided")).to_have_count(0)
            await step.locator("a.decided").click()
            assert page.url.endswith("#decision-3")
