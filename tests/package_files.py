"""The package's modules by dotted name, wherever they sit in the repository: the
``browser_agent/`` folder and the top-level ``skills/`` folders it installs as
``browser_agent.skills.primitive`` and ``browser_agent.skills.harvested``."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Folder → the dotted name its files are imported under.
FOLDERS = {
    ROOT / "browser_agent": "browser_agent",
    ROOT / "skills" / "primitive": "browser_agent.skills.primitive",
    ROOT / "skills" / "harvested": "browser_agent.skills.harvested",
}


def package_modules() -> dict[str, Path]:
    """Every module (a package by its own name) but alembic's revisions, loaded by alembic."""
    found = {}
    for folder, prefix in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [*prefix.split("."), *path.relative_to(folder).with_suffix("").parts]
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found
