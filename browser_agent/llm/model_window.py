"""What a self-hosted server says of the model it runs: its context window and its tokenizer.

llama.cpp's ``llama-server`` reports the window it was started with (``GET /props``,
``default_generation_settings.n_ctx``; also ``meta.n_ctx`` in ``GET /v1/models``) and
tokenizes text with the model's own vocabulary (``POST /tokenize``); vLLM reports
``max_model_len`` in ``/v1/models``. Hosted APIs answer none of these: then nothing is
known and the settings stand. Everything read is checked (an endpoint is untrusted): a
window is a positive integer, a tokenization a list.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit

logger = logging.getLogger("browser_agent.llm")

PROBE_TIMEOUT_S = 5.0
LOCAL_TIMEOUT_S = 600.0  # a CPU model reads a 3,000-token prompt in tens of seconds
REMOTE_TIMEOUT_S = 60.0
ANSWER_SHARE = 4  # a window of N tokens keeps at most N // 4 for the answer
CACHED_TEXTS = 4096


def is_loopback(base_url: str | None) -> bool:
    """True when the endpoint is on this machine (127.0.0.0/8, ::1, localhost)."""
    host = urlsplit(base_url or "").hostname or ""
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def default_timeout_s(base_url: str | None) -> float:
    """How long one model call may take when the settings do not say: a model on this
    machine may think for minutes, a hosted one answers within a minute or is stuck."""
    return LOCAL_TIMEOUT_S if is_loopback(base_url) else REMOTE_TIMEOUT_S


def answer_room(window: int, wanted: int) -> int:
    """Tokens kept for the answer in a window of ``window``: ``wanted``, at most a quarter."""
    return max(1, min(wanted, window // ANSWER_SHARE))


@dataclass(frozen=True)
class ModelWindow:
    """The model's context window as its server runs it, and its tokenizer when offered."""

    context_tokens: int | None = None
    tokenizer: ServerTokenizer | None = None


class ServerTokenizer:
    """A TokenCounter (browser_agent.memory.tokens) asking the server's ``/tokenize``;
    the texts last counted are kept, since the planner's history is counted again before
    every call. A failed request counts four characters a token, and says so once."""

    per_message = 5  # Qwen's and most chat templates: <|im_start|>role\n ... <|im_end|>\n

    def __init__(self, url: str, name: str = "server") -> None:
        self.url = url
        self.name = f"tokenizer of {name}"
        self._known: OrderedDict[str, int] = OrderedDict()
        self._warned = False

    def text(self, text: str) -> int:
        if text in self._known:
            self._known.move_to_end(text)
            return self._known[text]
        count = self._ask(text)
        self._known[text] = count
        if len(self._known) > CACHED_TEXTS:
            self._known.popitem(last=False)
        return count

    def _ask(self, text: str) -> int:
        body = _post_json(self.url, {"content": text})
        tokens = body.get("tokens") if isinstance(body, dict) else None
        if isinstance(tokens, list):
            return len(tokens)
        if not self._warned:
            logger.warning("%s did not tokenize; estimating 4 characters a token", self.url)
            self._warned = True
        return -(-len(text) // 4)


async def window_of(llm: object) -> ModelWindow:
    """The window a client's server reports (``model_window``, which wrappers pass on);
    nothing known for a client without one (the offline planner, scripted models)."""
    ask = getattr(llm, "model_window", None)
    return await ask() if callable(ask) else ModelWindow()


def served_locally(llm: object) -> bool:
    """True for a client of a model on this machine (``local``, which wrappers pass on)."""
    return getattr(llm, "local", False) is True


def probe_window(base_url: str, model: str, timeout_s: float = PROBE_TIMEOUT_S) -> ModelWindow:
    """Ask the server at ``base_url`` (an OpenAI base URL, usually ending in /v1) for the
    window of ``model`` and its tokenizer; an empty ModelWindow when it offers neither."""
    root = base_url.rstrip("/").removesuffix("/v1")
    props = _get_json(f"{root}/props", timeout_s)
    window = _positive(_dig(props, "default_generation_settings", "n_ctx"))
    if window is None:
        window = _window_in_models(_get_json(f"{base_url.rstrip('/')}/models", timeout_s), model)
    tokens = _dig(_post_json(f"{root}/tokenize", {"content": "hello world"}, timeout_s), "tokens")
    tokenizer = ServerTokenizer(f"{root}/tokenize", model) if isinstance(tokens, list) else None
    return ModelWindow(window, tokenizer)


def _window_in_models(listing: Any, model: str) -> int | None:
    """The window of ``model`` (or of the only model) in a ``/v1/models`` listing."""
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    entries = [entry for entry in entries if isinstance(entry, dict)]
    named = [entry for entry in entries if entry.get("id") == model]
    chosen = named or (entries if len(entries) == 1 else [])
    if not chosen:
        return None
    entry = chosen[0]
    return _positive(_dig(entry, "meta", "n_ctx")) or _positive(entry.get("max_model_len"))


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _positive(value: Any) -> int | None:
    """A window size read from a server: a positive int, else nothing."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _get_json(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> Any:
    return _request(url, None, timeout_s)


def _post_json(url: str, body: dict, timeout_s: float = PROBE_TIMEOUT_S) -> Any:
    return _request(url, json.dumps(body).encode(), timeout_s)


def _request(url: str, data: bytes | None, timeout_s: float) -> Any:
    """The JSON answer of a GET (or, with ``data``, a POST of JSON), or None when there is
    none (refused, an error status, not JSON)."""
    import urllib.request

    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
            return json.loads(response.read(4_000_000))
    except (OSError, ValueError):  # URLError and HTTPError are OSErrors
        return None
