"""Memory: the planner's token-budgeted context with a long-term summary, and memory
across runs kept by a memory manager that answers recall questions."""

from browser_agent.memory.context import Budget, ContextMemory, ContextOverflow
from browser_agent.memory.manager import ManagerLimits, MemoryManager, recall_tool
from browser_agent.memory.tokens import EstimateCounter, TokenCounter, token_counter
from browser_agent.memory.usage import MemoryUsage

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
