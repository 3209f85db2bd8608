"""A skill's plan as the store keeps it: JSON text that pydantic checks when it is read.

The plan (steps, targets, parameters, templates, site) is data: read back, it is only ever
handed to the code generator, which builds the module from it as a libcst tree. Reading is
strict: unknown fields, a value of the wrong type, a name that is not a plain identifier,
a primitive or parameter that does not exist, all refuse the plan (PlanInvalid).
"""

from __future__ import annotations

import json
import keyword
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)

from browser_agent.errors import BrowserAgentError
from browser_agent.plans.plan import (
    RESERVED_NAMES,
    BuiltUrl,
    ByRoleName,
    Cased,
    ElementRecord,
    NthOfRole,
    Param,
    PlannedStep,
    SkillPlan,
)
from browser_agent.skills.primitive import PRIMITIVES

FORMAT = 1  # the plan format the store's plan column holds
START_URL = "start_url"  # the parameter every skill has: the page it starts from


class PlanInvalid(BrowserAgentError, ValueError):
    """A stored plan that does not parse or does not validate."""


def _name(value: str) -> str:
    if not value.isidentifier() or keyword.iskeyword(value) or value in RESERVED_NAMES:
        raise ValueError(f"not a parameter name: {value!r}")
    return value


def _primitive(value: str) -> str:
    if value not in PRIMITIVES:
        raise ValueError(f"not a primitive: {value!r}")
    return value


Name = Annotated[StrictStr, AfterValidator(_name)]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ParamData(_Data):
    name: Name
    description: StrictStr
    example: StrictInt | StrictStr | list[StrictStr]
    kind: Literal["str", "int", "list", "path", "ordinal", "case"]
    said: StrictStr


class ParamRef(_Data):
    kind: Literal["param"]
    param: Name


class StartUrlData(_Data):
    """The skill's own ``start_url`` argument (the page it starts from), as first opened."""

    kind: Literal["start_url"]
    example: StrictStr


class ByRoleNameData(_Data):
    kind: Literal["by_role_name"]
    role: StrictStr
    param: Name
    before: StrictStr = ""
    after: StrictStr = ""
    within: StrictBool = False


class NthOfRoleData(_Data):
    kind: Literal["nth_of_role"]
    role: StrictStr
    param: Name


class CasedData(_Data):
    kind: Literal["cased"]
    param: Name
    case: ParamRef | Literal["upper", "lower"]


class BuiltUrlData(_Data):
    kind: Literal["url"]
    parts: list[StrictStr | ParamRef]


Reference = Annotated[
    ParamRef | StartUrlData | ByRoleNameData | NthOfRoleData | CasedData | BuiltUrlData,
    Field(discriminator="kind"),
]
Argument = Reference | StrictBool | StrictInt | StrictFloat | StrictStr


class TargetData(_Data):
    selector: StrictStr
    role: StrictStr
    name: StrictStr
    tag: StrictStr
    text: StrictStr
    attributes: dict[StrictStr, StrictStr]
    xpath: StrictStr
    context: dict[StrictStr, StrictStr | StrictInt]


class StepData(_Data):
    primitive: Annotated[StrictStr, AfterValidator(_primitive)]
    arguments: dict[StrictStr, Argument]
    targets: dict[StrictStr, TargetData]
    navigated_to: StrictStr | None
    path_varies: StrictBool
    appeared: StrictBool
    checked: StrictBool
    accept_dialogs: StrictBool | None
    address: BuiltUrlData | None = None


class PlanData(_Data):
    format: Literal[1]
    command: StrictStr
    template: StrictStr
    params: list[ParamData]
    steps: list[StepData] = Field(min_length=1)
    start_url: StrictStr
    end_url: StrictStr
    ended_because: StrictStr
    source: StrictStr
    dropped: list[StrictStr]
    left_out: list[StrictStr]
    lacks: StrictStr = ""
    done_template: StrictStr = ""
    failed: list[StrictStr] = []
    note: StrictStr
    end_address: BuiltUrlData | None = None
    listed: dict[Name, list[StrictStr]] = {}


def plan_text(plan: SkillPlan) -> str:
    """The plan as the store keeps it (JSON text)."""
    names = {id(p): p.name for p in plan.params}

    def ref(param: Param) -> dict[str, str]:
        if id(param) not in names:
            raise ValueError(f"the parameter {param.name!r} is not one of the plan's")
        return {"kind": "param", "param": param.name}

    def argument(value: Any) -> Any:
        if isinstance(value, Param) and value.name == START_URL and id(value) not in names:
            return {"kind": "start_url", "example": value.example}
        if isinstance(value, Param):
            return ref(value)
        if isinstance(value, ByRoleName) and value.within:
            named = {"role": value.role, "param": ref(value.param)["param"]}
            return {"kind": "by_role_name", **named, "within": True}
        if isinstance(value, ByRoleName) and (value.before or value.after):
            named = {"role": value.role, "param": ref(value.param)["param"]}
            return {"kind": "by_role_name", **named, "before": value.before, "after": value.after}
        if isinstance(value, ByRoleName | NthOfRole):
            kind = "by_role_name" if isinstance(value, ByRoleName) else "nth_of_role"
            return {"kind": kind, "role": value.role, "param": ref(value.param)["param"]}
        if isinstance(value, Cased):
            case = ref(value.case) if isinstance(value.case, Param) else value.case
            return {"kind": "cased", "param": ref(value.param)["param"], "case": case}
        if isinstance(value, BuiltUrl):
            return {
                "kind": "url",
                "parts": [p if isinstance(p, str) else ref(p) for p in value.parts],
            }
        return value

    data = {
        "format": FORMAT,
        "command": plan.command,
        "template": plan.template,
        "params": [
            {
                "name": p.name,
                "description": p.description,
                "example": p.example,
                "kind": p.kind,
                "said": p.said,
            }
            for p in plan.params
        ],  # fmt: skip
        "steps": [
            {
                "primitive": s.primitive,
                "arguments": {k: argument(v) for k, v in s.arguments.items()},
                "targets": {k: t.as_dict() for k, t in s.targets.items()},
                "navigated_to": s.navigated_to,
                "path_varies": s.path_varies,
                "appeared": s.appeared,
                "checked": s.checked,
                "accept_dialogs": s.accept_dialogs,
                **({"address": argument(s.address)} if s.address is not None else {}),
            }
            for s in plan.steps
        ],
        "start_url": plan.start_url,
        "end_url": plan.end_url,
        "ended_because": plan.ended_because,
        "source": plan.source,
        "dropped": list(plan.dropped),
        "left_out": list(plan.left_out),
        "lacks": plan.lacks,
        "done_template": plan.done_template,
        "failed": list(plan.failed),
        "note": plan.note,
    }
    if plan.end_address is not None:
        data["end_address"] = argument(plan.end_address)
    kept = {p.name for p in plan.params}  # a parameter merged into another lists nothing
    listed = {name: list(names) for name, names in plan.listed.items() if names and name in kept}
    if listed:
        data["listed"] = listed
    PlanData.model_validate(data)  # never store a plan that would not be read back
    return json.dumps(data, ensure_ascii=False)  # in order: arguments keep theirs


def read_plan(text: str) -> SkillPlan:
    """The plan of the store's JSON text; PlanInvalid (one line) when it does not validate."""
    try:
        data = PlanData.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the plan"
        raise PlanInvalid(
            f"its plan does not validate ({exc.error_count()} errors; {where}: {first['msg']})"
        ) from None
    params = {p.name: Param(p.name, p.description, p.example, p.kind, p.said) for p in data.params}
    if len(params) != len(data.params):
        raise PlanInvalid("its plan names one parameter twice")

    def param(name: str) -> Param:
        if name not in params:
            raise PlanInvalid(f"its plan uses a parameter it does not have: {name!r}")
        return params[name]

    def argument(value: Any) -> Any:
        if isinstance(value, ParamRef):
            return param(value.param)
        if isinstance(value, StartUrlData):
            return Param(START_URL, "", value.example)
        if isinstance(value, ByRoleNameData):
            named = param(value.param)
            return ByRoleName(value.role, named, value.before, value.after, value.within)
        if isinstance(value, NthOfRoleData):
            return NthOfRole(value.role, param(value.param))
        if isinstance(value, CasedData):
            case = param(value.case.param) if isinstance(value.case, ParamRef) else value.case
            return Cased(param(value.param), case)
        if isinstance(value, BuiltUrlData):
            return BuiltUrl([p if isinstance(p, str) else param(p.param) for p in value.parts])
        return value

    steps = [
        PlannedStep(
            s.primitive,
            {k: argument(v) for k, v in s.arguments.items()},
            {k: ElementRecord(**t.model_dump()) for k, t in s.targets.items()},
            s.navigated_to,
            s.path_varies,
            s.appeared,
            s.checked,
            s.accept_dialogs,
            argument(s.address) if s.address else None,
        )
        for s in data.steps
    ]
    return SkillPlan(
        command=data.command,
        template=data.template,
        params=list(params.values()),
        steps=steps,
        start_url=data.start_url,
        end_url=data.end_url,
        ended_because=data.ended_because,
        source=data.source,
        dropped=list(data.dropped),
        left_out=list(data.left_out),
        lacks=data.lacks,
        done_template=data.done_template,
        failed=list(data.failed),
        note=data.note,
        end_address=argument(data.end_address) if data.end_address else None,
        listed={param(name).name: list(names) for name, names in data.listed.items()},
    )
