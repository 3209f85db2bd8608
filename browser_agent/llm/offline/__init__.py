"""The offline planner: a deterministic, LLM-free planner behind the LLM client protocol."""

from browser_agent.llm.offline.planner import OfflinePlanner, plan_next

__all__ = ["OfflinePlanner", "plan_next"]
