"""Settings read from environment variables and a config file, with the defaults a
first-time user expects.

Every setting has an environment variable named ``BROWSER_AGENT_<NAME>``; the
LLM endpoint also honours the usual ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` /
``OPENAI_MODEL``. A TOML config file (``BROWSER_AGENT_CONFIG``, else ``config.toml`` in
the per-user config folder) gives the settings no variable sets: command-line options
over variables over the file over the defaults. Values are checked when they are read: a
bad one raises :class:`SettingsError` with a one-line message naming the variable, or
the file and its key.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from platformdirs import user_config_dir, user_data_dir
from pydantic import AliasChoices, Field, NonNegativeFloat, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from browser_agent.errors import UserError, unreadable
from browser_agent.names import APP_NAME, ENV_PREFIX
from browser_agent.sites.allow_list import domain_list
from browser_agent.sites.ports import checked_port

# Shown in the settings table instead of a default that depends on the machine or is unset.
SHOWN_DEFAULT = "shown_default"


class SettingsError(UserError, ValueError):
    """A setting has a value the agent cannot use; the message names the variable."""


# The variable naming the config file; without it, config.toml in the per-user config folder.
CONFIG_ENV = f"{ENV_PREFIX}CONFIG"
CONFIG_NAME = "config.toml"

# The folder above the package: the repository's root when the package runs from a checkout.
PACKAGE_PARENT = Path(__file__).resolve().parent.parent


def default_workspace(package_parent: Path = PACKAGE_PARENT) -> Path:
    """The checkout's root when the package runs from one (its ``logs/`` and
    ``skills/harvested/`` sit beside the code), else the per-user data folder
    (``~/.local/share/browser-agent`` on Linux) of a pip install."""
    if (package_parent / "pyproject.toml").is_file() and (
        package_parent / "skills" / "primitive"
    ).is_dir():
        return package_parent
    return Path(user_data_dir(APP_NAME))


def _shown(text: str) -> dict[str, Any]:
    """Field metadata: how the settings table shows this field's default."""
    return {SHOWN_DEFAULT: text}


def _env(*names: str) -> AliasChoices:
    """Read a field from these variables, the first one set wins."""
    return AliasChoices(*names)


def _json_prices(text: str) -> object:
    """Prices as a JSON text gives them; ValueError saying the shape when it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f'must be a JSON object such as {{"my-model": [0.5, 1.5]}} ({exc.msg})'
        ) from None


class Settings(BaseSettings):
    """All knobs of the agent. Build with :func:`load_settings`; change with
    :meth:`with_overrides`."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,
        allow_inf_nan=False,  # "inf" is no timeout, "nan" no number: both refused
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
    )

    workspace: Path = Field(
        default_factory=default_workspace,
        description="holds `logs/`, `skills/harvested/` and `browser_agent.db`",
        json_schema_extra=_shown(
            "the checkout's root in a checkout, else the per-user data folder "
            "(`~/.local/share/browser-agent`)"
        ),
    )
    database_url: str | None = Field(
        None,
        description="a SQLite or PostgreSQL URL (`sqlite:///PATH`, `postgresql://…`)",
        json_schema_extra=_shown("SQLite file in the workspace"),
    )
    headed: bool = Field(False, description="`true` shows the browser window")
    chromium_path: str | None = Field(
        None,
        validation_alias=_env(f"{ENV_PREFIX}CHROMIUM"),
        description="Chromium executable",
        json_schema_extra=_shown("Playwright's, else found on PATH"),
    )
    browser_endpoint: str | None = Field(
        None,
        description="connect to a remote browser: a DevTools address (`http://HOST:9222`, "
        "a bare `ws://HOST:9222`) or a Playwright server's `ws://` URL",
    )
    action_timeout_ms: float = Field(
        5_000, gt=0, description="how long an action waits for its element"
    )
    navigation_timeout_ms: float = Field(
        15_000, gt=0, description="how long a page may take to load"
    )
    effect_timeout_ms: float = Field(
        5_000,
        gt=0,
        description="how long a skill's step waits for its effect (the value held, the page "
        "moved on); a site whose recorded steps took longer gets a longer wait",
    )
    health_window: int = Field(
        20, gt=0, description="how many recent runs and validations a skill's health is read from"
    )
    candidate_uses: int = Field(
        3,
        ge=0,
        description="passed uses or validations a new version of a skill in use needs, after "
        "its verifying replay, before it replaces the current one",
    )
    dom_budget_chars: int = Field(
        60_000, gt=0, description="cap on one distilled page; the output says what was cut"
    )
    accept_dialogs: bool = Field(
        False,
        description="`true` accepts every confirm, prompt and leave-page dialog; by default "
        "they are dismissed unless the command says to confirm",
    )
    llm_base_url: str | None = Field(
        None,
        validation_alias=_env(f"{ENV_PREFIX}LLM_BASE_URL", "OPENAI_BASE_URL"),
        description="an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp)",
    )
    llm_api_key: str | None = Field(
        None,
        repr=False,
        validation_alias=_env(f"{ENV_PREFIX}LLM_API_KEY", "OPENAI_API_KEY"),
        description="the key for that endpoint; with a key and no URL, OpenAI's own",
    )
    llm_model: str = Field(
        "gpt-4o-mini",
        validation_alias=_env(f"{ENV_PREFIX}LLM_MODEL", "OPENAI_MODEL"),
        description="model name at that endpoint; `offline` for the built-in planner",
    )
    llm_timeout_s: float | None = Field(
        None,
        gt=0,
        description="how long one model call may take",
        json_schema_extra=_shown("60 s; 600 s for a model on this machine (a loopback URL)"),
    )
    llm_text_actions: bool = Field(False, description="`true` for models without native tool calls")
    llm_tools: Literal["all", "basic"] = Field(
        "all",
        description="`basic` offers the model only the tools most tasks need (open, look, find, "
        "click, type, choose, scroll, back, finish, and harvested skills): fewer to choose "
        "from and a shorter prompt, for a small model",
    )
    ask_timeout_s: float = Field(
        600.0,
        gt=0,
        description="how long a run started in the web console waits for the person to "
        "answer a question (`ask_user`; then it carries on with no answer) or approve an "
        "action (then it is rejected)",
    )
    logs_in_store: bool = Field(
        False,
        description="`true` keeps each run's chat log and model calls in the store as well as "
        "in `logs/`, so runs made on other machines (cluster workers) can be shown and "
        "harvested here",
    )
    trace: Literal["off", "on-failure", "always"] = Field(
        "on-failure",
        description="keep a Playwright trace of each run (`logs/RUN_ID.trace.zip`, for "
        "`playwright show-trace`, secrets masked): `off`, `on-failure` (a routed skill's "
        "replay untraced, from where the planner takes over) or `always`",
    )
    use_skills: bool = Field(
        True,
        description="`false` runs every command through the planner, ignoring harvested skills",
    )
    allowed_domains: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="comma-separated domains the browser may open, each with its subdomains "
        "(ports do not count), in every tab, frame and redirect; `*` opens every site; "
        "`--allow-domain` replaces it for one command",
        json_schema_extra=_shown(
            "unset: the site a run starts on and the sites its command names (host and "
            "port); another is asked about on a terminal or in the console, refused otherwise"
        ),
    )
    allow_file_urls: bool = Field(
        False, description="`true` lets the browser open `file:` URLs (only http and https else)"
    )
    profile: str | None = Field(
        None,
        description="a named browser profile: runs start from its cookies and storage and "
        "save them back to `profiles/NAME.json` in the workspace (owner-only); validation "
        "and skills read it; `--profile` sets it for one command",
    )
    storage_state: Path | None = Field(
        None,
        description="a Playwright storage-state file (cookies and localStorage) every browser "
        "context starts from, before a profile's; `--storage-state` sets it for one command",
    )
    prices: Annotated[dict[str, tuple[NonNegativeFloat, NonNegativeFloat]], NoDecode] = Field(
        default_factory=dict,
        description="US dollars per million input and output tokens by model, as JSON "
        '(`{"my-model": [0.5, 1.5]}`), over the price map of genai-prices; a model '
        "with no price shows no cost",
        json_schema_extra=_shown("genai-prices' price map"),
    )

    # Memory (browser_agent.memory). The planner's history is fitted into
    # context_limit_tokens - answer_reserve_tokens - (system prompt, command, tools).
    context_limit_tokens: int = Field(
        128_000,
        gt=0,
        description="the model's context limit; the history is fitted inside it (a "
        "self-hosted server's own smaller window, and its tokenizer, are used when it "
        "reports them)",
    )
    answer_reserve_tokens: int = Field(4_096, gt=0, description="room kept for the model's answer")
    short_term_share: float = Field(
        0.75,
        gt=0,
        le=1,
        description="share of the history budget for recent messages; "
        "the rest holds the summary of older ones",
    )
    summary_token_limit: int = Field(2_000, gt=0, description="longest summary of older messages")
    evict_target_share: float = Field(
        0.5,
        ge=0,
        lt=1,
        description="how full an eviction leaves the recent-message window",
    )
    memory_prompts_dir: Path | None = Field(
        None,
        description="folder of prompt files overriding `browser_agent/memory/prompts/*.txt`",
    )
    memory_manager: bool = Field(
        False,
        description="`true` keeps memories across runs and gives the planner a `recall` tool",
    )
    memory_chat_context_tokens: int = Field(
        4_000, gt=0, description="the memory manager's chat context size"
    )
    memory_chat_compression_ratio: float = Field(
        0.5,
        gt=0,
        le=1,
        description="share of that context turned into short-term memories when it overflows",
    )
    memory_short_term_size: int = Field(
        30, gt=0, description="short-term memories kept before the oldest are consolidated"
    )
    memory_short_term_compression_ratio: float = Field(
        0.5,
        gt=0,
        le=1,
        description="share of short-term memories consolidated into long-term memory",
    )
    memory_recall_tokens: int = Field(4_000, gt=0, description="most memory text one recall reads")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Values given in code, then the environment, then the config file, then the
        defaults (command-line options reach the settings as variables or in code)."""
        path = config_path()
        config = TomlConfigSettingsSource(settings_cls, toml_file=path if path.is_file() else [])
        return (init_settings, env_settings, config)

    @field_validator("workspace", "memory_prompts_dir")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        """Folders are kept absolute, with ``~`` expanded."""
        return value.expanduser().resolve() if value is not None else None

    @field_validator("profile")
    @classmethod
    def _profile(cls, value: str | None) -> str | None:
        """A profile name is one plain file name: no path, no second line."""
        from browser_agent.storage_state import checked_profile_name

        return checked_profile_name(value) if value is not None else None

    @field_validator("storage_state")
    @classmethod
    def _storage_state(cls, value: Path | None) -> Path | None:
        """A storage-state file is read and checked when it is named, not mid-run."""
        from browser_agent.storage_state import read_storage_state

        if value is None:
            return None
        path = value.expanduser().resolve()
        read_storage_state(path)
        return path

    @field_validator("prices", mode="before")
    @classmethod
    def _prices(cls, value: object) -> object:
        """Prices come as a JSON object of ``model: [input, output]``."""
        return _json_prices(value) if isinstance(value, str) else value

    @field_validator("allowed_domains", mode="before")
    @classmethod
    def _domains(cls, value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
        """A comma-separated list, or a list, of domains as host names; a value that names
        none (``,,,``) is a mistake, not "no allow-list" (unset the variable for that)."""
        domains = domain_list(value)
        given = [value] if isinstance(value, str) else list(value)
        if not domains and any(str(entry).strip() for entry in given):
            raise ValueError(f"{value!r} names no domain (unset it to allow any site)")
        return domains

    @field_validator("database_url", "browser_endpoint", "llm_base_url")
    @classmethod
    def _port(cls, value: str | None) -> str | None:
        """A URL's port is refused here when it is out of range, not at first use."""
        if value is not None:
            checked_port(value)
        return value

    @property
    def headless(self) -> bool:
        """Launch Chromium without a window (the opposite of ``headed``)."""
        return not self.headed

    @property
    def logs_dir(self) -> Path:
        return self.workspace / "logs"

    @property
    def harvested_dir(self) -> Path:
        return self.workspace / "skills" / "harvested"

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.workspace / 'browser_agent.db'}"

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with these fields changed; None leaves a field as it is.

        Raises TypeError for a name that is not a setting and SettingsError for a bad value.
        """
        unknown = sorted(set(changes) - set(type(self).model_fields))
        if unknown:
            raise TypeError(f"Not a setting: {', '.join(unknown)}")
        given = {name: value for name, value in changes.items() if value is not None}
        return _checked(lambda: type(self).model_validate({**self.model_dump(), **given}))


def load_settings() -> Settings:
    """Settings from the environment (``BROWSER_AGENT_*`` and ``OPENAI_*``) over those of
    the config file (see :func:`config_path`).

    Raises SettingsError, naming the variable (or the file and its key), when a value is
    not usable.
    """
    path = config_path()
    values = read_config(path)
    if values:  # the file alone first: its mistakes are named as the file's
        _checked(lambda: Settings.model_validate(values), lambda loc: str(loc[0]), f"{path}: ")
    return _checked(Settings)


def config_path() -> Path:
    """The config file: the one ``BROWSER_AGENT_CONFIG`` names, else ``config.toml`` in the
    per-user config folder (``~/.config/browser-agent/config.toml`` on Linux)."""
    named = os.environ.get(CONFIG_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    return Path(user_config_dir(APP_NAME)) / CONFIG_NAME


def read_config(path: Path) -> dict[str, Any]:
    """The settings a TOML config file gives, by name; empty when the default file is not
    there. SettingsError naming the file when it cannot be read, is not TOML, or names a
    key that is not a setting (with the nearest setting's name)."""
    import tomllib

    if not path.is_file():
        if os.environ.get(CONFIG_ENV, "").strip():
            raise SettingsError(f"{CONFIG_ENV} names {path}, which is not a file")
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: the config file {unreadable(exc)}") from None
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    unknown = [key for key in values if key not in Settings.model_fields]
    if unknown:
        raise SettingsError(f"{path}: {_not_settings(unknown)}")
    return values


def _not_settings(keys: list[str]) -> str:
    """``foo is not a setting (llm_model?)``: each key with the nearest setting's name."""
    from difflib import get_close_matches

    said = []
    for key in keys:
        near = get_close_matches(key.lower(), list(Settings.model_fields), n=1)
        said.append(f"{key} is not a setting" + (f" (did you mean {near[0]}?)" if near else ""))
    return "; ".join(said) + " (the keys are listed in docs/settings.md)"


def _checked(
    build: Callable[[], Settings],
    named: Callable[[tuple[int | str, ...]], str] | None = None,
    where: str = "",
) -> Settings:
    """``build()``, with pydantic's validation errors turned into one SettingsError; each
    error names what ``named`` makes of its location (the variable by default), after
    ``where``."""
    try:
        return build()
    except ValidationError as exc:
        said = "; ".join(_describe(error, named or _variable) for error in exc.errors())
        raise SettingsError(f"{where}{said}") from None


def env_names(name: str) -> list[str]:
    """The environment variables a field is read from, the first one set wins."""
    alias = Settings.model_fields[name].validation_alias
    if isinstance(alias, AliasChoices):
        return [choice for choice in alias.choices if isinstance(choice, str)]
    return [f"{ENV_PREFIX}{name.upper()}"]


def _variable(loc: tuple[int | str, ...]) -> str:
    """The environment variable an error location stands for."""
    key = str(loc[0]) if loc else "?"
    if key in Settings.model_fields:
        return env_names(key)[0]
    return key.upper()


def _number(value: object) -> str:
    """A bound or default as people write it: 5000 rather than 5000.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _describe(
    error: Mapping[str, Any], named: Callable[[tuple[int | str, ...]], str] = _variable
) -> str:
    """One pydantic error as ``VARIABLE must be ..., got VALUE`` (or the config file's key)."""
    loc = tuple(error.get("loc", ()))
    variable = named(loc) if loc else "?"
    field = Settings.model_fields.get(str(loc[0])) if loc else None
    got = "the value is not shown" if field and not field.repr else f"got {error.get('input')}"
    kind = error.get("type", "")
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return f"{variable} {_range_rule(str(loc[0]) if loc else '', error)}, {got}"
    if kind == "bool_parsing":
        return f"{variable} must be true or false (yes/no, on/off, 1/0), {got}"
    if kind in ("int_parsing", "int_from_float", "int_type"):
        return f"{variable} must be a whole number, {got}"
    if kind in ("float_parsing", "float_type"):
        return f"{variable} must be a number, {got}"
    if kind == "string_type":  # only a config file gives values that are not text
        return f"{variable} must be text, in quotes, {got}"
    if kind == "finite_number":
        return f"{variable} must be a finite number, {got}"
    if kind == "extra_forbidden":
        return f"{variable} is not a setting"
    if kind == "value_error":
        return f"{variable}: {error.get('ctx', {}).get('error', error.get('msg'))}"
    return f"{variable}: {error.get('msg', 'invalid value')}, {got}"


def _bounds(name: str) -> dict[str, float]:
    """The numeric bounds (gt, ge, lt, le) declared on a field."""
    found: dict[str, float] = {}
    field: FieldInfo | None = Settings.model_fields.get(name)
    for rule in field.metadata if field else ():
        for key in ("gt", "ge", "lt", "le"):
            bound = getattr(rule, key, None)
            if bound is not None:
                found[key] = bound
    return found


def _range_rule(name: str, error: Mapping[str, Any]) -> str:
    """What a bounded field accepts: ``must be between 0 and 1``, or the exact end missed."""
    bounds = _bounds(name) or dict(error.get("ctx", {}))
    low = bounds.get("gt", bounds.get("ge"))
    high = bounds.get("lt", bounds.get("le"))
    try:
        value = float(error.get("input"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = float("nan")
    if low is not None and high is not None and not low <= value <= high:
        return f"must be between {_number(low)} and {_number(high)}"
    words = {"gt": "more than", "ge": "at least", "lt": "less than", "le": "at most"}
    return "must be " + " and ".join(f"{words[k]} {_number(b)}" for k, b in bounds.items())


def _shown_default(field: FieldInfo) -> str:
    """A field's default as the settings table shows it."""
    extra = field.json_schema_extra
    if isinstance(extra, dict) and SHOWN_DEFAULT in extra:
        return str(extra[SHOWN_DEFAULT])
    if field.default is None:
        return "unset"
    if isinstance(field.default, bool):
        return f"`{str(field.default).lower()}`"
    return f"`{_number(field.default)}`"


def _shown_range(name: str) -> str:
    """The values a field accepts, for the settings table: ``> 0, ≤ 1``; blank if any."""
    symbols = {"gt": ">", "ge": "≥", "lt": "<", "le": "≤"}
    return ", ".join(f"{symbols[key]} {_number(bound)}" for key, bound in _bounds(name).items())


def settings_table() -> str:
    """The table of environment variables in docs/settings.md, made from the Settings fields."""
    lines = ["| variable | default | range | meaning |", "|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        variables = " or ".join(f"`{variable}`" for variable in env_names(name))
        cells = [variables, _shown_default(field), _shown_range(name), str(field.description)]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


_PASSWORD = re.compile(r"^(?P<head>[A-Za-z][\w+.-]*://[^:/@?#]*:)(?P<password>[^@]*)@")
_SECRET_KEY = re.compile(r"pass|secret|token|key|auth|sig", re.IGNORECASE)


def mask_url(url: str) -> str:
    """``url`` with its password, and query values that look secret, shown as ``***``.

    ``postgresql://user:pw@host/db`` becomes ``postgresql://user:***@host/db``. The
    password is read as SQLAlchemy reads it: from the first ``:`` after the user name to
    the ``@``.
    """
    masked = _PASSWORD.sub(r"\g<head>***@", url, count=1)
    base, mark, query = masked.partition("?")
    if not mark:
        return masked
    query, hash_mark, fragment = query.partition("#")
    pairs = [_mask_pair(pair) for pair in query.split("&")]
    return f"{base}?{'&'.join(pairs)}{hash_mark}{fragment}"


def _mask_pair(pair: str) -> str:
    """One ``key=value`` of a query, its value hidden when the key names a secret."""
    key, equals, value = pair.partition("=")
    return f"{key}=***" if equals and value and _SECRET_KEY.search(key) else pair
