"""Which Chromium a launch uses: the configured one, Playwright's own, else the system's,
and for a headless launch the system's headless shell before the full browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_agent.browser.chromium import find_chromium


def _executables(folder: Path, *names: str) -> None:
    for name in names:
        path = folder / name
        path.write_text("#!/bin/sh\n", encoding="utf-8")
        path.chmod(0o755)


def test_headless_launch_prefers_the_headless_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _executables(tmp_path, "chromium", "chromium-headless-shell")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_chromium(None, None, headless=True) == str(tmp_path / "chromium-headless-shell")
    assert find_chromium(None, None) == str(tmp_path / "chromium")  # a window needs the browser


def test_headless_launch_without_a_shell_uses_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _executables(tmp_path, "chromium")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_chromium(None, None, headless=True) == str(tmp_path / "chromium")


def test_configured_and_bundled_come_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _executables(tmp_path, "chromium-headless-shell", "mine")
    monkeypatch.setenv("PATH", str(tmp_path))
    mine = str(tmp_path / "mine")
    assert find_chromium(mine, None, headless=True) == mine
    assert find_chromium(None, mine, headless=True) is None  # Playwright launches its own
