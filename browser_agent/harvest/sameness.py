"""Which parts of a skill's targets say what it does, and which only describe the example
the run acted on. Two harvests of one task that act on the same controls the same way
are one version, though the example values (the product opened, the text near a button)
differ: a target found by a command's value keeps only its role and tag, a fixed target
its selector, role, name and tag. A module's fingerprint is what it does with these
parts alone, without what only says where it came from."""

from __future__ import annotations

import ast

# What a fixed target (one the skill always acts on) is: the rest is its example's look.
FIXED_FIELDS = {"step", "selector", "role", "name", "tag"}
# What a target found by a value of the command is: its selector and name are the example's.
BY_VALUE_FIELDS = {"step", "role", "tag"}


def by_value(tree: ast.AST) -> set[str]:
    """The names of the targets the module finds by a value (``find(STEP_n, name=...)``)."""
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "find"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and any(k.arg in ("name", "nth") for k in node.keywords)
        ):
            found.add(node.args[0].id)
    return found


def essential_targets(tree: ast.Module) -> ast.Module:
    """``tree`` with each ``STEP_n = Target(...)`` cut to the fields that say what it is."""
    valued = by_value(tree)
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "Target"
        ):
            continue
        kept = BY_VALUE_FIELDS if node.targets[0].id in valued else FIXED_FIELDS
        node.value.keywords = [k for k in node.value.keywords if k.arg in kept]
    return tree


class _WithoutProvenance(ast.NodeTransformer):
    """Drops docstrings, parameter descriptions and the summary sentence of the answer."""

    def visit_Module(self, node: ast.Module) -> ast.AST:
        node.body = _without_docstring(node.body)
        return self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.body = _without_docstring(node.body)
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        """``Annotated[str, "..."]`` becomes ``Annotated[str]``."""
        if _is_name(node.value, "Annotated") and isinstance(node.slice, ast.Tuple):
            node.slice = node.slice.elts[0]
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        """``done("Summary.", ...)`` becomes ``done("", ...)``."""
        if _is_name(node.func, "done") and node.args:
            node.args[0] = ast.Constant("")
        return self.generic_visit(node)


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return body[1:] or [ast.Pass()]
    return body


def module_fingerprint(code: str) -> str:
    """What a generated module does, without the parts that only say where it came from:
    docstrings, parameter descriptions (they quote the run's example values), the summary
    sentence the skill's answer starts with and what its targets' records say about the
    example (see essential_targets). Two runs of one command shape that
    act on the same elements the same way give the same fingerprint; SyntaxError when
    ``code`` does not parse."""
    tree = _WithoutProvenance().visit(essential_targets(ast.parse(code)))
    return ast.dump(tree, annotate_fields=False)


def same_module(code: str, other: str | None) -> bool:
    """True when both modules do the same (see module_fingerprint); False when ``other``
    is missing or does not parse."""
    if other is None:
        return False
    try:
        return module_fingerprint(code) == module_fingerprint(other)
    except SyntaxError:
        return False
