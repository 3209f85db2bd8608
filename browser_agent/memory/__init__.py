"""Memory: the planner's token-budgeted context with a long-term summary, and memory
across runs kept by a memory manager that answers recall questions.

The names below load on first use, so ``browser-agent memory`` and the other commands do
not pay for the store and the token counter when they only start."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from browser_agent.memory.context import Budget, ContextMemory, ContextOverflow
    from browser_agent.memory.manager import ManagerLimits, MemoryManager, recall_tool
    from browser_agent.memory.tokens import EstimateCounter, TokenCounter, token_counter
    from browser_agent.memory.usage import MemoryUsage

_WHERE = {
    "Budget": "context",
    "ContextMemory": "context",
    "ContextOverflow": "context",
    "ManagerLimits": "manager",
    "MemoryManager": "manager",
    "recall_tool": "manager",
    "EstimateCounter": "tokens",
    "TokenCounter": "tokens",
    "token_counter": "tokens",
    "MemoryUsage": "usage",
}

__all__ = [
    "Budget",
    "ContextMemory",
    "ContextOverflow",
    "EstimateCounter",
    "ManagerLimits",
    "MemoryManager",
    "MemoryUsage",
    "TokenCounter",
    "recall_tool",
    "token_counter",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
