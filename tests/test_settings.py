"""Settings: read from the environment, checked, documented in docs/settings.md, and shown by
``browser-agent info``; the workspace comes from a per-user folder, the environment or
``--workspace``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.settings import (
    Settings,
    SettingsError,
    default_workspace,
    load_settings,
    mask_url,
    settings_table,
)

WORKSPACE_ENV = "BROWSER_AGENT_WORKSPACE"


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No setting from the machine, and a per-user data folder inside the test's tmp_path."""
    for name in list(os.environ):
        if name.startswith(("BROWSER_AGENT_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    yield


def invoke(*args: str) -> tuple[int, str, str]:
    """Run the CLI in this process: exit code, stdout, stderr."""
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


# --- values from the environment ------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("True", True),
        ("true", True),
        ("1", True),
        ("yes", True),
        ("on", True),
        ("YES", True),
        ("False", False),
        ("false", False),
        ("0", False),
        ("no", False),
        ("off", False),
        ("Off", False),
    ],
)
def test_booleans_take_the_usual_spellings(
    raw: str, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HEADED", "USE_SKILLS", "MEMORY_MANAGER", "LLM_TEXT_ACTIONS"):
        monkeypatch.setenv(f"BROWSER_AGENT_{name}", raw)

    settings = load_settings()

    assert settings.headed is expected
    assert settings.headless is not expected
    assert settings.use_skills is expected
    assert settings.memory_manager is expected
    assert settings.llm_text_actions is expected


def test_unset_or_empty_variables_give_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER_AGENT_USE_SKILLS", "")
    monkeypatch.setenv("BROWSER_AGENT_SHORT_TERM_SHARE", "")

    settings = load_settings()

    assert (settings.headed, settings.headless, settings.use_skills) == (False, True, True)
    assert settings.short_term_share == 0.75
    assert settings.action_timeout_ms == 5_000
    assert settings.llm_model == "gpt-4o-mini"
    assert settings.db_url == f"sqlite:///{settings.workspace / 'browser_agent.db'}"


BAD_VALUES = [
    (
        "SHORT_TERM_SHARE",
        "5",
        "BROWSER_AGENT_SHORT_TERM_SHARE must be between 0 and 1, got 5",
    ),
    (
        "SHORT_TERM_SHARE",
        "0",
        "BROWSER_AGENT_SHORT_TERM_SHARE must be more than 0 and at most 1, got 0",
    ),
    (
        "EVICT_TARGET_SHARE",
        "1",
        "BROWSER_AGENT_EVICT_TARGET_SHARE must be at least 0 and less than 1, got 1",
    ),
    (
        "MEMORY_CHAT_COMPRESSION_RATIO",
        "1.5",
        "BROWSER_AGENT_MEMORY_CHAT_COMPRESSION_RATIO must be between 0 and 1, got 1.5",
    ),
    (
        "MEMORY_SHORT_TERM_COMPRESSION_RATIO",
        "0",
        "BROWSER_AGENT_MEMORY_SHORT_TERM_COMPRESSION_RATIO must be more than 0 and at most 1, "
        "got 0",
    ),
    ("ACTION_TIMEOUT_MS", "-100", "BROWSER_AGENT_ACTION_TIMEOUT_MS must be more than 0, got -100"),
    (
        "NAVIGATION_TIMEOUT_MS",
        "0",
        "BROWSER_AGENT_NAVIGATION_TIMEOUT_MS must be more than 0, got 0",
    ),
    ("LLM_TIMEOUT_S", "-1", "BROWSER_AGENT_LLM_TIMEOUT_S must be more than 0, got -1"),
    (
        "CONTEXT_LIMIT_TOKENS",
        "-5",
        "BROWSER_AGENT_CONTEXT_LIMIT_TOKENS must be more than 0, got -5",
    ),
    (
        "ANSWER_RESERVE_TOKENS",
        "0",
        "BROWSER_AGENT_ANSWER_RESERVE_TOKENS must be more than 0, got 0",
    ),
    (
        "SUMMARY_TOKEN_LIMIT",
        "-2",
        "BROWSER_AGENT_SUMMARY_TOKEN_LIMIT must be more than 0, got -2",
    ),
    (
        "MEMORY_SHORT_TERM_SIZE",
        "0",
        "BROWSER_AGENT_MEMORY_SHORT_TERM_SIZE must be more than 0, got 0",
    ),
    (
        "MEMORY_CHAT_CONTEXT_TOKENS",
        "0",
        "BROWSER_AGENT_MEMORY_CHAT_CONTEXT_TOKENS must be more than 0, got 0",
    ),
    (
        "MEMORY_RECALL_TOKENS",
        "-1",
        "BROWSER_AGENT_MEMORY_RECALL_TOKENS must be more than 0, got -1",
    ),
    ("DOM_BUDGET_CHARS", "0", "BROWSER_AGENT_DOM_BUDGET_CHARS must be more than 0, got 0"),
    ("DOM_BUDGET_CHARS", "lots", "BROWSER_AGENT_DOM_BUDGET_CHARS must be a whole number, got lots"),
    ("ACTION_TIMEOUT_MS", "soon", "BROWSER_AGENT_ACTION_TIMEOUT_MS must be a number, got soon"),
    (
        "HEADED",
        "perhaps",
        "BROWSER_AGENT_HEADED must be true or false (yes/no, on/off, 1/0), got perhaps",
    ),
]


@pytest.mark.parametrize(("name", "raw", "message"), BAD_VALUES)
def test_a_bad_value_raises_one_line_naming_the_variable(
    name: str, raw: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"BROWSER_AGENT_{name}", raw)

    with pytest.raises(SettingsError) as raised:
        load_settings()

    assert str(raised.value) == message
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("SHORT_TERM_SHARE", "1"),
        ("EVICT_TARGET_SHARE", "0"),
        ("MEMORY_CHAT_COMPRESSION_RATIO", "1"),
    ],
)
def test_the_closed_ends_of_a_range_are_accepted(
    name: str, raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"BROWSER_AGENT_{name}", raw)

    assert getattr(load_settings(), name.lower()) == float(raw)


def test_two_bad_values_are_both_named_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER_AGENT_SHORT_TERM_SHARE", "5")
    monkeypatch.setenv("BROWSER_AGENT_USE_SKILLS", "2")

    with pytest.raises(SettingsError) as raised:
        load_settings()

    message = str(raised.value)
    assert "\n" not in message
    assert "BROWSER_AGENT_SHORT_TERM_SHARE must be between 0 and 1, got 5" in message
    assert "BROWSER_AGENT_USE_SKILLS must be true or false" in message


def test_openai_variables_are_the_fallback_for_the_llm_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("OPENAI_MODEL", "llama-3")

    fallback = load_settings()
    assert (fallback.llm_api_key, fallback.llm_base_url, fallback.llm_model) == (
        "sk-from-openai",
        "http://127.0.0.1:8000/v1",
        "llama-3",
    )

    monkeypatch.setenv("BROWSER_AGENT_LLM_API_KEY", "sk-own")
    monkeypatch.setenv("BROWSER_AGENT_LLM_BASE_URL", "http://127.0.0.1:9000/v1")
    monkeypatch.setenv("BROWSER_AGENT_LLM_MODEL", "qwen")

    own = load_settings()
    assert (own.llm_api_key, own.llm_base_url, own.llm_model) == (
        "sk-own",
        "http://127.0.0.1:9000/v1",
        "qwen",
    )
    assert "sk-own" not in repr(own)


def test_chromium_is_read_from_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER_AGENT_CHROMIUM", "/opt/chromium/chrome")

    assert load_settings().chromium_path == "/opt/chromium/chrome"


def test_with_overrides_checks_values_ignores_none_and_returns_a_new_object(
    tmp_path: Path,
) -> None:
    base = load_settings()

    changed = base.with_overrides(workspace=tmp_path / "ws" / ".." / "ws", llm_model=None)

    assert changed is not base
    assert changed.workspace == tmp_path / "ws"
    assert changed.llm_model == base.llm_model
    assert base.workspace != changed.workspace
    assert base.with_overrides(headed=True).headless is False
    with pytest.raises(SettingsError, match="^BROWSER_AGENT_SHORT_TERM_SHARE must be between"):
        base.with_overrides(short_term_share=5)
    with pytest.raises(TypeError, match="headles"):
        base.with_overrides(headles=False)
    with pytest.raises(ValidationError):
        base.workspace = tmp_path  # type: ignore[misc]


# --- the workspace ------------------------------------------------------------------------


def test_the_default_workspace_of_a_checkout_is_its_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    root = Path(__file__).resolve().parent.parent

    assert load_settings().workspace == root
    assert load_settings().logs_dir == root / "logs"
    assert load_settings().harvested_dir == root / "skills" / "harvested"


def test_the_default_workspace_of_an_install_is_the_per_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site_packages = tmp_path / "site-packages"
    (site_packages / "browser_agent").mkdir(parents=True)
    assert default_workspace(site_packages) == tmp_path / "data" / "browser-agent"
    assert default_workspace(site_packages) == Path(platformdirs.user_data_dir("browser-agent"))

    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_workspace(site_packages) == (
        tmp_path / "home" / ".local" / "share" / "browser-agent"
    )


def test_the_workspace_setting_names_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WORKSPACE_ENV, "~/skills")
    assert load_settings().workspace == tmp_path / "home" / "skills"


def test_the_workspace_option_overrides_the_environment_for_one_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_env, from_option = tmp_path / "from-env", tmp_path / "from-option"
    monkeypatch.setenv(WORKSPACE_ENV, str(from_env))

    code, out, err = invoke("--workspace", str(from_option), "info", "--json")
    assert code == 0, err
    assert json.loads(out)["workspace"] == str(from_option)

    code, out, err = invoke("--workspace", str(from_option), "runs")
    assert code == 0, err
    assert (from_option / "browser_agent.db").exists()
    assert not (from_env / "browser_agent.db").exists()

    assert os.environ[WORKSPACE_ENV] == str(from_env)
    code, out, err = invoke("info", "--json")
    assert json.loads(out)["workspace"] == str(from_env)


# --- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["runs"],
        ["info"],
        ["show", "some-run"],
        ["run", "search for shoes"],
        ["harvest", "--all"],
        ["skills"],
        ["validate", "--all"],
        ["memory", "list"],
        ["--workspace", ".", "runs"],
    ],
)
def test_every_command_stops_on_a_bad_setting_with_one_line_and_exit_code_2(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "ws"))
    monkeypatch.setenv("BROWSER_AGENT_SHORT_TERM_SHARE", "5")

    code, out, err = invoke(*command)

    assert code == 2
    assert err.strip() == "BROWSER_AGENT_SHORT_TERM_SHARE must be between 0 and 1, got 5"
    assert out == ""
    assert not (tmp_path / "ws").exists()


def test_the_installed_command_prints_no_traceback_for_a_bad_setting(tmp_path: Path) -> None:
    env = {
        **os.environ,
        WORKSPACE_ENV: str(tmp_path / "ws"),
        "BROWSER_AGENT_HEADED": "perhaps",
    }

    done = subprocess.run(
        [sys.executable, "-m", "browser_agent.cli", "runs"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "BROWSER_AGENT_HEADED must be true or false (yes/no, on/off, 1/0), got perhaps"
    ]
    assert "Traceback" not in done.stdout + done.stderr


def test_info_shows_what_a_bug_report_needs_and_masks_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chromium = tmp_path / "chrome"
    chromium.write_text("")
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "ws"))
    monkeypatch.setenv(
        "BROWSER_AGENT_DATABASE_URL", "postgresql://agent:hunter2@db.example:5432/skills"
    )
    monkeypatch.setenv("BROWSER_AGENT_CHROMIUM", str(chromium))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:pa55@127.0.0.1:8000/v1")
    monkeypatch.setenv("OPENAI_MODEL", "llama-3")

    code, out, err = invoke("info", "--json")

    assert code == 0, err
    facts = json.loads(out)
    assert facts["workspace"] == str(tmp_path / "ws")
    assert facts["store"] == "postgresql://agent:***@db.example:5432/skills"
    assert facts["browser"] == f"{chromium} (headless)"
    assert facts["model"] == "llama-3"
    assert facts["llm_endpoint"] == "http://user:***@127.0.0.1:8000/v1"
    assert facts["llm_api_key"] == "set"
    code, text, err = invoke("info")
    assert code == 0, err
    for secret in ("hunter2", "sk-very-secret", "pa55"):
        assert secret not in out + text
    assert "postgresql://agent:***@db.example:5432/skills" in text


def test_info_names_the_offline_planner_and_a_remote_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "ws"))
    monkeypatch.setenv("BROWSER_AGENT_BROWSER_ENDPOINT", "wss://browsers.example/?token=s3cret")

    code, out, err = invoke("info", "--json")

    assert code == 0, err
    facts = json.loads(out)
    assert (facts["model"], facts["llm_endpoint"], facts["llm_api_key"]) == (
        "offline",
        "none",
        "not set",
    )
    assert facts["browser"] == "remote: wss://browsers.example/?token=***"
    assert facts["store"] == f"sqlite:///{tmp_path / 'ws' / 'browser_agent.db'}"
    assert not (tmp_path / "ws").exists()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://user:secret@host/db", "postgresql://user:***@host/db"),
        (
            "postgres://u:p%40ss@h:5432/d?sslmode=require",
            "postgres://u:***@h:5432/d?sslmode=require",
        ),
        ("postgresql+psycopg://u:a:b/c@h/d", "postgresql+psycopg://u:***@h/d"),
        ("postgresql://user@host/db", "postgresql://user@host/db"),
        ("sqlite:////tmp/store.db", "sqlite:////tmp/store.db"),
        ("ws://h:3000/?token=abc&launch=1#x", "ws://h:3000/?token=***&launch=1#x"),
        ("http://h/v1?api_key=k&password=p", "http://h/v1?api_key=***&password=***"),
    ],
)
def test_mask_url_hides_passwords_and_secret_query_values(url: str, shown: str) -> None:
    assert mask_url(url) == shown


# --- the settings table (docs/settings.md; tests/test_docs.py keeps it current) ----------


def test_the_settings_table_lists_every_variable_with_its_default() -> None:
    rows = {row.split("`")[1]: row.split(" | ") for row in settings_table().splitlines()[2:]}

    assert len(rows) == len(Settings.model_fields)
    assert rows["BROWSER_AGENT_SHORT_TERM_SHARE"][1:3] == ["`0.75`", "> 0, ≤ 1"]
    assert rows["BROWSER_AGENT_HEADED"][1] == "`false`"
    assert rows["BROWSER_AGENT_WORKSPACE"][1].startswith("the checkout's root in a checkout")
    assert (
        rows["BROWSER_AGENT_LLM_API_KEY"][0] == "| `BROWSER_AGENT_LLM_API_KEY` or `OPENAI_API_KEY`"
    )
