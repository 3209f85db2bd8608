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


#: The most lines a module, a class and a function may have; the run's own modules
#: (browser_agent/skills: finding, effects, healing, replay, the end-state check) fewer.
MOST_LINES = {"module": 600, "class": 300, "function": 80, "run module": 400}


def too_long(source: str, name: str, run_module: bool = False) -> list[str]:
    """The module, classes and functions of ``source`` longer than MOST_LINES allows."""
    found = []
    most = MOST_LINES["run module" if run_module else "module"]
    if source.count("\n") > most:
        found.append(f"{name}: {source.count(chr(10))} lines")
    for node in ast.walk(ast.parse(source)):
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > MOST_LINES[kind]:
                found.append(f"{name}: {kind} {node.name}, {lines} lines")
    return found


def test_no_module_class_or_function_is_longer_than_a_newcomer_reads_at_once() -> None:
    found = []
    for path in sorted((ROOT / "browser_agent").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        found += too_long(
            path.read_text(), name, run_module=name.startswith("browser_agent/skills/")
        )
    assert not found, found


def test_an_over_long_module_class_and_function_are_found() -> None:
    function = "    def long(self) -> None:\n" + "".join(f"        x{i} = {i}\n" for i in range(81))
    rest_of_class = "".join(f"    a{i} = {i}\n" for i in range(230))
    module = "".join(f"y{i} = {i}\n" for i in range(300))
    source = "class Big:\n" + function + rest_of_class + module
    assert too_long(source, "big.py") == [
        "big.py: 613 lines",
        "big.py: class Big, 313 lines",
        "big.py: function long, 82 lines",
    ]
    run_module = "".join(f"y{i} = {i}\n" for i in range(450))
    assert too_long(run_module, "skills/x.py") == []
    assert too_long(run_module, "skills/x.py", run_module=True) == ["skills/x.py: 450 lines"]
