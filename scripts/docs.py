"""Regenerate the docs' generated blocks from the code: every command's --help, the settings
table, the map of the packages.

    .venv/bin/python scripts/docs.py --write   # rewrite the blocks in README.md and docs/*.md
    .venv/bin/python scripts/docs.py --check   # exit 1, with a diff, when a block is out of date

A block is cog code (cogapp) between ``<!-- [[[cog ... ]]] -->`` and ``<!-- [[[end]]] -->``;
its output is what the code says today, the text around it is left as it is. Help is
rendered at a fixed width of 100 columns and without colour, so it reads the same on
every machine.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 100
PROG = "browser-agent"
WRITE_HINT = ".venv/bin/python scripts/docs.py --write"


def doc_files() -> list[Path]:
    """The files that may hold generated blocks: README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def command_paths() -> Iterator[list[str]]:
    """Every command and subcommand of the command line, as its words after ``browser-agent``."""
    from typer.main import get_command

    from browser_agent.cli.app import app

    def walk(command: object, path: list[str]) -> Iterator[list[str]]:
        yield path
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    yield from walk(get_command(app), [])


def command_help(path: list[str]) -> str:
    """``browser-agent PATH --help`` as plain text at WIDTH columns, trailing blanks cut."""
    import typer.rich_utils as rich_help
    from typer.testing import CliRunner

    from browser_agent.cli.app import app

    # Typer reads these once at import from the environment (TERMINAL_WIDTH, FORCE_COLOR):
    # fixed while rendering, so neither the terminal nor CI changes the text.
    fixed = {"MAX_WIDTH": WIDTH, "FORCE_TERMINAL": False, "COLOR_SYSTEM": None}
    before = {name: getattr(rich_help, name) for name in fixed}
    for name, value in fixed.items():
        setattr(rich_help, name, value)
    try:
        result = CliRunner().invoke(app, [*path, "--help"], prog_name=PROG, env={"NO_COLOR": "1"})
    finally:
        for name, value in before.items():
            setattr(rich_help, name, value)
    if result.exit_code != 0:
        raise RuntimeError(f"{PROG} {' '.join(path)} --help exited {result.exit_code}")
    return "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")


def help_pages() -> str:
    """A heading and the --help text of every command, for docs/help.md."""
    sections = []
    for path in command_paths():
        title = " ".join([PROG, *path])
        sections.append(f"## `{title}`\n\n```text\n{command_help(path)}\n```\n")
    return "\n".join(sections)


def settings_table() -> str:
    """The settings table, made from the Settings model."""
    from browser_agent.settings import settings_table as table

    return table() + "\n"


def package_map() -> str:
    """One line per subpackage of browser_agent: its folder and the first sentence of its
    docstring, so the map in docs/development.md names every room as the code does."""
    import ast
    import re

    lines = []
    for init in sorted((ROOT / "browser_agent").glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        paragraph = " ".join(doc.split("\n\n")[0].split())
        first = re.split(r"(?<=[.])\s", paragraph, maxsplit=1)[0]
        lines.append(f"- `browser_agent/{init.parent.name}`: {first}")
    return "\n".join(lines) + "\n"


def regenerated(path: Path) -> str:
    """``path``'s text with every generated block made anew."""
    from cogapp import Cog

    text = path.read_text(encoding="utf-8")
    out = io.StringIO()
    blocks = {
        "help_pages": help_pages,
        "settings_table": settings_table,
        "package_map": package_map,
    }
    Cog().process_file(io.StringIO(text), out, fname=str(path), globals=blocks)
    return out.getvalue()


def stale() -> dict[Path, str]:
    """Each doc file whose generated blocks differ from the code, with the unified diff."""
    found = {}
    for path in doc_files():
        current, fresh = path.read_text(encoding="utf-8"), regenerated(path)
        if current != fresh:
            name = str(path.relative_to(ROOT))
            diff = difflib.unified_diff(
                current.splitlines(), fresh.splitlines(), f"{name} (now)", f"{name} (from the code)"
            )
            found[path] = "\n".join(line.rstrip("\n") for line in diff)
    return found


def main() -> int:
    """Rewrite (--write) or compare (--check) the generated blocks; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the blocks in place")
    mode.add_argument("--check", action="store_true", help="only say whether they are current")
    args = parser.parse_args()
    if args.check:
        found = stale()
        for path, diff in found.items():
            print(f"{path.relative_to(ROOT)}: out of date\n{diff}")
        print(f"run: {WRITE_HINT}" if found else "docs: every generated block is current")
        return 1 if found else 0
    for path in doc_files():
        fresh = regenerated(path)
        if fresh != path.read_text(encoding="utf-8"):
            path.write_text(fresh, encoding="utf-8")
            print(f"{path.relative_to(ROOT)}: rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
