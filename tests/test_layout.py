"""The repository's layout as the design card draws it, and the package list that installs it."""

import tomllib
from pathlib import Path

import browser_agent
import browser_agent.skills.harvested
import browser_agent.skills.primitive
from browser_agent.names import __version__

ROOT = Path(__file__).resolve().parent.parent


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _folder(package: str, package_dir: dict[str, str]) -> Path:
    """Where setuptools takes a package from: its own mapping, else its parent's, else the root."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        mapped = package_dir.get(".".join(parts[:cut]))
        if mapped is not None:
            return ROOT / mapped / Path(*parts[cut:])
    return ROOT / Path(*parts)


def test_the_skills_folders_sit_at_the_top_and_logs_stay_out_of_git() -> None:
    assert (ROOT / "skills" / "primitive" / "click.py").is_file()
    assert (ROOT / "skills" / "harvested" / "__init__.py").is_file()
    assert "/logs/" in (ROOT / ".gitignore").read_text().splitlines()  # a checkout's runs
    assert not (ROOT / "skills" / "__init__.py").exists()
    assert Path(browser_agent.skills.primitive.__file__).parent == ROOT / "skills" / "primitive"
    assert Path(browser_agent.skills.harvested.__file__).parent == ROOT / "skills" / "harvested"


def test_every_package_folder_is_listed_and_only_inside_browser_agent() -> None:
    setuptools = _setuptools()
    listed = set(setuptools["packages"])
    assert all(name == "browser_agent" or name.startswith("browser_agent.") for name in listed)

    mapping = setuptools.get("package-dir", {})
    for name in listed:
        assert (_folder(name, mapping) / "__init__.py").is_file(), name

    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "browser_agent").rglob("__init__.py")
    }
    found |= {
        "browser_agent.skills." + ".".join(init.parent.relative_to(ROOT / "skills").parts)
        for init in (ROOT / "skills").rglob("__init__.py")
    }
    assert found == listed


def test_the_release_is_pyproject_s_version() -> None:
    """The release a mark of a checked skill row names (skills.stored) is the package's."""
    assert __version__ == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert browser_agent.__version__ == __version__
