"""Which parts of a skill's targets say what it does, and which only describe the example
the run acted on. Two harvests of one task that act on the same controls the same way
are one version, though the example values (the product opened, the text near a button)
differ: a target found by a command's value keeps only its role and tag, a fixed target
its selector, role, name and tag."""

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
