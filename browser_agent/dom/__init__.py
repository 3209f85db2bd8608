"""Page observation: mmid annotation, the distilled DOM and element descriptions."""

from browser_agent.dom.observe import CONTENT_TYPES, Observation, observe_page

__all__ = ["CONTENT_TYPES", "Observation", "observe_page"]
