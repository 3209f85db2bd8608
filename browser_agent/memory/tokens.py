"""Counting tokens: exact with tiktoken when its encoding for the model loads offline,
otherwise an estimate of four characters a token.

Messages are counted by their JSON text (as they go over the wire), so quoting and
escaping count too and the count never falls below what a server measures on the JSON.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from typing import Any, Protocol

logger = logging.getLogger("browser_agent.memory")

CHARS_PER_TOKEN = 4


class TokenCounter(Protocol):
    """Tokens of a text for one model."""

    name: str
    per_message: int  # tokens a chat format adds around each message

    def text(self, text: str) -> int:
        """How many tokens ``text`` takes."""
        ...


class EstimateCounter:
    """Four characters a token, rounded up: good enough where no tokenizer is available."""

    name = "estimate"
    per_message = 0  # the JSON text already overcounts the chat format

    def text(self, text: str) -> int:
        return -(-len(text) // CHARS_PER_TOKEN)


class TiktokenCounter:
    """Exact counts with a tiktoken encoding."""

    def __init__(self, encoding: Any) -> None:
        self.encoding = encoding
        self.name = f"tiktoken:{encoding.name}"
        self.per_message = 4

    def text(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))


@cache
def token_counter(model: str) -> TokenCounter:
    """Exact counts for ``model`` when tiktoken knows it and loads offline, else the estimate."""
    try:
        import tiktoken
    except ImportError:
        return EstimateCounter()
    try:
        return TiktokenCounter(tiktoken.encoding_for_model(model))
    except KeyError:  # not an OpenAI model: its tokenizer is unknown
        return EstimateCounter()
    except Exception as exc:  # the encoding file could not be fetched (offline)
        logger.info("tiktoken unavailable (%s); estimating 4 characters a token", exc)
        return EstimateCounter()


def message_tokens(counter: TokenCounter, message: dict[str, Any]) -> int:
    """Tokens of one message as sent, with its separator in the message list."""
    return counter.text(json.dumps(message) + ", ") + counter.per_message


def messages_tokens(counter: TokenCounter, messages: list[dict[str, Any]]) -> int:
    """Tokens of a message list: the sum of its messages."""
    return sum(message_tokens(counter, message) for message in messages)


def tools_tokens(counter: TokenCounter, tools: list[dict[str, Any]]) -> int:
    """Tokens of the tool schemas sent with a request."""
    return counter.text(json.dumps(tools)) if tools else 0
