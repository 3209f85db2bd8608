"""The package's import graph, read from the code: no modules that import each other in a
circle, and no module importing from a layer above its own.

Every import counts, at the top of a module, inside a function or under TYPE_CHECKING: a
lazy import is still a dependency. Layers, top to bottom: the command line (``cli/``, which
holds every command), the surfaces (the Python API, the console, the MCP server, cluster,
record, validate, feedback, the shipped test helpers, the demo), the agent (the planner
with its router, and memory), the harvester (which writes skills, and is needed for
nothing else), the skills' runtime (loading and checking a stored skill, replaying it,
renewing its login, judging where it ended, and the runtime generated skills import), a
skill's plan and the code made from it (``plans/``: the runtime makes a stored plan's
module with it), the primitives, the store, the browser (its sessions, and get_dom and
find_elements observing the page through one) and the model clients, the page library and
the settings, and the ground (the product's names, secrets, the site boundary, the errors,
how texts are compared)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.package_files import package_modules

#: The command line: every command, and what only commands share. The top layer.
COMMAND_LINE = ("browser_agent.__main__", "browser_agent.cli")

#: Module prefixes of each layer, top first; a module's layer is its longest prefix's.
LAYERS: list[tuple[str, ...]] = [
    COMMAND_LINE,
    (  # the surfaces
        "browser_agent.api",
        "browser_agent.console",
        "browser_agent.mcp_server",
        "browser_agent.cluster",
        "browser_agent.record",
        "browser_agent.validate",
        "browser_agent.watch",
        "browser_agent.testing",
        "browser_agent.demo",
        "browser_agent.demo_site",
        "browser_agent.feedback",
    ),
    ("browser_agent.planner", "browser_agent.memory"),  # the agent
    ("browser_agent.harvest",),  # the harvester
    ("browser_agent.skills",),  # the skills' runtime
    ("browser_agent.plans",),  # a skill's plan and the code made from it
    ("browser_agent.skills.primitive", "browser_agent.skills.harvested"),  # the primitives
    ("browser_agent.store",),
    ("browser_agent.browser", "browser_agent.llm", "browser_agent.tools"),
    ("browser_agent.dom", "browser_agent.settings"),  # the page library, the settings
    (  # the ground
        "browser_agent",
        "browser_agent.names",
        "browser_agent.errors",
        "browser_agent.secrets",
        "browser_agent.sites",
        "browser_agent.storage_state",
        "browser_agent.words",
    ),
]


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    return package_modules()


def imported_names(tree: ast.AST) -> Iterator[str]:
    """The dotted names a module's imports name, anywhere in it (``from a import b`` gives
    ``a.b``, which is a module or a name in ``a``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def public_names_left_out(tree: ast.Module) -> ast.Module:
    """The package root without its public names (``from browser_agent import Agent``): the
    imports under ``if TYPE_CHECKING:`` and in its ``__getattr__`` load the API on first
    use, the top of the graph, while the rest of the package imports the root's constants."""
    kept = [
        node
        for node in tree.body
        if not (isinstance(node, ast.FunctionDef) and node.name == "__getattr__")
        and not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    ]
    return ast.Module(body=kept, type_ignores=[])


def import_graph() -> dict[str, set[str]]:
    """Module → the package's modules it imports."""
    known = modules()

    def module_of(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = _parse(path.read_text(encoding="utf-8"))
        if name == "browser_agent":
            tree = public_names_left_out(tree)
        targets = {module_of(imported) for imported in imported_names(tree)}
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def _parse(source: str) -> ast.Module:
    """``ast.parse``, once more after Python 3.11's "AST constructor recursion depth
    mismatch": its AST state is shared by threads, and a server thread of another test
    formatting a traceback (which parses its source line) can race the parse."""
    try:
        return ast.parse(source)
    except SystemError:
        return ast.parse(source)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str) -> int:
    """The layer of ``module``: 0 is the command line."""
    best, layer = "", None
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
                best, layer = prefix, number
    assert layer is not None, f"{module} is on no layer"
    return layer


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Each import from a lower layer into a higher one, as ``importer -> imported``."""
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if layer_of(target) < layer_of(source)
    )


def test_the_graph_is_read_from_the_code() -> None:
    graph = import_graph()
    assert "browser_agent.errors" in graph["browser_agent.cli.group"]
    assert "browser_agent.skills.primitive" in graph["browser_agent.plans.codegen"]
    assert len(graph) > 100


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert circles(import_graph()) == []


def test_no_module_imports_from_a_higher_layer() -> None:
    assert upward(import_graph()) == []


def test_only_the_command_line_and_the_surfaces_import_the_harvester() -> None:
    """The harvester makes skills and is needed for nothing else: the agent, the skills'
    runtime (which makes a stored skill's module with ``plans/``), the store and the browser
    run without it."""
    harvester = "browser_agent.harvest"
    users = sorted(
        f"{source} -> {target}"
        for source, targets in import_graph().items()
        for target in targets
        if (target == harvester or target.startswith(harvester + "."))
        and not (source == harvester or source.startswith(harvester + "."))
        and layer_of(source) > 1
    )
    assert users == []


def in_command_line(module: str) -> bool:
    """Whether ``module`` is of the command line."""
    return any(module == top or module.startswith(top + ".") for top in COMMAND_LINE)


def test_the_command_line_is_the_top_layer_and_holds_every_command() -> None:
    """No module outside ``cli/`` (and ``python -m browser_agent``) imports the command line,
    and none imports typer: every command, and every option of one, is a module of ``cli/``."""
    graph = import_graph()
    assert layer_of("browser_agent.cli.app") == 0
    assert all(layer_of(module) > 0 for module in graph if not in_command_line(module))
    into = sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if in_command_line(target) and not in_command_line(source)
    )
    assert into == []
    typer_users = sorted(
        name
        for name, path in modules().items()
        if not in_command_line(name)
        and any(
            imported.split(".")[0] == "typer"
            for imported in imported_names(_parse(path.read_text(encoding="utf-8")))
        )
    )
    assert typer_users == []
    assert {"browser_agent.cli.harvest", "browser_agent.cli.watch"} <= set(graph)


def test_every_module_is_on_a_layer() -> None:
    for module in import_graph():
        layer_of(module)


def test_a_circle_and_an_upward_import_are_found() -> None:
    graph = {
        "browser_agent.settings": {"browser_agent.browser.session"},
        "browser_agent.browser.session": {"browser_agent.settings"},
        "browser_agent.store.db": {"browser_agent.cli"},
    }
    assert circles(graph) == [["browser_agent.browser.session", "browser_agent.settings"]]
    assert upward(graph) == [
        "browser_agent.settings -> browser_agent.browser.session",
        "browser_agent.store.db -> browser_agent.cli",
    ]


#: What makes an ORM query or opens an ORM session.
ORM_QUERIES = ("sqlmodel.Session", "sqlmodel.select", "sqlmodel.delete", "sqlmodel.col")


def orm_queries_outside_the_store() -> list[str]:
    """Each module outside ``browser_agent.store`` that imports what queries through the
    ORM, as ``module -> name``."""
    return sorted(
        f"{name} -> {imported}"
        for name, path in modules().items()
        if not (name == "browser_agent.store" or name.startswith("browser_agent.store."))
        for imported in imported_names(_parse(path.read_text(encoding="utf-8")))
        if imported in ORM_QUERIES or imported.startswith("sqlalchemy.orm")
    )


def test_orm_queries_are_made_in_the_store_alone() -> None:
    """The store's tables are queried through the ORM only by ``store/``'s modules: every
    other layer asks a store function, so a table's queries live beside it."""
    assert orm_queries_outside_the_store() == []
