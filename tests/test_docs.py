"""The docs agree with the code: every command's --help and the settings table in docs/ are
the ones the code makes today (scripts/docs.py regenerates them), every setting the docs
name exists, every example command line uses options its command has, and every link
between the pages (and to the console's pictures) leads somewhere."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.main import get_command

from browser_agent.cli.app import app
from browser_agent.secrets import ENV_PREFIX as SECRET_PREFIX
from browser_agent.settings import CONFIG_ENV, Settings, env_names, settings_table

ROOT = Path(__file__).resolve().parent.parent


def _load_docs_script() -> ModuleType:
    """scripts/docs.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("docs_script", ROOT / "scripts" / "docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


docs = _load_docs_script()
GENERATED = re.compile(r"<!-- \[\[\[cog.*?\[\[\[end\]\]\] -->", re.DOTALL)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _written_by_hand(path: Path) -> str:
    """A doc file's text without its generated blocks."""
    return GENERATED.sub("", _text(path))


def test_the_generated_blocks_are_what_the_code_makes() -> None:
    stale = docs.stale()

    assert not stale, (
        "the docs disagree with the code; run: .venv/bin/python scripts/docs.py --write\n"
        + "\n".join(stale.values())
    )


@pytest.mark.parametrize(
    "path", list(docs.command_paths()), ids=lambda path: " ".join(["browser-agent", *path])
)
def test_every_command_has_its_help_in_the_docs(path: list[str]) -> None:
    help_page = _text(ROOT / "docs" / "help.md")
    title = " ".join(["browser-agent", *path])

    assert f"## `{title}`\n\n```text\n{docs.command_help(path)}\n```" in help_page, (
        f"docs/help.md has no current --help of {title}; run: {docs.WRITE_HINT}"
    )


def test_the_settings_page_has_the_table_of_every_setting() -> None:
    table = settings_table()

    assert table in _text(ROOT / "docs" / "settings.md"), f"run: {docs.WRITE_HINT}"
    for name in Settings.model_fields:
        assert f"`{env_names(name)[0]}`" in table


def test_every_setting_the_docs_name_is_a_setting() -> None:
    known = {variable for name in Settings.model_fields for variable in env_names(name)}
    known.add(CONFIG_ENV)  # the config file's own variable
    unknown = set()
    for path in docs.doc_files():
        for variable in re.findall(r"\b(?:BROWSER_AGENT|OPENAI)_[A-Z0-9_]*[A-Z0-9]", _text(path)):
            if variable not in known and not f"{variable}_".startswith(SECRET_PREFIX):
                unknown.add(f"{path.relative_to(ROOT)}: {variable}")

    assert not unknown, "the docs name settings the code does not have:\n" + "\n".join(
        sorted(unknown)
    )


def _example_command_lines() -> list[tuple[str, str]]:
    """Every ``browser-agent ...`` line of the docs' code blocks and inline code, by file."""
    found = []
    command = re.compile(r"^\s*((?:\.venv/bin/)?browser-agent(?: .*)?)$")
    for path in docs.doc_files():
        for line in _written_by_hand(path).splitlines():
            codes = [line] if line.startswith("    ") else re.findall(r"`([^`]+)`", line)
            found += [(path.name, m) for code in codes for m in command.findall(code)]
    return found


def _unknown_options(words: list[str]) -> list[str]:
    """The options in ``words`` (a command line after ``browser-agent``) its command lacks."""
    command = get_command(app)
    unknown = []
    words = [word.strip("[]") for word in words]
    while words:
        word = words.pop(0)
        subcommands = getattr(command, "commands", {})
        if word.startswith("-"):
            names = {"-h", "--help"}
            for param in command.params:
                names.update(getattr(param, "opts", []), getattr(param, "secondary_opts", []))
            if word.split("=")[0] not in names:
                unknown.append(f"{word} (not an option of '{command.name}')")
        elif word in subcommands:
            command = subcommands[word]
            if hasattr(command, "shortcut"):  # watch "COMMAND" is watch add "COMMAND"
                words = command.shortcut(words)
    return unknown


def test_the_example_command_lines_use_options_their_commands_have() -> None:
    examples = _example_command_lines()
    wrong = [
        f"{name}: {line}: {', '.join(unknown)}"
        for name, line in examples
        if (unknown := _unknown_options(shlex.split(line, comments=True)[1:]))
    ]

    assert len(examples) > 40
    assert not wrong, "example command lines with options their command lacks:\n" + "\n".join(wrong)


def _anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _leads_somewhere(page: Path, target: str) -> bool:
    """Whether a relative link of ``page`` names a file that exists, and a heading in it."""
    file, _, anchor = target.partition("#")
    linked = (page.parent / file).resolve() if file else page
    if not linked.exists():
        return False
    return not anchor or anchor in map(_anchor, re.findall(r"^#+ (.+)$", _text(linked), re.M))


def test_the_links_between_the_pages_lead_somewhere() -> None:
    broken = [
        f"{path.relative_to(ROOT)}: {target}"
        for path in docs.doc_files()
        for target in re.findall(r"\]\(([^)\s]+)\)", _text(path))
        if not re.match(r"[a-z]+:", target) and not _leads_somewhere(path, target)
    ]

    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)
