"""The repository's layout as the design card draws it, and the package list that installs it."""

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def _runtime_imports(tree: ast.Module) -> set[str]:
    """The top-level names a module imports when it runs (not under ``if TYPE_CHECKING:``)."""
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for inner in block.body
        for node in ast.walk(inner)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_every_package_the_code_imports_is_declared() -> None:
    """Every distribution the package imports at run time is a dependency of pyproject.toml
    (an extra counts): none is there only because another happens to bring it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *sum(project["optional-dependencies"].values(), [])]
    declared = {canonicalize_name(Requirement(line).name) for line in wanted}
    by_module = packages_distributions()
    missing = {}
    for path in (ROOT / "browser_agent").rglob("*.py"):
        for name in _runtime_imports(ast.parse(path.read_text())):
            if name in sys.stdlib_module_names or name == "browser_agent":
                continue
            owners = {canonicalize_name(d) for d in by_module.get(name, [name])}
            if not owners & declared:
                missing.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert not missing, missing
