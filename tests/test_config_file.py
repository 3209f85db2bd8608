"""The config file beside the settings: ``config.toml`` in the per-user config folder, or
the file ``BROWSER_AGENT_CONFIG`` names; command-line options over environment variables
over the file over the defaults, and a bad file is one line naming it (exit code 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.settings import default_workspace

# An endpoint, so that info shows the model named rather than the offline planner.
ENDPOINT = 'llm_base_url = "http://127.0.0.1:9/v1"\n'


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No setting from the machine; the per-user folders inside the test's tmp_path."""
    for name in list(os.environ):
        if name.startswith(("BROWSER_AGENT_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def info(*options: str) -> dict[str, str]:
    """``browser-agent [OPTIONS] info --json``, run in this process."""
    result = CliRunner().invoke(app, [*options, "info", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def written(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_file_in_the_user_config_folder_is_read_under_variables_and_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_file, from_env, from_option = (tmp_path / name for name in ("file", "env", "option"))
    path = written(
        tmp_path / "config" / "browser-agent" / "config.toml",
        f'workspace = "{from_file}"\n{ENDPOINT}llm_model = "file-model"\n',
    )
    assert info()["config"] == str(path)
    assert info()["workspace"] == str(from_file)
    assert info()["model"] == "file-model"

    monkeypatch.setenv("BROWSER_AGENT_WORKSPACE", str(from_env))
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    assert info()["workspace"] == str(from_env)
    assert info()["model"] == "env-model"  # the usual OpenAI variable is a variable too

    assert info("--workspace", str(from_option))["workspace"] == str(from_option)


def test_the_file_the_variable_names_is_read_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written(tmp_path / "config" / "browser-agent" / "config.toml", 'llm_model = "default-file"\n')
    named = written(tmp_path / "elsewhere.toml", f'{ENDPOINT}llm_model = "named-file"\n')
    monkeypatch.setenv("BROWSER_AGENT_CONFIG", str(named))
    assert info()["model"] == "named-file"


def test_without_a_file_the_defaults_hold(tmp_path: Path) -> None:
    where = tmp_path / "config" / "browser-agent" / "config.toml"
    assert info()["config"] == f"none ({where} is not there)"
    assert info()["workspace"] == str(default_workspace())
    assert info()["llm_endpoint"] == "none"  # no endpoint and no key: the offline planner


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("headed = maybe\n", "not valid TOML: Invalid value (at line 1, column 10)"),
        ('llm_modle = "x"\n', "llm_modle is not a setting (did you mean llm_model?)"),
        ('headed = "perhaps"\n', "headed must be true or false"),
        ("action_timeout_ms = -5\n", "action_timeout_ms must be more than 0, got -5"),
        ("llm_model = 5\n", "llm_model must be text, in quotes, got 5"),
    ],
    ids=["syntax", "unknown key", "not a yes or no", "out of range", "not text"],
)
def test_a_bad_config_file_is_one_line_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = written(tmp_path / "config" / "browser-agent" / "config.toml", text)
    done = subprocess.run(
        [sys.executable, "-m", "browser_agent", "skills"],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(f"{path}: ")
    assert said in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_named_file_that_is_not_there_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER_AGENT_CONFIG", str(tmp_path / "nowhere.toml"))
    result = CliRunner().invoke(app, ["skills"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"BROWSER_AGENT_CONFIG names {tmp_path / 'nowhere.toml'}, which is not a file"
    )


def test_a_variable_set_over_a_bad_file_value_still_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is checked as it is: a variable that hides its mistake leaves it wrong."""
    path = written(tmp_path / "config" / "browser-agent" / "config.toml", "headed = 7\n")
    monkeypatch.setenv("BROWSER_AGENT_HEADED", "false")
    result = CliRunner().invoke(app, ["skills"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{path}: headed must be true or false")


def test_the_example_in_the_docs_is_a_config_file_that_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (Path(__file__).parent.parent / "docs" / "settings.md").read_text(encoding="utf-8")
    example = page.split("```toml\n", 1)[1].split("```", 1)[0]
    monkeypatch.setenv("BROWSER_AGENT_CONFIG", str(written(tmp_path / "c.toml", example)))
    shown = info()
    assert shown["model"] == "qwen2.5-coder-1.5b"
    assert shown["llm_endpoint"] == "http://127.0.0.1:8000/v1"


def test_a_bad_key_value_in_the_file_is_not_printed(tmp_path: Path) -> None:
    written(tmp_path / "config" / "browser-agent" / "config.toml", "llm_api_key = 918273645\n")
    result = CliRunner().invoke(app, ["skills"])
    assert result.exit_code == 2
    assert "llm_api_key must be text, in quotes, the value is not shown" in result.stderr
    assert "918273645" not in result.output
