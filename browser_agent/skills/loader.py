"""Running a skill module's code: the code the codegen made from a stored plan (see
:mod:`browser_agent.skills.stored`, which checks the plan and makes the code; nothing
read from the store reaches this module as code)."""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Awaitable, Callable

from browser_agent.errors import BrowserAgentError

SkillFunction = Callable[..., Awaitable[str]]


class SkillLoadError(BrowserAgentError, RuntimeError):
    """A skill's code is missing, altered, or does not define its function."""


def source_hash(code: str) -> str:
    """The hash the store keeps beside a skill's code."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def module_function(code: str, name: str, stem: str, origin: str) -> SkillFunction:
    """The async function ``name`` of the generated module ``code``, registered as
    ``browser_agent.skills.harvested.<stem>`` (``origin``: where it came from, for messages)."""
    module_name = f"browser_agent.skills.harvested.{stem}"
    module = types.ModuleType(module_name)
    module.__file__ = f"<{origin}>"
    try:
        # dont_inherit: the module is compiled on its own terms, not with this file's
        # "from __future__ import annotations" (its annotations must stay objects)
        exec(compile(code, module.__file__, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    except Exception as exc:  # a broken module must not break the agent
        raise SkillLoadError(f"Importing {origin} failed: {exc}") from exc
    sys.modules[module_name] = module
    function = getattr(module, name, None)
    if function is None:
        raise SkillLoadError(f"{origin} defines no function {name}")
    return function
