"""A harvested skill as an async function of the caller's own Playwright page."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING

from browser_agent.api.records import OpenStore, Parameter, SkillArgumentError, SkillFailed

if TYPE_CHECKING:
    from playwright.async_api import Page

    from browser_agent.settings import Settings
    from browser_agent.skills.loader import SkillFunction
    from browser_agent.store.rows import SkillRow


class Skill:
    """A harvested skill as an async function of your Playwright page: ``await skill(page,
    search_term="sandals")`` does its steps on that page, with the runtime and checks of a
    routed run (healing, the end-state check, its use counted in the store), and returns
    what it did with the final address. ``start_url`` (a parameter of every skill) opens
    another copy of its site; the page's context takes the settings' timeouts."""

    def __init__(
        self,
        row: SkillRow,
        function: SkillFunction,
        settings: Settings,
        secrets: Mapping[str, str],
    ) -> None:
        self._row, self._function = row, function
        self._settings, self._secrets = settings, dict(secrets)
        self.name, self.version = row.name, row.version
        self.__doc__ = inspect.getdoc(function)
        self.parameters = _parameters(function)

    def __repr__(self) -> str:
        shown = ", ".join(p.name for p in self.parameters)
        return f"<Skill {self.name} v{self.version}({shown})>"

    async def __call__(self, page: Page, /, **params: object) -> str:
        """Run the skill on ``page``; SkillArgumentError for a bad parameter (before any
        step), SkillFailed when it did not do its command."""
        from browser_agent.browser.session import page_session
        from browser_agent.planner.skill_call import call_skill

        arguments = self.arguments(params)
        with OpenStore(self._settings) as store, page_session(page, self._settings) as active:
            active.use_secrets(self._secrets)
            outcome = await call_skill(store, self._row, self._function, arguments)
        if not outcome.ok:
            raise SkillFailed(
                outcome.text,
                kind=outcome.kind,
                stale=outcome.stale_because is not None,
                unverified=outcome.unverified is not None,
            )
        return outcome.text

    def arguments(self, params: Mapping[str, object]) -> dict[str, object]:
        """``params`` checked against the skill's typed signature: SkillArgumentError naming
        a parameter it does not have, one it needs that is missing, or a value of another
        type."""
        known = {p.name: p for p in self.parameters}
        names = ", ".join(known)
        for name in params:
            if name not in known:
                raise SkillArgumentError(
                    f"{self.name} has no parameter {name!r}; its parameters: {names}", name
                )
        for parameter in known.values():
            if parameter.required and parameter.name not in params:
                raise SkillArgumentError(
                    f"{self.name} needs {parameter.name!r} ({parameter.description})",
                    parameter.name,
                )
            if parameter.name in params and not _fits(params[parameter.name], parameter.type):
                value = params[parameter.name]
                raise SkillArgumentError(
                    f"{self.name}: {parameter.name!r} must be {parameter.type}, "
                    f"not {type(value).__name__} ({value!r})",
                    parameter.name,
                )
        return dict(params)


def _parameters(function: SkillFunction) -> list[Parameter]:
    """The parameters of a generated skill function, read from its signature: each is
    ``Annotated[type, "description"]``."""
    found = []
    for parameter in inspect.signature(function).parameters.values():
        annotation, description = parameter.annotation, ""
        if typing.get_origin(annotation) is typing.Annotated:
            annotation, description = typing.get_args(annotation)[:2]
        required = parameter.default is inspect.Parameter.empty
        found.append(
            Parameter(
                name=parameter.name,
                type=_type_name(annotation),
                description=str(description),
                required=required,
                default=None if required else parameter.default,
            )
        )
    return found


def _type_name(annotation: object) -> str:
    """``str``, ``int`` or ``list[str]``: a type as its signature writes it."""
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation)


def _fits(value: object, type_name: str) -> bool:
    """Whether ``value`` is of the type a skill's signature names."""
    if type_name == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "list[str]":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, str)
